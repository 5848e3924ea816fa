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

use crate::crowd::anim::{BehaviourSettings, HerdClips};
use crate::crowd::scene::{JOINS_FLOCK, JOINS_HERD};
use crate::render::data::behaviour::Behaviour;
use crate::render::data::models::{CrowdModel, footprint, gaits, plan, wings};
use glam::Vec2;

/// The behaviour of the crowd of `models` as `models::plan` lays it out: the
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
