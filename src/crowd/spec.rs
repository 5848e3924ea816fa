//! The crowd's shape for one model: its motion, member size and the field it
//! spreads over as the count changes.

use super::instance::Motion;
use glam::Vec3;

/// What a model's crowd is, fixed for the model: how it moves, how big one
/// member is, where the ground is and how many clips it has.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CrowdSpec {
    pub motion: Motion,
    /// Bounding-box diagonal over every frame.
    pub model_size: f32,
    pub ground_y: f32,
    pub clip_count: u32,
}

impl CrowdSpec {
    /// Radius of the field (track, flock or herd) for `count` instances,
    /// so that density stays about the same as the count changes.
    pub fn field_radius(&self, count: u32) -> f32 {
        let size = self.model_size.max(1e-3);
        let area_each = size * size * 1.1;
        let area = count.max(1) as f32 * area_each;
        let r = match self.motion {
            // The track is the ring between 0.62 R and R.
            Motion::Track => (area / (std::f32::consts::PI * (1.0 - 0.62 * 0.62))).sqrt(),
            Motion::Flock => (area * 3.0 / std::f32::consts::PI).sqrt(),
            Motion::Stand => (area / std::f32::consts::PI).sqrt(),
        };
        r.max(size * 4.0)
    }

    /// A box around the whole crowd, for framing.
    pub fn bounds(&self, count: u32) -> crate::Aabb {
        let r = self.field_radius(count) + self.model_size;
        let top = match self.motion {
            Motion::Flock => self.model_size * 14.0,
            _ => self.model_size * 0.8,
        };
        crate::Aabb {
            min: Vec3::new(-r, self.ground_y, -r),
            max: Vec3::new(r, self.ground_y + top, r),
        }
    }
}
