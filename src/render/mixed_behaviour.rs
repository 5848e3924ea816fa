//! A scene's living crowd. Its ground models run as **one mixed herd**:
//! one path and one gait schedule (one 192-byte table a frame whatever the
//! models), spaced for the widest of them, the herd's speeds those of the
//! first ground model with gait clips (the lead). The herd's formation
//! slots count the models' instances in the scene's order, so each model
//! keeps together in its own band of the formation, as the species of a
//! mixed herd on the move do; each plays its own walk, gallop and idle
//! clips, at the herd's pace (its clip time runs at the herd's ground
//! speed ÷ its own, so its feet stay planted). Its flyers join **one
//! flock**, each with its own flap and glide. A model without gait clips
//! (no walk or gallop with a ground speed) or without a flap clip keeps
//! its loops.
//!
//! One herd rather than one per model: per-model herds would need a table,
//! a path and a schedule each, and a layout of paths that never cross;
//! one herd keeps the frame's behaviour cost at one model's.

use super::Behaviour;
use super::models::CrowdModel;
use crate::crowd::Motion;
use crate::crowd::anim::{BehaviourSettings, HerdClips, bird_clips};
use crate::crowd::scene::{CrowdModelGpu, JOINS_FLOCK, JOINS_HERD, JOINS_NOTHING};
use glam::Vec2;

/// What one model of a scene does with behaviour on: the fields of its
/// [`CrowdModelGpu`] entry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Joining {
    pub joins: u32,
    pub rank_base: u32,
    pub gait_clips: [u32; 4],
    pub gait_rates: [f32; 4],
}

impl Joining {
    const LOOPS: Self = Self {
        joins: JOINS_NOTHING,
        rank_base: 0,
        gait_clips: [0; 4],
        gait_rates: [1.0; 4],
    };

    /// Writes it into the model's table entry.
    pub fn apply(&self, entry: &mut CrowdModelGpu) {
        entry.joins = self.joins;
        entry.rank_base = self.rank_base;
        entry.gait_clips = self.gait_clips;
        entry.gait_rates = self.gait_rates;
    }
}

/// The herd's gaits of a ground model, if it has them.
fn gaits(m: &CrowdModel) -> Option<HerdClips> {
    (m.motion == Motion::Track)
        .then(|| HerdClips::find(&m.vat.clips, &m.ground_speeds))
        .flatten()
}

/// The flap and glide clips of a flyer, if it has them.
fn wings(m: &CrowdModel) -> Option<(u32, u32)> {
    (m.motion == Motion::Flock)
        .then(|| bird_clips(&m.vat.clips))
        .flatten()
}

/// Its box across and along its heading over the gait clips.
fn footprint(m: &CrowdModel, clips: &HerdClips) -> Vec2 {
    let vat = &m.vat;
    let b = vat.clips_bounds(&clips.clips).unwrap_or(vat.bounds);
    let e = b.max - b.min;
    Vec2::new(e.x, e.z)
}

/// What each model of `models` does, in order: the herd's lead's speeds
/// over its own per gait (1 where either is still), its ranks counted
/// from the models before it that join the same.
pub fn plan(models: &[CrowdModel]) -> Vec<Joining> {
    let lead = models.iter().find_map(gaits);
    let (mut herd_rank, mut flock_rank) = (0, 0);
    models
        .iter()
        .map(|m| {
            if let (Some(own), Some(lead)) = (gaits(m), lead) {
                let rate = |g: usize| {
                    let (a, b) = (lead.speeds[g], own.speeds[g]);
                    if a > 0.0 && b > 0.0 { a / b } else { 1.0 }
                };
                let j = Joining {
                    joins: JOINS_HERD,
                    rank_base: herd_rank,
                    gait_clips: [own.clips[0], own.clips[1], own.clips[2], 0],
                    gait_rates: [rate(0), rate(1), rate(2), 1.0],
                };
                herd_rank += m.count;
                return j;
            }
            if let Some((flap, glide)) = wings(m) {
                let j = Joining {
                    joins: JOINS_FLOCK,
                    rank_base: flock_rank,
                    gait_clips: [flap, glide, 0, 0],
                    ..Joining::LOOPS
                };
                flock_rank += m.count;
                return j;
            }
            Joining::LOOPS
        })
        .collect()
}

/// The behaviour of the crowd of `models` as [`plan`] lays it out: the
/// herd of every ground model with gaits (the lead's schedule and speeds,
/// the widest footprint), the flock of every flyer (the first's size).
pub fn behaviour(
    device: &wgpu::Device,
    models: &[CrowdModel],
    seed: u64,
    settings: BehaviourSettings,
) -> Behaviour {
    let joining = plan(models);
    let count = |joins: u32| -> u32 {
        models
            .iter()
            .zip(&joining)
            .filter(|(_, j)| j.joins == joins)
            .map(|(m, _)| m.count)
            .sum()
    };
    let herd_models: Vec<(&CrowdModel, HerdClips)> =
        models.iter().filter_map(|m| Some((m, gaits(m)?))).collect();
    let flyer = models.iter().find_map(|m| Some((m, wings(m)?)));
    let herd = herd_models.first().map(|&(_, lead)| {
        let widest = herd_models
            .iter()
            .map(|(m, clips)| footprint(m, clips))
            .fold(Vec2::ZERO, Vec2::max);
        (lead, widest, count(JOINS_HERD))
    });
    let flock = flyer.map(|(m, clips)| (clips, m.spec(), count(JOINS_FLOCK)));
    let lead = herd_models
        .first()
        .map(|(m, _)| *m)
        .or(flyer.map(|(m, _)| m))
        .unwrap_or(&models[0]);
    Behaviour::new(
        device,
        (&lead.vat, &lead.ground_speeds, lead.spec()),
        herd,
        flock,
        seed,
        settings,
    )
}
