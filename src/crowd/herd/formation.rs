//! Where each horse stands in the herd, relative to its centre: a sunflower
//! (Vogel) spiral, stretched along the direction of travel and jittered so
//! the spiral's arcs do not show. A horse's slot
//! depends only on its index, so growing the herd keeps everyone in place.

use crate::crowd::rng::pcg_hash;
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
    let h = pcg_hash(index);
    let jitter = Vec2::new((h & 0xffff) as f32, (h >> 16) as f32) / 65535.0 - 0.5;
    Vec2::new(a.cos(), a.sin()) * r * FORMATION_ASPECT + jitter * FORMATION_JITTER * spacing
}

/// Herds of up to this many run closer together than the spiral's scale
/// alone would put them (see [`formation_spacing`]).
pub const SMALL_HERD: u32 = 20;

/// How far the closest pair of a small herd stays outside the spacing rule
/// (along the path by a spacing, or across it by `spacing / 2.5`).
const SMALL_HERD_MARGIN: f32 = 1.1;

/// How far apart the slots of a herd of `count` are put: `spacing`, but for
/// a small herd closer, until its closest pair is just outside the spacing
/// rule. The spiral's first turns leave wide gaps (two or three horses
/// would otherwise run three spacings apart), so a band of a few horses
/// runs together the way a small herd does, and the opening view frames
/// it larger. Larger herds keep `spacing` (their slots never move when the
/// herd grows).
pub fn formation_spacing(spacing: f32, count: u32) -> f32 {
    if !(2..=SMALL_HERD).contains(&count) {
        return spacing;
    }
    let slots: Vec<Vec2> = (0..count).map(|i| formation_slot(i, 1.0)).collect();
    let mut closest = f32::MAX;
    for (i, a) in slots.iter().enumerate() {
        for b in &slots[i + 1..] {
            let d = *a - *b;
            // In units of the rule: 1 = just meets it.
            closest = closest.min(d.y.abs().max(d.x.abs() * 2.5));
        }
    }
    spacing * (SMALL_HERD_MARGIN / closest).min(1.0)
}

/// The herd's half extent (x across, y along) for `count` horses.
pub fn formation_extent(count: u32, spacing: f32) -> Vec2 {
    SCALE * spacing * (count.max(1) as f32).sqrt() * FORMATION_ASPECT
}

/// The box (min, max) around the first `count` slots, in formation
/// coordinates (`x` across, `y` along). Exact up to 1,024 horses, where the
/// jitter and the spiral's first turns matter; beyond, the
/// [`formation_extent`] either side of the centre.
pub fn formation_box(count: u32, spacing: f32) -> (Vec2, Vec2) {
    if count > 1024 {
        let e = formation_extent(count, spacing);
        return (-e, e);
    }
    (0..count.max(1)).map(|i| formation_slot(i, spacing)).fold(
        (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)),
        |(lo, hi), p| (lo.min(p), hi.max(p)),
    )
}
