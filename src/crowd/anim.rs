//! The living crowd's settings and the CPU mirror of `anim_state` in
//! shaders/behaviour.wgsl: which two clips an instance blends, at which clip
//! times, with which weight. Plain data, no GPU code: the CPU techniques (live
//! skinning's two palettes, CPU skinning's blend) and the tests use it.

use super::clip_time::{clip_time, instance_pose, pose_time};
use super::flock::FlockTuning;
use super::frame::FrameUniform;
use super::herd::{Herd, HerdParams, HerdTable};
use super::instance::Instance;
use crate::pose_batch::ClipTime;
use crate::vat::VatClip;
use glam::Vec2;

/// What the panel and the command line set for the living crowd.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BehaviourSettings {
    /// Off = the synchronized loops (one clip, ring track or circles).
    pub enabled: bool,
    /// Crossfade seconds (pose, herd speed, and the flap weight's lag).
    pub fade: f32,
    /// Relative weights of walk, gallop and idle in the herd's schedule.
    pub mix: [f32; 3],
    pub flock: FlockTuning,
    /// The most flock steps (1/60 s) a frame may run to catch up with the
    /// time; `None` runs them all, so a frame at time T is always the state
    /// after round(T × 60) steps from the seed (screenshots, tests, bench).
    pub max_catch_up: Option<u32>,
}

impl Default for BehaviourSettings {
    fn default() -> Self {
        Self {
            enabled: false,
            fade: 0.25,
            mix: [0.45, 0.35, 0.2],
            flock: FlockTuning::default(),
            max_catch_up: None,
        }
    }
}

impl BehaviourSettings {
    pub fn on() -> Self {
        Self {
            enabled: true,
            ..Self::default()
        }
    }
}

/// Seconds of a herd schedule segment (a gait's run).
pub const HERD_SEGMENT_S: f32 = 6.0;

/// Which clips a model's herd uses, found by name, with their speeds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HerdClips {
    /// Walk, gallop, idle.
    pub clips: [u32; 3],
    pub speeds: [f32; 3],
    /// False when the model has no idle clip (its weight is then 0).
    pub has_idle: bool,
}

fn find(clips: &[VatClip], words: &[&str]) -> Option<u32> {
    words.iter().find_map(|w| {
        clips
            .iter()
            .position(|c| c.name.to_lowercase().contains(w))
            .map(|i| i as u32)
    })
}

impl HerdClips {
    /// The walk, gallop and idle clips of a model (a run or trot stands in
    /// for the gallop, a survey or graze for the idle), or `None` when it has
    /// neither a walk nor a gallop that travels.
    pub fn find(clips: &[VatClip], ground_speeds: &[f32]) -> Option<Self> {
        let walk = find(clips, &["walk"]);
        let gallop = find(clips, &["gallop", "run", "trot"]);
        let (walk, gallop) = match (walk, gallop) {
            (Some(w), Some(g)) => (w, g),
            (Some(w), None) => (w, w),
            (None, Some(g)) => (g, g),
            (None, None) => return None,
        };
        let speed = |c: u32| ground_speeds.get(c as usize).copied().unwrap_or(0.0);
        if speed(walk) <= 0.0 && speed(gallop) <= 0.0 {
            return None;
        }
        let idle = find(clips, &["idle", "graze", "survey", "stand", "eat"]);
        Some(Self {
            clips: [walk, gallop, idle.unwrap_or(walk)],
            speeds: [speed(walk), speed(gallop), 0.0],
            has_idle: idle.is_some(),
        })
    }

    /// The herd's parameters for a model whose box is `footprint` (x
    /// across, y along its heading: the x and z extents of its baked frames
    /// of the herd's clips, `Vat::clips_bounds`).
    pub fn params(&self, seed: u64, settings: &BehaviourSettings, footprint: Vec2) -> HerdParams {
        let spacing = 1.25 * footprint.max_element().max(1e-3);
        let mut mix = settings.mix.map(|w| w.max(0.0));
        if !self.has_idle {
            mix[2] = 0.0;
        }
        HerdParams {
            seed,
            clips: self.clips,
            speeds: self.speeds,
            mix,
            segment: HERD_SEGMENT_S,
            fade: settings.fade.max(1e-3),
            spacing,
            footprint,
            // A gait change sweeps back through the herd at 10 spacings/s:
            // the herd reacts as a wave, yet mostly in one gait at a time.
            lag_speed: 10.0 * spacing,
        }
    }
}

/// The birds' flap and glide clips, by name (the flap stands in for a
/// missing glide).
pub fn bird_clips(clips: &[VatClip]) -> Option<(u32, u32)> {
    let flap = find(clips, &["flap", "fly"])?;
    Some((flap, find(clips, &["glide", "soar"]).unwrap_or(flap)))
}

/// What the behaviour is this frame, for the CPU mirror.
#[derive(Clone, Copy)]
pub enum BehaviourView<'a> {
    /// Synchronized loops.
    Off,
    /// The herd, with this frame's table.
    Herd {
        herd: &'a Herd,
        table: &'a HerdTable,
    },
    /// The flock (the blend weight lives on the GPU).
    Flock { flap: u32, glide: u32 },
}

/// The two clips an instance blends this frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AnimClips {
    /// The clip fading out, and its clip time (exact, not lerped).
    pub previous: ClipTime,
    /// The clip fading in.
    pub current: ClipTime,
    /// Weight of `current`; for the flock the CPU does not know it (the
    /// GPU's smoothed flap weight) and says 1.
    pub weight: f32,
}

fn clip_pose(
    clips: &[VatClip],
    clip: u32,
    inst: &Instance,
    frame: &FrameUniform,
    (num, den): (f32, f32),
) -> ClipTime {
    let last = frame.clip_count.max(1) - 1;
    match clips.get(clip.min(last) as usize) {
        Some(c) => {
            let t = clip_time(inst, frame, c.duration, num, den);
            (c.source, pose_time(c, t))
        }
        None => (None, 0.0),
    }
}

/// Instance `index`'s clips this frame, computed as `anim_state` in
/// shaders/behaviour.wgsl does (keep in sync).
pub fn instance_anim(
    inst: &Instance,
    index: u32,
    frame: &FrameUniform,
    clips: &[VatClip],
    view: BehaviourView<'_>,
) -> AnimClips {
    match view {
        BehaviourView::Herd { herd, table } if frame.behaviour != 0 => {
            let h = herd.instance_local(table, index, table.time);
            let rate = (frame.playback, inst.scale.max(1e-3));
            AnimClips {
                previous: clip_pose(clips, h.previous, inst, frame, rate),
                current: clip_pose(clips, h.clip, inst, frame, rate),
                weight: h.weight,
            }
        }
        BehaviourView::Flock { flap, glide } if frame.behaviour != 0 => AnimClips {
            previous: clip_pose(clips, glide, inst, frame, (frame.playback, 1.0)),
            current: clip_pose(clips, flap, inst, frame, (frame.playback, 1.0)),
            weight: 1.0,
        },
        _ => {
            let pose = instance_pose(inst, frame, clips);
            AnimClips {
                previous: pose,
                current: pose,
                weight: 1.0,
            }
        }
    }
}
