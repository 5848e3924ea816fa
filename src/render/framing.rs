//! Where the camera looks: the opening view of the herd, the flock or the
//! standing crowd, and a box around the whole crowd for framing.

use super::{Camera, Renderer};
use crate::Aabb;
use crate::crowd::Motion;

impl Renderer {
    /// Keeps the left `pixels` of the target for something drawn on top
    /// (the window's panel): the 3D view is drawn beside them.
    pub fn set_view_left(&mut self, pixels: u32) {
        self.view_left = pixels;
    }

    /// The 3D view's left edge and width in pixels.
    pub fn view_span(&self) -> (u32, u32) {
        let w = self.targets.width;
        // Keep at least a quarter of the target for the view.
        let left = self.view_left.min(w * 3 / 4);
        (left, w - left)
    }

    /// The 3D view's width over its height.
    pub fn aspect(&self) -> f32 {
        let (_, w) = self.view_span();
        w as f32 / self.targets.height.max(1) as f32
    }

    /// A view of the herd at scene time `time` (with `playback`): low, from
    /// ahead and to the side. A herd small enough to fit is framed whole,
    /// as close as it fits (a single horse fills a good part of the view);
    /// a larger one is seen from beside its front third, close enough that
    /// the nearest horses read as horses and the rest recede into the fog.
    /// `None` when there is no herd.
    pub fn herd_camera(&mut self, time: f64, playback: f32) -> Option<Camera> {
        if !self.behaviour.settings().enabled {
            return None;
        }
        let count = self.crowd.count();
        let (centre, forward) =
            self.behaviour
                .herd_centre(&self.gpu.queue, count, time * playback as f64)?;
        let (lo, hi) = self.behaviour.herd_box(count)?;
        let extent = (hi - lo) * 0.5;
        let size = self.layout.model_size;
        let right = glam::Vec2::new(-forward.y, forward.x);
        let dir = (forward * 0.4 + right * 0.92).normalize();
        let mut camera = Camera {
            yaw: dir.x.atan2(dir.y),
            pitch: 0.14,
            ..Camera::default()
        };
        let crowd_view = size * 12.0 + extent.x * 0.5;
        // A herd of up to this many is framed from where its horses are.
        const FRAMED: u32 = 256;
        let framed = (count <= FRAMED)
            .then(|| {
                let mut positions = Vec::with_capacity(count as usize);
                let t = time * playback as f64;
                self.behaviour
                    .herd_positions(&self.gpu.queue, count, t, &mut positions);
                let perp = glam::Vec2::new(-dir.y, dir.x);
                // The middle of the horses across the view (perp) and in
                // depth (dir)...
                let (mut a0, mut a1, mut d0, mut d1) = (f32::MAX, f32::MIN, f32::MAX, f32::MIN);
                for p in &positions {
                    let (a, d) = ((*p - centre).dot(perp), (*p - centre).dot(dir));
                    (a0, a1, d0, d1) = (a0.min(a), a1.max(a), d0.min(d), d1.max(d));
                }
                let (a_mid, d_mid) = ((a0 + a1) * 0.5, (d0 + d1) * 0.5);
                // ...and the least distance from it at which every horse, half
                // a horse either side, is inside the view: a horse `d` nearer
                // than the middle and `a` to the side needs D ≥ d + a / tan.
                let tan_v = (camera.fov_y * 0.5).tan();
                let tan_h = tan_v * self.aspect();
                let margin = size * 0.45;
                let fit = positions
                    .iter()
                    .map(|p| {
                        let (a, d) = (
                            (*p - centre).dot(perp) - a_mid,
                            (*p - centre).dot(dir) - d_mid,
                        );
                        d + ((a.abs() + margin) / tan_h).max(margin / tan_v)
                    })
                    .fold(0.0f32, f32::max)
                    * 1.04;
                let middle = centre + perp * a_mid + dir * d_mid;
                (middle, fit.max(size * 1.6))
            })
            .filter(|(_, fit)| *fit <= crowd_view);
        let (target, distance) = framed.unwrap_or((centre + forward * extent.y * 0.35, crowd_view));
        camera.target = glam::Vec3::new(target.x, self.layout.ground_y + size * 0.3, target.y);
        camera.distance = distance;
        Some(camera)
    }

    /// A view of the flock as it is now (its state read back from the GPU,
    /// so call it after a frame has stepped the flock): from below and to
    /// the side of its middle, so the birds stand against the sky, close
    /// enough that the core of the flock fills the view's height.
    /// `None` when there is no flock yet.
    pub fn flock_camera(&mut self) -> Option<Camera> {
        let sim = self.behaviour.flock_sim()?;
        let boids = sim.read_back(&self.gpu.device, &self.gpu.queue).ok()?;
        if boids.is_empty() {
            return None;
        }
        let n = boids.len() as f32;
        let centre = boids
            .iter()
            .fold(glam::Vec3::ZERO, |s, b| s + glam::Vec3::from(b.pos))
            / n;
        let mut radii: Vec<f32> = boids
            .iter()
            .map(|b| glam::Vec3::from(b.pos).distance(centre))
            .collect();
        radii.sort_by(f32::total_cmp);
        // The core: where half the birds are.
        let core = radii[radii.len() / 2];
        let size = self.layout.model_size;
        let mut camera = Camera {
            target: centre,
            yaw: 0.6,
            pitch: -0.12,
            ..Camera::default()
        };
        let tan_v = (camera.fov_y * 0.5).tan();
        camera.distance = (core / tan_v * 0.8).max(size * 3.0);
        // Keep the eye above the ground.
        let lowest = self.layout.ground_y + size;
        if camera.eye().y < lowest {
            camera.pitch = ((lowest - centre.y) / camera.distance)
                .clamp(-0.9, 0.9)
                .asin();
        }
        Some(camera)
    }

    /// The opening view at scene time `time`: the herd's when there is one,
    /// else [`Self::default_camera`]. It depends only on the time, never on
    /// what was drawn before; the flock's view, which reads the simulation
    /// back, is [`Self::flock_camera`].
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
                c.frame(&self.crowd_bounds(), self.aspect());
                c.distance *= 0.8;
                c
            }
        }
    }
}
