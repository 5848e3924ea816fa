//! Where the camera looks: the opening view of the herd, the flock or the
//! standing crowd, and a box around the whole crowd for framing.

use super::{Camera, Renderer};
use crate::Aabb;
use crate::crowd::Motion;

impl Renderer {
    /// A view of the herd at scene time `time` (with `playback`): from ahead
    /// and to the side of its front, low and close.
    /// `None` when there is no herd.
    pub fn herd_camera(&mut self, time: f64, playback: f32) -> Option<Camera> {
        if !self.behaviour.settings().enabled {
            return None;
        }
        let count = self.crowd.count();
        let (centre, forward) =
            self.behaviour
                .herd_centre(&self.gpu.queue, count, time * playback as f64)?;
        let extent = self.behaviour.herd_extent(count)?;
        let size = self.layout.model_size;
        let right = glam::Vec2::new(-forward.y, forward.x);
        // Low, ahead and to the side of the herd's front third, close enough
        // that the nearest horses read as horses and the rest recede into
        // the fog.
        let front = centre + forward * extent.y * 0.35;
        let dir = forward * 0.4 + right * 0.92;
        let camera = Camera {
            target: glam::Vec3::new(front.x, self.layout.ground_y + size * 0.3, front.y),
            yaw: dir.x.atan2(dir.y),
            pitch: 0.14,
            distance: size * 12.0 + extent.x * 0.5,
            ..Camera::default()
        };
        Some(camera)
    }

    /// The opening view at scene time `time`: the herd's when there is one,
    /// else [`Self::default_camera`].
    pub fn camera_at(&mut self, time: f64, playback: f32) -> Camera {
        self.herd_camera(time, playback)
            .unwrap_or_else(|| self.default_camera())
    }

    /// A box around the whole crowd at the current count.
    pub fn crowd_bounds(&self) -> Aabb {
        self.layout.bounds(self.crowd.count())
    }

    /// The opening view: low, beside the track, the herd coming past.
    pub fn default_camera(&self) -> Camera {
        let r = self.layout.field_radius(self.crowd.count());
        let size = self.layout.model_size;
        match self.layout.motion {
            Motion::Track => Camera {
                target: glam::Vec3::new(r * 0.81, size * 0.2, 0.0),
                yaw: 2.3,
                pitch: 0.16,
                distance: r * 0.45 + size * 2.0,
                ..Camera::default()
            },
            Motion::Flock => Camera {
                target: glam::Vec3::new(0.0, size * 7.0, 0.0),
                yaw: 0.6,
                pitch: 0.05,
                distance: r * 1.6 + size * 6.0,
                ..Camera::default()
            },
            Motion::Stand => {
                let mut c = Camera {
                    yaw: 0.6,
                    pitch: 0.35,
                    ..Camera::default()
                };
                c.frame(&self.crowd_bounds(), self.targets.aspect());
                c.distance *= 0.8;
                c
            }
        }
    }
}
