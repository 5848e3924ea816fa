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
}
