//! A herd that moves as a group: a gait schedule shared by the herd, a
//! wandering path, and a formation, all pure functions of the seed and time.
//!
//! Nothing here runs per instance on the CPU in the VAT path: each frame the
//! CPU writes one small [`HerdTable`] (the herd's gait per schedule segment
//! and the distance travelled at each segment's start), and the GPU derives
//! every horse's gait, crossfade weight, distance and place from it
//! (`shaders/herd.wgsl`, which mirrors [`Herd::instance`]).
//!
//! How it holds together:
//! - The herd's gait changes every `segment` seconds (walk, gallop or idle,
//!   drawn from the gait mix). Speed ramps linearly over the crossfade, so
//!   the distance travelled is a closed-form integral.
//! - A horse `y` ahead of the herd's centre sees the herd's schedule shifted
//!   by `-y / lag_speed` seconds: a gait change sweeps back through the herd.
//!   Because the distance travelled never decreases and horses further back
//!   see it later, the gap between a horse and the one behind it in its lane
//!   never falls below their spacing in the formation.
//! - Each horse sits at `distance + y` along the path and `x` across it; its
//!   heading is the path's tangent, so its turn rate is bounded by the path's
//!   curvature.

mod band;
mod formation;
mod path;

pub use band::{BAND_MAX, band_lanes, band_slots, band_step};
pub use formation::{FORMATION_ASPECT, FORMATION_JITTER, formation_extent, formation_slot};
pub use path::{HerdPath, PATH_SAMPLES};

use crate::crowd::rng::splitmix64;
use glam::{Vec2, Vec3};

/// Entries (16 bytes each) of [`Herd::gpu_data`]: the path samples, then
/// the band slots two to an entry.
pub const GPU_DATA_ENTRIES: usize = PATH_SAMPLES + BAND_MAX as usize / 2;

/// Segments the herd gallops for after setting off (the opening view).
pub const OPENING_GALLOP: i64 = 2;

/// Entries of the per-frame schedule table.
pub const TABLE_SEGMENTS: usize = 16;

/// The three gaits, in table order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gait {
    Walk = 0,
    Gallop = 1,
    Idle = 2,
}

impl Gait {
    pub const ALL: [Gait; 3] = [Gait::Walk, Gait::Gallop, Gait::Idle];

    fn from_index(i: u32) -> Self {
        Self::ALL[(i as usize).min(2)]
    }
}

/// What a herd needs to know about its model and how it should behave.
#[derive(Clone, Debug, PartialEq)]
pub struct HerdParams {
    pub seed: u64,
    /// Clip index of each gait (walk, gallop, idle).
    pub clips: [u32; 3],
    /// Ground speed of each gait, model units per second (idle is 0).
    pub speeds: [f32; 3],
    /// Relative weight of each gait in the schedule.
    pub mix: [f32; 3],
    /// Seconds between the herd's gait changes.
    pub segment: f32,
    /// Crossfade seconds (pose and speed).
    pub fade: f32,
    /// Distance between neighbours along the path in a large herd's
    /// spiral, model units (across it they may be 1/2.5 of it apart).
    pub spacing: f32,
    /// The model's box across and along its heading (the x and z extents
    /// of its baked frames of the herd's clips, model units): how close a
    /// small herd's band runs.
    pub footprint: Vec2,
    /// How fast a gait change sweeps back through the herd, model units/s.
    pub lag_speed: f32,
}

/// Per-frame table the GPU reads (and [`Herd::instance`] uses): segment
/// `first + j` has gait `gaits[j]` and starts at herd distance
/// `laps × path_length + starts[j]`. Times and distances on the GPU are
/// relative to the table (`time` is the frame's herd time less the start of
/// segment `first`), so they stay small numbers at any uptime; the CPU
/// keeps the absolute ones in f64. Mirrors `HerdTable` in shaders/herd.wgsl
/// (tests/gpu_layout.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct HerdTable {
    pub gaits: [[u32; 4]; TABLE_SEGMENTS / 4],
    pub starts: [[f32; 4]; TABLE_SEGMENTS / 4],
    pub first: i32,
    pub segment: f32,
    pub fade: f32,
    pub lag_speed: f32,
    /// Ground speed per gait (walk, gallop, idle) and the largest lag.
    pub speeds: [f32; 4],
    /// Clip per gait.
    pub clips: [u32; 3],
    /// How many horses run as a band (their slots follow the path samples
    /// in [`Herd::gpu_data`]); 0 when the herd runs in the spiral.
    pub band: u32,
    pub path_length: f32,
    pub spacing: f32,
    /// This frame's herd time, seconds after the start of segment `first`.
    pub time: f32,
    /// Whole laps of the path before the distances of `starts`.
    pub laps: u32,
    /// The previous frame's herd time, counted as `time` is (the velocity
    /// target's previous pose; equal to `time` after a time jump).
    pub previous_time: f32,
    pub _pad: [u32; 3],
}
const _: () = assert!(std::mem::size_of::<HerdTable>() == 208);

impl HerdTable {
    pub fn gait(&self, j: usize) -> u32 {
        self.gaits[j / 4][j % 4]
    }
    pub fn start(&self, j: usize) -> f32 {
        self.starts[j / 4][j % 4]
    }

    /// Herd time at which segment `first` starts (table times count from it).
    pub fn origin(&self) -> f64 {
        self.first as f64 * self.segment as f64
    }

    /// Herd time `t` as the table counts it (what the GPU gets).
    pub fn local_time(&self, t: f64) -> f32 {
        (t - self.origin()) as f32
    }

    /// The distance the table's relative distances count from.
    pub fn base_distance(&self) -> f64 {
        self.laps as f64 * self.path_length as f64
    }
}

/// One horse at one instant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HorseState {
    /// Ground position (x, z) and heading (unit x, z).
    pub position: Vec2,
    pub forward: Vec2,
    /// Current and previous gait's clips, and the current one's weight
    /// (1 = fully the current clip).
    pub clip: u32,
    pub previous: u32,
    pub weight: f32,
    /// Distance this horse has travelled along the path (f64: after days it
    /// is far beyond f32's whole numbers).
    pub distance: f64,
}

/// The herd: its parameters, path, and the cached distance at every
/// schedule segment so far.
#[derive(Clone, Debug)]
pub struct Herd {
    pub params: HerdParams,
    pub path: HerdPath,
    /// The slots of a small herd's band ([`band_slots`]; empty for the
    /// spiral).
    pub band: Vec<Vec2>,
    /// `checkpoints[i]` = herd distance at the start of segment
    /// `i × CHECKPOINT_SEGMENTS`, in f64 (summed over days of segments, f32
    /// would lose whole units). One entry per ~7 hours of herd time, so a
    /// herd that runs for a month keeps about a hundred.
    checkpoints: Vec<f64>,
    /// The last segment whose start was asked for, and its distance: the
    /// table asks for consecutive segments, so most steps start here.
    cursor: (i64, f64),
}

/// Segments between two stored start distances.
const CHECKPOINT_SEGMENTS: i64 = 4096;

impl Herd {
    /// A herd of `count` for the path sized to hold it.
    pub fn new(params: HerdParams, count: u32) -> Self {
        let path = HerdPath::for_herd(params.seed, params.spacing, count);
        Self {
            band: band_slots(count, params.footprint),
            params,
            path,
            checkpoints: vec![0.0],
            cursor: (0, 0.0),
        }
    }

    /// The herd's gait in segment `k`. The herd stands still before time 0
    /// and sets off at a gallop for two segments (when the mix has any).
    pub fn gait(&self, k: i64) -> Gait {
        if k < 0 {
            return Gait::Idle;
        }
        if k < OPENING_GALLOP && self.params.mix[Gait::Gallop as usize] > 0.0 {
            return Gait::Gallop;
        }
        let total: f32 = self.params.mix.iter().map(|w| w.max(0.0)).sum();
        if total <= 0.0 {
            return Gait::Walk;
        }
        let h = splitmix64(self.params.seed ^ splitmix64(k as u64));
        let mut pick = (h >> 40) as f32 / (1u64 << 24) as f32 * total;
        for g in Gait::ALL {
            let w = self.params.mix[g as usize].max(0.0);
            if pick < w {
                return g;
            }
            pick -= w;
        }
        Gait::Idle
    }

    fn speed(&self, g: Gait) -> f32 {
        self.params.speeds[g as usize]
    }

    /// Distance covered from the start of segment `k` after `s` seconds.
    fn within(&self, k: i64, s: f32) -> f32 {
        let (v0, v1) = (self.speed(self.gait(k - 1)), self.speed(self.gait(k)));
        let f = self.params.fade.max(1e-4);
        let r = s.clamp(0.0, f);
        v0 * r + (v1 - v0) * r * r / (2.0 * f) + v1 * (s - f).max(0.0)
    }

    /// Herd distance at the start of segment `k` (0 for k ≤ 0): the sum of
    /// every earlier segment's distance, added in order from segment 0
    /// (resumed from the cursor or the nearest checkpoint, which hold the
    /// same partial sums).
    pub fn start_distance(&mut self, k: i64) -> f64 {
        if k <= 0 {
            return 0.0;
        }
        let seg = self.params.segment;
        let (mut j, mut d) = self.cursor;
        if k < j {
            let i = ((k / CHECKPOINT_SEGMENTS) as usize).min(self.checkpoints.len() - 1);
            (j, d) = (i as i64 * CHECKPOINT_SEGMENTS, self.checkpoints[i]);
        }
        let last_checkpoint = (self.checkpoints.len() as i64 - 1) * CHECKPOINT_SEGMENTS;
        if j < last_checkpoint && k >= last_checkpoint {
            (j, d) = (
                last_checkpoint,
                self.checkpoints[self.checkpoints.len() - 1],
            );
        }
        while j < k {
            d += self.within(j, seg) as f64;
            j += 1;
            if j % CHECKPOINT_SEGMENTS == 0
                && j / CHECKPOINT_SEGMENTS == self.checkpoints.len() as i64
            {
                self.checkpoints.push(d);
            }
        }
        self.cursor = (k, d);
        d
    }

    /// Where horse `index` runs relative to the herd's centre (x across, y
    /// along): its band slot, or its place in the spiral. The CPU twin of
    /// `herd_slot` in shaders/herd.wgsl.
    pub fn slot(&self, index: u32) -> Vec2 {
        self.band
            .get(index as usize)
            .copied()
            .unwrap_or_else(|| formation_slot(index, self.params.spacing))
    }

    /// The box (min, max) around the slots of its first `count` horses
    /// (x across, y along). Exact up to 1,024 horses, where a band's rows,
    /// the spiral's first turns and the jitter matter; beyond, the spiral's
    /// [`formation_extent`] either side of the centre.
    pub fn slot_box(&self, count: u32) -> (Vec2, Vec2) {
        if count > 1024 {
            let e = formation_extent(count, self.params.spacing);
            return (-e, e);
        }
        (0..count.max(1)).map(|i| self.slot(i)).fold(
            (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)),
            |(lo, hi), p| (lo.min(p), hi.max(p)),
        )
    }

    /// What the GPU keeps of the herd between rebuilds (`herd_static` in
    /// shaders/herd.wgsl): the [`PATH_SAMPLES`] path samples, then room for
    /// [`BAND_MAX`] band slots, two to an entry (x, y, x, y).
    pub fn gpu_data(&self) -> Vec<[f32; 4]> {
        let mut data = self.path.samples.clone();
        data.extend((0..GPU_DATA_ENTRIES - PATH_SAMPLES).map(|k| {
            let slot = |i: usize| self.band.get(i).copied().unwrap_or(Vec2::ZERO);
            let (a, b) = (slot(2 * k), slot(2 * k + 1));
            [a.x, a.y, b.x, b.y]
        }));
        data
    }

    /// The largest lag any horse has (ahead or behind), in seconds.
    pub fn max_lag(&self) -> f32 {
        (TABLE_SEGMENTS as f32 / 2.0 - 2.0) * self.params.segment
    }

    /// The table for herd time `t`: the segments every horse's shifted time
    /// can fall in, with times and distances relative to the table.
    pub fn table(&mut self, t: f64) -> HerdTable {
        let seg = self.params.segment;
        let first = ((t - self.max_lag() as f64) / seg as f64).floor() as i64 - 1;
        let first = first.clamp(i32::MIN as i64, i32::MAX as i64 - TABLE_SEGMENTS as i64);
        let length = self.path.length as f64;
        let laps = (self.start_distance(first) / length).floor().max(0.0) as u32;
        let mut table = HerdTable {
            gaits: [[0; 4]; TABLE_SEGMENTS / 4],
            starts: [[0.0; 4]; TABLE_SEGMENTS / 4],
            first: first as i32,
            segment: seg,
            fade: self.params.fade,
            lag_speed: self.params.lag_speed,
            speeds: [
                self.params.speeds[0],
                self.params.speeds[1],
                self.params.speeds[2],
                self.max_lag(),
            ],
            clips: self.params.clips,
            band: self.band.len() as u32,
            path_length: self.path.length,
            spacing: self.params.spacing,
            time: 0.0,
            laps,
            previous_time: 0.0,
            _pad: [0; 3],
        };
        table.time = table.local_time(t);
        table.previous_time = table.time;
        let base = table.base_distance();
        for j in 0..TABLE_SEGMENTS {
            let k = first + j as i64;
            table.gaits[j / 4][j % 4] = self.gait(k) as u32;
            table.starts[j / 4][j % 4] = (self.start_distance(k) - base) as f32;
        }
        table
    }

    /// Where the herd's centre (the slot at the origin, lag 0) is at time
    /// `t`, and its heading: what the camera aims at.
    pub fn centre(&mut self, t: f64) -> (Vec2, Vec2) {
        let table = self.table(t);
        let (distance, ..) = Self::schedule(&table, table.time);
        self.path.at(distance, 0.0)
    }

    /// Distance (relative to the table's laps), gaits (previous, current)
    /// and weight at shifted time `tau` (relative to the table).
    fn schedule(table: &HerdTable, tau: f32) -> (f32, u32, u32, f32) {
        let k = (tau / table.segment).floor();
        let j = ((k as i64).clamp(1, TABLE_SEGMENTS as i64 - 1)) as usize;
        let local = tau - k * table.segment;
        let (g0, g1) = (table.gait(j - 1), table.gait(j));
        let (v0, v1) = (
            table.speeds[Gait::from_index(g0) as usize],
            table.speeds[Gait::from_index(g1) as usize],
        );
        let f = table.fade.max(1e-4);
        let r = local.clamp(0.0, f);
        let distance =
            table.start(j) + v0 * r + (v1 - v0) * r * r / (2.0 * f) + v1 * (local - f).max(0.0);
        (distance, g0, g1, (local / f).clamp(0.0, 1.0))
    }

    /// Horse `index` at herd time `t`, from this frame's `table` (made for
    /// a time within a few seconds of `t`).
    pub fn instance(&self, table: &HerdTable, index: u32, t: f64) -> HorseState {
        self.instance_local(table, index, table.local_time(t))
    }

    /// Horse `index` at time `t` relative to the table (the frame's is
    /// `table.time`). This is the CPU twin of `herd_state` in
    /// shaders/herd.wgsl.
    pub fn instance_local(&self, table: &HerdTable, index: u32, t: f32) -> HorseState {
        let slot = self.slot(index);
        let lag = (-slot.y / table.lag_speed.max(1e-6)).clamp(-table.speeds[3], table.speeds[3]);
        let tau = t - lag;
        let (distance, g0, g1, weight) = Self::schedule(table, tau);
        let (position, forward) = self.path.at(distance + slot.y, slot.x);
        HorseState {
            position,
            forward,
            clip: table.clips[Gait::from_index(g1) as usize],
            previous: table.clips[Gait::from_index(g0) as usize],
            weight,
            distance: table.base_distance() + distance as f64,
        }
    }
}

/// A 3D placement helper for callers that want world space.
pub fn ground_point(p: Vec2, y: f32) -> Vec3 {
    Vec3::new(p.x, y, p.y)
}

#[cfg(test)]
mod tests;
