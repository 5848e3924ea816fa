//! Where each horse stands in the herd, relative to its centre: a sunflower
//! (Vogel) spiral, stretched along the direction of travel and jittered so
//! the spiral's arcs do not show, where a horse's slot depends only on its
//! index, so growing the herd keeps everyone in place. A small herd runs as
//! a close band instead (`super::band`).

use crate::crowd::rng::{centred_pair, pcg_hash};
use glam::Vec2;
use std::f32::consts::TAU;

/// Lateral (x) and along-path (y) stretch of the spiral: herds are longer
/// than they are wide.
pub const FORMATION_ASPECT: Vec2 = Vec2::new(0.75, 1.7);

/// Spiral scale relative to the spacing, chosen so that neighbours are at
/// least `spacing` apart along the path or `spacing / 2.5` across it (a
/// horse is about 2.5 times longer than wide); the herd tests check it.
const SCALE: f32 = 0.75;

const GOLDEN_ANGLE: f32 = 2.399_963_3;

/// Jitter of a slot across and along the path, as a fraction of the spacing:
/// enough to hide the spiral's arcs, small enough to keep the spacing rule.
pub const FORMATION_JITTER: Vec2 = Vec2::new(0.4, 0.5);

/// Slot of horse `index`: `x` across the path (right positive), `y` along it
/// (ahead positive), in model units.
pub fn formation_slot(index: u32, spacing: f32) -> Vec2 {
    let r = SCALE * spacing * (index as f32 + 0.5).sqrt();
    // The angle is reduced to [-π, π) in turns before the cosine, so that
    // the GPU's cos (only accurate on a small range) agrees with the CPU's.
    // Keep in sync with `formation_slot` in shaders/herd.wgsl.
    let turns = index as f32 * (GOLDEN_ANGLE / TAU);
    let a = (turns - turns.floor() - 0.5) * TAU;
    let jitter = centred_pair(pcg_hash(index));
    Vec2::new(a.cos(), a.sin()) * r * FORMATION_ASPECT + jitter * FORMATION_JITTER * spacing
}

/// The herd's half extent (x across, y along) for `count` horses.
pub fn formation_extent(count: u32, spacing: f32) -> Vec2 {
    SCALE * spacing * (count.max(1) as f32).sqrt() * FORMATION_ASPECT
}
