//! The herd's route: a closed, gently wandering loop, stored as points at
//! equal arc length so that distance along it is distance on the ground
//! (and feet stay planted whatever the curvature).

use super::formation::formation_extent;
use crate::crowd::rng::{splitmix64, unit_f32};
use glam::Vec2;
use std::f32::consts::TAU;

/// Points stored along the path (the GPU interpolates between them).
pub const PATH_SAMPLES: usize = 512;
/// Fine samples used to measure arc length.
const FINE: usize = 8192;

#[derive(Clone, Debug, PartialEq)]
pub struct HerdPath {
    /// Radius of the base circle.
    pub radius: f32,
    /// Total length, model units.
    pub length: f32,
    /// `[x, z, tangent x, tangent z]` at equal arc lengths, from 0.
    pub samples: Vec<[f32; 4]>,
}

impl HerdPath {
    /// A loop sized so the herd of `count` fills at most a third of it and
    /// its widest lanes stay clear of the centre.
    pub fn for_herd(seed: u64, spacing: f32, count: u32) -> Self {
        let extent = formation_extent(count, spacing);
        let radius = (20.0 * spacing)
            .max(3.0 * 2.0 * extent.y / TAU)
            .max(2.5 * extent.x);
        Self::new(seed, radius)
    }

    pub fn new(seed: u64, radius: f32) -> Self {
        let phase = |k: u64| unit_f32(splitmix64(seed ^ k)) * TAU;
        let (p2, p3) = (phase(2), phase(3));
        let point = |theta: f32| {
            let r =
                radius * (1.0 + 0.2 * (2.0 * theta + p2).sin() + 0.08 * (3.0 * theta + p3).sin());
            Vec2::new(theta.cos(), theta.sin()) * r
        };
        let fine: Vec<Vec2> = (0..=FINE)
            .map(|i| point(i as f32 / FINE as f32 * TAU))
            .collect();
        let mut cumulative = Vec::with_capacity(fine.len());
        let mut total = 0.0f32;
        cumulative.push(0.0);
        for w in fine.windows(2) {
            total += w[0].distance(w[1]);
            cumulative.push(total);
        }
        let mut samples = Vec::with_capacity(PATH_SAMPLES);
        let mut j = 0;
        for i in 0..PATH_SAMPLES {
            let s = i as f32 / PATH_SAMPLES as f32 * total;
            while cumulative[j + 1] < s {
                j += 1;
            }
            let f = (s - cumulative[j]) / (cumulative[j + 1] - cumulative[j]).max(1e-9);
            let p = fine[j].lerp(fine[j + 1], f);
            let t = (fine[j + 1] - fine[j]).normalize_or(Vec2::X);
            samples.push([p.x, p.y, t.x, t.y]);
        }
        Self {
            radius,
            length: total,
            samples,
        }
    }

    /// Ground position and heading at distance `s` along the path, offset
    /// `lateral` to the side (+ is to the right of the heading). Mirrored by `herd_path_at` in shaders/herd.wgsl.
    pub fn at(&self, s: f32, lateral: f32) -> (Vec2, Vec2) {
        let n = self.samples.len();
        let u = (s / self.length).rem_euclid(1.0) * n as f32;
        let i0 = (u.floor() as usize).min(n - 1);
        let i1 = (i0 + 1) % n;
        let f = u - i0 as f32;
        let [x0, z0, tx0, tz0] = self.samples[i0];
        let [x1, z1, tx1, tz1] = self.samples[i1];
        let p = Vec2::new(x0, z0).lerp(Vec2::new(x1, z1), f);
        let t = Vec2::new(tx0, tz0)
            .lerp(Vec2::new(tx1, tz1), f)
            .normalize_or(Vec2::X);
        let right = Vec2::new(-t.y, t.x);
        (p + right * lateral, t)
    }
}
