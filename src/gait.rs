//! How fast a clip travels: the ground speed at which its planted feet stay
//! planted, measured from the animation itself.
//!
//! A locomotion clip animated in place moves each planted foot backwards at
//! exactly the speed the body should travel forwards. So: skin the clip over
//! one cycle, take the vertices touching the ground in two neighbouring
//! samples, and read their speed along the body's long axis. The median over
//! every contact is robust to feet landing and lifting.

use crate::Aabb;
use crate::anim::Pose;
use crate::model::Model;
use crate::skin;
use glam::Vec3;

/// Samples over one cycle.
const SAMPLES: usize = 72;
/// A vertex is on the ground within this fraction of the model's height.
const CONTACT_HEIGHT: f32 = 0.015;
/// At least this fraction of contacts must move the same way to call it a gait.
const AGREEMENT: f32 = 0.7;

/// What [`measure`] found for one clip.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroundSpeed {
    /// Model units per second of clip time, along `forward`; 0 when the clip
    /// does not travel (idle, grazing, flying, or no ground contact).
    pub speed: f32,
    /// The body's long horizontal axis with its facing sign (the direction
    /// opposite to the planted feet's motion), or +Z when unknown.
    pub forward: Vec3,
    /// Ground-contact samples the measurement used.
    pub contacts: usize,
}

/// Measures the ground speed of clip `clip` of `model`.
pub fn measure(model: &Model, clip: usize) -> GroundSpeed {
    let none = GroundSpeed {
        speed: 0.0,
        forward: Vec3::Z,
        contacts: 0,
    };
    let Some(c) = model.clips.get(clip) else {
        return none;
    };
    let duration = c.duration();
    if duration <= 0.0 || model.vertex_count() == 0 {
        return none;
    }
    let dt = duration / SAMPLES as f32;
    let mut pose = Pose::rest(model);
    let mut frames = Vec::with_capacity(SAMPLES + 1);
    let mut bounds = Aabb::EMPTY;
    for k in 0..=SAMPLES {
        pose.sample(model, Some(clip), k as f32 * dt);
        let (p, _) = skin::skin(model, &pose);
        for q in &p {
            bounds.add(*q);
        }
        frames.push(p);
    }
    let size = bounds.size();
    // The long horizontal axis is the body's.
    let axis = if size.z >= size.x { Vec3::Z } else { Vec3::X };
    let ground = bounds.min.y + CONTACT_HEIGHT * size.y.max(1e-6);
    let mut velocities = Vec::new();
    for pair in frames.windows(2) {
        for (a, b) in pair[0].iter().zip(&pair[1]) {
            if a.y <= ground && b.y <= ground {
                velocities.push((*b - *a).dot(axis) / dt);
            }
        }
    }
    if velocities.len() < SAMPLES {
        return GroundSpeed {
            contacts: velocities.len(),
            ..none
        };
    }
    velocities.sort_by(f32::total_cmp);
    let median = velocities[velocities.len() / 2];
    let same_way = velocities
        .iter()
        .filter(|v| v.signum() == median.signum())
        .count();
    let agreement = same_way as f32 / velocities.len() as f32;
    // Feet slipping by less than 2% of the body length per second is standing.
    let still = median.abs() < 0.02 * size.dot(axis).abs().max(1e-6);
    if still || agreement < AGREEMENT {
        return GroundSpeed {
            contacts: velocities.len(),
            forward: axis,
            ..none
        };
    }
    GroundSpeed {
        speed: median.abs(),
        forward: -axis * median.signum(),
        contacts: velocities.len(),
    }
}
