//! The flock's GPU-visible structs, mirrored once.

use bytemuck::{Pod, Zeroable};

/// One bird's simulation state.
/// Mirrors `Boid` in shaders/boid.wgsl (tests/gpu_layout.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct Boid {
    pub pos: [f32; 3],
    /// The bird's own animation phase, 0..1.
    pub phase: f32,
    pub vel: [f32; 3],
    /// Smoothed vertical speed (positive = climbing).
    pub climb: f32,
    /// Smoothed weight of the flap clip (1 = flapping, 0 = gliding), with
    /// the crossfade time as its time constant.
    pub flap: f32,
    /// Smoothed roll into the turn, radians.
    pub bank: f32,
    pub _pad: [f32; 2],
}
const _: () = assert!(std::mem::size_of::<Boid>() == 48);

/// Simulation parameters for one step.
/// Mirrors `FlockUniform` in shaders/flock.wgsl (tests/gpu_layout.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct FlockUniform {
    pub bounds_min: [f32; 4],
    pub bounds_max: [f32; 4],
    /// xyz: grid origin, w: cell size.
    pub grid_origin: [f32; 4],
    /// xyz: cells per axis, w: total cells.
    pub grid_dims: [u32; 4],
    pub count: u32,
    pub dt: f32,
    pub separation_radius: f32,
    pub neighbor_radius: f32,
    pub w_separation: f32,
    pub w_alignment: f32,
    pub w_cohesion: f32,
    pub max_speed: f32,
    pub min_speed: f32,
    pub margin: f32,
    pub w_bounds: f32,
    pub max_accel: f32,
    /// Time constant of the flap weight (the crossfade time), seconds.
    pub fade: f32,
    /// Lateral acceleration that gives a 45° bank.
    pub bank_accel: f32,
    /// Pull towards the middle of the box, per unit of its half size.
    pub w_roost: f32,
    pub _pad: f32,
}
const _: () = assert!(std::mem::size_of::<FlockUniform>() == 128);
