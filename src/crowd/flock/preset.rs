//! Named flock tunings (murmuration, clumps) and the simulation parameters
//! they give for a crowd: the box the flock lives in and its radii, scaled
//! by the model's size.

use super::FlockParams;
use crate::Aabb;
use crate::crowd::spec::CrowdSpec;
use glam::Vec3;

/// The flock's tunables (the rest comes from the model's size).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlockTuning {
    pub w_separation: f32,
    pub w_alignment: f32,
    pub w_cohesion: f32,
    /// Top speed in model sizes per second.
    pub max_speed: f32,
    /// How far a bird sees its neighbours, in model sizes.
    pub neighbour_radius: f32,
    /// Pull towards the middle of the flock's box (0: none).
    pub roost: f32,
}

impl Default for FlockTuning {
    fn default() -> Self {
        FlockPreset::default().tuning()
    }
}

/// Named flock tunings (`--flock-preset`, the panel's flock settings).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum FlockPreset {
    /// One large body that flows and folds as it circles its roost: birds
    /// see further, align and gather more, and are drawn to the middle.
    #[default]
    Murmuration,
    /// Classic boids: short sight and strong separation, so the birds fly
    /// in separate clumps that wander the box.
    Clumps,
}

impl FlockPreset {
    pub const ALL: [FlockPreset; 2] = [FlockPreset::Murmuration, FlockPreset::Clumps];

    pub fn name(self) -> &'static str {
        match self {
            Self::Murmuration => "murmuration",
            Self::Clumps => "clumps",
        }
    }

    pub fn tuning(self) -> FlockTuning {
        match self {
            Self::Murmuration => FlockTuning {
                w_separation: 2.5,
                w_alignment: 2.0,
                w_cohesion: 1.0,
                max_speed: 8.0,
                neighbour_radius: 4.0,
                roost: 0.4,
            },
            Self::Clumps => FlockTuning {
                w_separation: 3.0,
                w_alignment: 1.0,
                w_cohesion: 0.6,
                max_speed: 8.0,
                neighbour_radius: 3.0,
                roost: 0.0,
            },
        }
    }
}

/// The flock's box for `count` birds: above the field, as wide as the
/// crowd's layout.
pub fn flock_box(spec: &CrowdSpec, count: u32) -> Aabb {
    let r = spec.field_radius(count);
    let size = spec.model_size;
    Aabb {
        min: Vec3::new(-r, spec.ground_y + size * 2.0, -r),
        max: Vec3::new(r, spec.ground_y + size * 16.0, r),
    }
}

impl FlockParams {
    /// The parameters `tuning` gives `count` birds of the crowd `spec`,
    /// with `fade` seconds as the flap weight's time constant.
    pub fn for_crowd(spec: &CrowdSpec, count: u32, tuning: &FlockTuning, fade: f32) -> Self {
        let size = spec.model_size;
        Self {
            w_separation: tuning.w_separation,
            w_alignment: tuning.w_alignment,
            w_cohesion: tuning.w_cohesion,
            max_speed: tuning.max_speed * size,
            neighbor_radius: tuning.neighbour_radius * size,
            w_roost: tuning.roost,
            fade: fade.max(1e-3),
            ..FlockParams::for_size(size, flock_box(spec, count))
        }
    }
}
