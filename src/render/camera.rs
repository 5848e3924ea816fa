//! An orbit camera: yaw and pitch around a target, zoom by distance, pan the
//! target. `frame` fits a bounding box; `reset` goes back to the opening view.

use crate::Aabb;
use glam::{Mat4, Vec3};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    pub target: Vec3,
    /// Radians around +Y, 0 looks towards -Z.
    pub yaw: f32,
    /// Radians above the horizon.
    pub pitch: f32,
    pub distance: f32,
    /// Vertical field of view, radians.
    pub fov_y: f32,
}

impl Default for Camera {
    fn default() -> Self {
        Self {
            target: Vec3::ZERO,
            yaw: 0.0,
            pitch: 0.3,
            distance: 10.0,
            fov_y: 45f32.to_radians(),
        }
    }
}

impl Camera {
    pub fn eye(&self) -> Vec3 {
        let dir = Vec3::new(
            self.pitch.cos() * self.yaw.sin(),
            self.pitch.sin(),
            self.pitch.cos() * self.yaw.cos(),
        );
        self.target + dir * self.distance
    }

    pub fn view(&self) -> Mat4 {
        glam::camera::rh::view::look_at_mat4(self.eye(), self.target, Vec3::Y)
    }

    /// Near and far planes that keep depth precision at this distance.
    pub fn clip_planes(&self) -> (f32, f32) {
        let near = (self.distance * 0.01).max(1e-3);
        (near, (self.distance + 1.0) * 60.0)
    }

    pub fn projection(&self, aspect: f32) -> Mat4 {
        let (near, far) = self.clip_planes();
        glam::camera::rh::proj::directx::perspective(self.fov_y, aspect.max(1e-3), near, far)
    }

    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        self.projection(aspect) * self.view()
    }

    pub fn orbit(&mut self, dx: f32, dy: f32) {
        self.yaw -= dx * 0.008;
        self.pitch = (self.pitch + dy * 0.008).clamp(-0.05, 1.5);
    }

    /// Moves the target in the view plane by a drag of (dx, dy) pixels on a
    /// viewport `height` pixels tall.
    pub fn pan(&mut self, dx: f32, dy: f32, height: f32) {
        let view = self.view();
        let right = view.row(0).truncate();
        let up = view.row(1).truncate();
        let scale = 2.0 * self.distance * (self.fov_y * 0.5).tan() / height.max(1.0);
        self.target += (-right * dx + up * dy) * scale;
    }

    /// Zooms by wheel steps (positive = closer).
    pub fn zoom(&mut self, steps: f32) {
        self.distance = (self.distance * 0.88f32.powf(steps)).clamp(1e-2, 1e6);
    }

    /// Keeps the direction and fits `bounds` in view.
    pub fn frame(&mut self, bounds: &Aabb, aspect: f32) {
        if bounds.is_empty() {
            return;
        }
        let center = (bounds.min + bounds.max) * 0.5;
        let radius = ((bounds.max - bounds.min).length() * 0.5).max(1e-3);
        let half_fov =
            (self.fov_y * 0.5).min((self.fov_y * 0.5).tan().atan2(1.0 / aspect.max(1e-3)));
        self.target = center;
        self.distance = radius / half_fov.sin();
    }
}

/// A view given on the command line (`--camera yaw,pitch,distance[,x,y,z]`,
/// angles in degrees): it replaces the opening view's angles and distance,
/// and its target when one is given.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraSpec {
    pub yaw_degrees: f32,
    pub pitch_degrees: f32,
    pub distance: f32,
    pub target: Option<Vec3>,
}

impl CameraSpec {
    /// `camera` with this view applied.
    pub fn apply(&self, camera: Camera) -> Camera {
        Camera {
            yaw: self.yaw_degrees.to_radians(),
            pitch: self.pitch_degrees.to_radians(),
            distance: self.distance,
            target: self.target.unwrap_or(camera.target),
            ..camera
        }
    }
}

impl std::str::FromStr for CameraSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || {
            format!(
                "'{s}' is not yaw,pitch,distance[,x,y,z] (degrees, degrees, model units; e.g. 30,10,25)"
            )
        };
        let v: Vec<f32> = s
            .split(',')
            .map(|p| p.trim().parse::<f32>().map_err(|_| bad()))
            .collect::<Result<_, _>>()?;
        if !(v.len() == 3 || v.len() == 6) || v.iter().any(|x| !x.is_finite()) {
            return Err(bad());
        }
        if v[2] <= 0.0 {
            return Err(format!("'{s}': the distance must be above 0"));
        }
        if v[1].abs() > 89.0 {
            return Err(format!("'{s}': the pitch must be within ±89 degrees"));
        }
        Ok(Self {
            yaw_degrees: v[0],
            pitch_degrees: v[1],
            distance: v[2],
            target: (v.len() == 6).then(|| Vec3::new(v[3], v[4], v[5])),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framing_puts_the_box_in_view() {
        let b = Aabb {
            min: Vec3::new(-50.0, 0.0, -50.0),
            max: Vec3::new(50.0, 10.0, 50.0),
        };
        let mut c = Camera::default();
        c.frame(&b, 16.0 / 9.0);
        let vp = c.view_proj(16.0 / 9.0);
        for corner in [
            b.min,
            b.max,
            Vec3::new(-50.0, 0.0, 50.0),
            Vec3::new(50.0, 10.0, -50.0),
        ] {
            let p = vp.project_point3(corner);
            assert!(
                p.x.abs() <= 1.0 && p.y.abs() <= 1.0 && (0.0..=1.0).contains(&p.z),
                "{corner} → {p}"
            );
        }
    }

    #[test]
    fn pan_and_zoom_move_the_camera() {
        let mut c = Camera::default();
        c.zoom(2.0);
        assert!(c.distance < 10.0);
        let before = c.target;
        c.pan(100.0, 0.0, 720.0);
        assert!((c.target - before).length() > 0.0 && (c.target.y - before.y).abs() < 1e-4);
    }

    #[test]
    fn camera_flags_parse_and_apply() {
        let spec: CameraSpec = "30, 10, 25".parse().unwrap();
        let c = spec.apply(Camera {
            target: Vec3::new(1.0, 2.0, 3.0),
            ..Camera::default()
        });
        assert_eq!(
            (c.yaw, c.pitch, c.distance),
            (30f32.to_radians(), 10f32.to_radians(), 25.0)
        );
        assert_eq!(c.target, Vec3::new(1.0, 2.0, 3.0));
        let spec: CameraSpec = "0,45,5,4,0,-2".parse().unwrap();
        assert_eq!(
            spec.apply(Camera::default()).target,
            Vec3::new(4.0, 0.0, -2.0)
        );
        for bad in ["1,2", "1,2,0", "1,95,3", "a,b,c", "1,2,3,4", "1,2,inf"] {
            assert!(bad.parse::<CameraSpec>().is_err(), "{bad}");
        }
    }
}
