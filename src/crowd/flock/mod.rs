//! The bird flock as plain data: its parameters, the grid it is simulated
//! over and each bird's seeded starting state. The simulation itself
//! (boids over a uniform grid on the GPU) is `render::flock_sim`.

mod data;
mod preset;

pub use data::{Boid, FlockUniform};
pub use preset::{FlockPreset, FlockTuning, flock_box};

use crate::Aabb;
use crate::crowd::rng::SplitMix64;
use glam::Vec3;

/// Cells per axis at most: keeps the grid (and the one-workgroup scan) small.
pub const MAX_GRID_AXIS: u32 = 48;

/// What the panel and the command line set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlockParams {
    pub w_separation: f32,
    pub w_alignment: f32,
    pub w_cohesion: f32,
    /// Model units per second.
    pub max_speed: f32,
    /// Birds closer than this push apart.
    pub separation_radius: f32,
    /// Birds closer than this align and gather.
    pub neighbor_radius: f32,
    /// Pull towards the middle of the box, per unit of its half size
    /// (0: none, the flock breaks into clumps that wander the box).
    pub w_roost: f32,
    /// The box the flock lives in; birds start turning `margin` before a wall.
    pub bounds: Aabb,
    /// Time constant of the flap/glide weight (the crossfade time), seconds.
    pub fade: f32,
}

impl FlockParams {
    /// Sensible parameters for birds of size `size` (the bounding-box
    /// diagonal) in a box `bounds`.
    pub fn for_size(size: f32, bounds: Aabb) -> Self {
        Self {
            w_separation: 3.0,
            w_alignment: 1.0,
            w_cohesion: 0.6,
            max_speed: size * 8.0,
            separation_radius: size * 1.2,
            neighbor_radius: size * 3.0,
            w_roost: 0.0,
            bounds,
            fade: 0.25,
        }
    }

    /// The uniform for one step of `dt` seconds with `count` birds.
    pub fn uniform(&self, count: u32, dt: f32) -> FlockUniform {
        let (origin, cell, dims) = grid(&self.bounds, self.neighbor_radius);
        let size = self.bounds.size();
        FlockUniform {
            bounds_min: self.bounds.min.extend(0.0).to_array(),
            bounds_max: self.bounds.max.extend(0.0).to_array(),
            grid_origin: origin.extend(cell).to_array(),
            grid_dims: [dims[0], dims[1], dims[2], dims[0] * dims[1] * dims[2]],
            count,
            dt,
            separation_radius: self.separation_radius,
            neighbor_radius: self.neighbor_radius,
            w_separation: self.w_separation,
            w_alignment: self.w_alignment,
            w_cohesion: self.w_cohesion,
            max_speed: self.max_speed,
            min_speed: self.max_speed * 0.35,
            margin: (size.min_element() * 0.15).max(self.neighbor_radius),
            w_bounds: 2.0,
            max_accel: self.max_speed * 3.0,
            fade: self.fade,
            bank_accel: self.max_speed * 1.5,
            w_roost: self.w_roost,
            _pad: 0.0,
        }
    }
}

/// Grid origin, cell size and cells per axis covering `bounds`. Cells are at
/// least `radius` wide (so neighbours are within the 27 cells around a
/// bird) and at most [`MAX_GRID_AXIS`] per axis.
pub fn grid(bounds: &Aabb, radius: f32) -> (Vec3, f32, [u32; 3]) {
    let size = bounds.size().max(Vec3::splat(1e-3));
    let cell = radius
        .max(size.max_element() / MAX_GRID_AXIS as f32)
        .max(1e-4);
    let dims = (size / cell)
        .ceil()
        .max(Vec3::ONE)
        .to_array()
        .map(|d| (d as u32).min(MAX_GRID_AXIS));
    (bounds.min, cell, dims)
}

/// Bird `index` of the flock grown from `seed`: a random position in the
/// middle half of the box and a random heading. Depends on nothing else, so
/// growing the flock keeps the birds already there.
pub fn initial_boid(seed: u64, index: u32, params: &FlockParams) -> Boid {
    let mut rng = SplitMix64::new(seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut next = || rng.next_f32();
    let b = &params.bounds;
    let pos = b.center() + (Vec3::new(next(), next(), next()) - 0.5) * b.size() * 0.5;
    let heading = Vec3::new(next() - 0.5, (next() - 0.5) * 0.3, next() - 0.5).normalize_or(Vec3::X);
    let vel = heading * params.max_speed * 0.7;
    let phase = next();
    Boid {
        pos: pos.to_array(),
        phase,
        vel: vel.to_array(),
        climb: 0.0,
        flap: if phase < 0.5 { 1.0 } else { 0.0 },
        bank: 0.0,
        _pad: [0.0; 2],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_covers_the_bounds_with_cells_at_least_the_radius() {
        let b = Aabb {
            min: Vec3::new(-10.0, 0.0, -10.0),
            max: Vec3::new(10.0, 5.0, 10.0),
        };
        let (origin, cell, dims) = grid(&b, 1.5);
        assert_eq!(origin, b.min);
        assert!(cell >= 1.5);
        for (axis, &d) in dims.iter().enumerate() {
            assert!(d as f32 * cell >= b.size()[axis] - 1e-4);
        }
        // A tiny radius in a huge box is capped.
        let (_, cell, dims) = grid(&b, 0.001);
        assert!(dims.iter().all(|&d| d <= MAX_GRID_AXIS));
        assert!(cell >= 20.0 / MAX_GRID_AXIS as f32);
    }

    #[test]
    fn initial_birds_are_deterministic_and_inside() {
        let b = Aabb {
            min: Vec3::splat(-5.0),
            max: Vec3::splat(5.0),
        };
        let p = FlockParams::for_size(1.0, b);
        assert_eq!(initial_boid(3, 17, &p), initial_boid(3, 17, &p));
        assert_ne!(initial_boid(3, 17, &p), initial_boid(3, 18, &p));
        for i in 0..100 {
            let boid = initial_boid(9, i, &p);
            let pos = Vec3::from(boid.pos);
            assert!(pos.cmpge(b.min).all() && pos.cmple(b.max).all());
        }
    }
}
