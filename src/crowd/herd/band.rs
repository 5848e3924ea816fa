//! A small herd's formation: a close band of staggered rows, as a herd
//! runs together, sized from the model's own footprint.
//!
//! The spiral of a large herd keeps its slots where they are as the herd
//! grows, and spaces them by a rule for any model (a spacing of 1.25 model
//! lengths along the path, or 1/2.5 of one across), which leaves a handful
//! of horses two or three body lengths apart with room for a horse between
//! any two. A band instead packs up to [`BAND_MAX`] horses as close as
//! the model's box allows: rows across the path, alternate rows shifted by
//! half a lane so that each horse runs beside the gap between two in the
//! row ahead. The CPU lays the slots out once per herd and uploads them
//! after the path samples (`Herd::gpu_data`), so the GPU reads them and has
//! no twin of this layout to keep in step.

use crate::crowd::rng::{centred_pair, pcg_hash};
use glam::Vec2;

/// Herds of 2 to this many run as a band; larger ones (and one horse) in
/// the spiral. Their slots take 8 bytes each of the herd's static GPU
/// buffer.
pub const BAND_MAX: u32 = 256;

/// The largest instance scale (`crowd::instance`: 0.88 to 1.12): two
/// horses' boxes are kept apart at this scale.
const MAX_SCALE: f32 = 1.12;

/// Room between two horses side by side (across) and nose to tail (along),
/// as a fraction of the box: a fifth of a body's width, a sixth of its
/// length.
const CLEARANCE: Vec2 = Vec2::new(1.2, 1.15);

/// Jitter of a slot across and along, as a fraction of the box: enough
/// that the rows do not look drilled; the lanes and rows make room for it.
const JITTER: Vec2 = Vec2::new(0.15, 0.08);

/// The lanes of a band of `count`: √(count / 2 + 1), rounded, so a band
/// is longer than wide like a herd (20 horses run in three lanes of seven
/// rows), and three or four run two abreast rather than in single file.
pub fn band_lanes(count: u32) -> u32 {
    ((count as f32 * 0.5 + 1.0).sqrt().round() as u32).clamp(1, count.max(1))
}

/// Centre-to-centre distance of a band's lanes (x, across) and rows (y,
/// along) for a model whose box is `footprint` (x across, y along, model
/// units). A horse of one row runs half a lane to the side of the horses
/// of the next, so half a lane must clear two widths' halves; a horse of
/// the same lane is two rows ahead, so two rows must clear a length. Both
/// with room to spare for the largest scale and the jitter either side.
pub fn band_step(footprint: Vec2) -> Vec2 {
    let size = footprint.max(Vec2::splat(1e-3));
    let clear = size * MAX_SCALE * CLEARANCE + size * JITTER;
    Vec2::new(2.0 * clear.x, 0.5 * clear.y)
}

/// The slots of a herd of `count` running as a band, relative to the
/// herd's centre (x across the path, right positive; y along it, ahead
/// positive), or none when the herd runs in the spiral (one horse, or more
/// than [`BAND_MAX`]). Front row first, each row centred on the path
/// (a short last row too, by whole lanes, so it stays half a lane off the
/// row ahead), every horse jittered a little.
pub fn band_slots(count: u32, footprint: Vec2) -> Vec<Vec2> {
    if !(2..=BAND_MAX).contains(&count) {
        return Vec::new();
    }
    let size = footprint.max(Vec2::splat(1e-3));
    let step = band_step(footprint);
    let lanes = band_lanes(count);
    let rows = count.div_ceil(lanes);
    (0..count)
        .map(|index| {
            let row = index / lanes;
            let in_row = if row + 1 == rows {
                count - row * lanes
            } else {
                lanes
            };
            let lane = (index % lanes + (lanes - in_row) / 2) as f32 - (lanes - 1) as f32 * 0.5;
            let shift = if row % 2 == 1 { 0.25 } else { -0.25 };
            let along = (rows - 1) as f32 * 0.5 - row as f32;
            let jitter = centred_pair(pcg_hash(index ^ 0x9e37_79b9));
            Vec2::new(lane + shift, along) * step + jitter * JITTER * size
        })
        .collect()
}
