//! The crowd's models: a renderer is built from a list of them (one model
//! is a list of one). Every model's vertices and indices are in shared
//! buffers (`lod::GeometrySet`), every VAT in one texture array
//! (`vat::VatSet`, the clip table carrying each clip's row layout and
//! vertex base), one instance buffer whose ranges belong to the models
//! (`crowd_models`), one cull pass over every instance with a region per
//! (model, level), and one multi-draw per pass.
//!
//! Every GPU technique draws every model (the bone-matrix ones over every
//! model's data in the shared stream's order: `techniques::members`); the
//! CPU technique draws one model. With behaviour off each ground model
//! runs round its own track, side by side, flyers circling over them; with
//! behaviour on the ground models are one mixed herd and the flyers one
//! flock over it (`mixed_behaviour`). The far field's impostors are every
//! model's atlas in one pair of textures (`impostor::scene_atlas`), drawn
//! by one draw over the models' impostor regions.

use crate::crowd::anim::{HerdClips, bird_clips};
use crate::crowd::scene::{CrowdModelGpu, JOINS_FLOCK, JOINS_HERD, JOINS_NOTHING};
use crate::crowd::{CLIP_MIXED, CrowdSpec, Motion};
use crate::impostor::AtlasLayout;
use crate::lod::LodChain;
use crate::render::config::RendererConfig;
use crate::render::passes::impostor::AtlasSource;
use crate::render::passes::techniques::members::Member;
use crate::vat::{Vat, VatSet};
use crate::{Aabb, Model};
use glam::Vec2;
use std::sync::Arc;

pub use crate::crowd::scene_spec::SceneModel;

/// One model of the crowd: every fact the renderer keeps per model.
#[derive(Clone, Debug)]
pub struct CrowdModel {
    pub name: String,
    pub model: Arc<Model>,
    /// Its own bake (the VAT array's textures and its impostor atlas are
    /// written from it; the renderer keeps no combined copy).
    pub vat: Arc<Vat>,
    pub count: u32,
    /// The clip its instances play with behaviour off (`None`: each its
    /// own).
    pub clip: Option<u32>,
    pub motion: Motion,
    /// Each clip's ground speed, model units per second of clip time.
    pub ground_speeds: Vec<f32>,
    /// Its mesh levels.
    pub lod: Arc<LodChain>,
    /// Its impostor atlas's layout (the atlas is drawn the first time a
    /// frame wants impostors).
    pub impostor: Arc<AtlasLayout>,
}

impl CrowdModel {
    /// A loaded model of a scene, with its count.
    pub fn of(m: &SceneModel<'_>) -> Self {
        Self {
            name: m.loaded.model.name(),
            model: Arc::new(m.loaded.model.clone()),
            vat: m.loaded.vat.clone(),
            count: m.count,
            clip: m.loaded.clip,
            motion: m.loaded.motion,
            ground_speeds: m.loaded.ground_speeds.clone(),
            lod: m.loaded.lod.clone(),
            impostor: m.loaded.impostor.clone(),
        }
    }

    /// `model` drawn from `vat` as `config` says (its count, motion and
    /// ground speeds; its levels and atlas layout when given and made
    /// with `config`'s options, else made here) and its clip.
    pub fn from_config(model: &Model, vat: &Arc<Vat>, config: &RendererConfig) -> Self {
        let lod = match &config.lod_chain {
            Some(chain) if chain.options == config.lod => chain.clone(),
            _ => Arc::new(crate::lod::build(model, vat, &config.lod)),
        };
        // Drawn with a level of this model's own chain (which may not be
        // the loaded model's, when the options differ).
        let impostor = Arc::new(
            config
                .impostor
                .as_deref()
                .cloned()
                .unwrap_or_else(|| crate::crowd::setup::impostor_layout(vat, config.motion))
                .with_mesh(&lod),
        );
        Self {
            name: model.name(),
            model: Arc::new(model.clone()),
            vat: vat.clone(),
            count: config.count,
            clip: config.clip,
            motion: config.motion,
            ground_speeds: config.ground_speeds.clone(),
            lod,
            impostor,
        }
    }

    /// Its crowd as the shaders lay it out.
    pub fn spec(&self) -> CrowdSpec {
        CrowdSpec {
            motion: self.motion,
            model_size: self.vat.bounds.diagonal().max(1e-3),
            ground_y: 0.0,
            clip_count: self.vat.clips.len() as u32,
        }
    }
}

/// What the renderer keeps of its models: each one's facts, the crowd
/// shaders' model table made from them, and where their fields lie.
#[derive(Clone, Debug)]
pub struct SceneState {
    /// Each model, in the crowd's order.
    pub models: Vec<CrowdModel>,
    /// The crowd shaders' model table (written every frame).
    pub table: Vec<CrowdModelGpu>,
    /// Around every model's field.
    pub bounds: Aabb,
    /// Around the ground models' fields (every model's when all fly):
    /// what the opening view of several models frames.
    pub ground_bounds: Aabb,
    /// The shared VAT array's plan.
    pub vat: VatSet,
    /// Each model's own bake, which the array's textures are written from.
    pub vats: Vec<Arc<Vat>>,
}

/// The techniques that draw one model (the panel and the errors say it).
pub const SCENE_TECHNIQUES: &str =
    "draws one model per scene: a scene of several models is drawn by the GPU techniques";

/// Gap between two ground models' fields, in their larger member size.
const FIELD_GAP: f32 = 4.0;

impl SceneState {
    /// The table and fields of `models` (counts included): ground models'
    /// fields side by side along x, centred on the origin, each its own
    /// size; flyers' circles centred on the origin, over them.
    pub fn plan(models: Vec<CrowdModel>, vat: VatSet) -> Self {
        let mut state = Self {
            vats: models.iter().map(|m| m.vat.clone()).collect(),
            models,
            table: Vec::new(),
            bounds: Aabb::EMPTY,
            ground_bounds: Aabb::EMPTY,
            vat,
        };
        state.replan();
        state
    }

    /// Makes the table and the fields again from the models (after a
    /// count or a clip changed).
    pub fn replan(&mut self) {
        let models = &self.models;
        let radii: Vec<f32> = models
            .iter()
            .map(|m| m.spec().field_radius(m.count))
            .collect();
        let ground: Vec<usize> = (0..models.len())
            .filter(|&m| models[m].motion != Motion::Flock)
            .collect();
        let gap = |a: usize, b: usize| {
            FIELD_GAP * models[a].spec().model_size.max(models[b].spec().model_size)
        };
        let width: f32 = ground.iter().map(|&m| 2.0 * radii[m]).sum::<f32>()
            + ground.windows(2).map(|w| gap(w[0], w[1])).sum::<f32>();
        let mut offsets = vec![[0.0f32; 2]; models.len()];
        let mut x = -width * 0.5;
        for (k, &m) in ground.iter().enumerate() {
            if k > 0 {
                x += gap(ground[k - 1], m);
            }
            offsets[m] = [x + radii[m], 0.0];
            x += 2.0 * radii[m];
        }
        let joining = plan(models);
        let mut first_instance = 0;
        let mut bounds = Aabb::EMPTY;
        let mut ground_bounds = Aabb::EMPTY;
        let mut table = Vec::with_capacity(models.len());
        for (m, model) in models.iter().enumerate() {
            let s = model.spec();
            let mut b = s.bounds(model.count);
            let shift = glam::Vec3::new(offsets[m][0], 0.0, offsets[m][1]);
            b.min += shift;
            b.max += shift;
            bounds = bounds.union(&b);
            if model.motion != Motion::Flock {
                ground_bounds = ground_bounds.union(&b);
            }
            let mut entry = CrowdModelGpu {
                first_instance,
                count: model.count,
                first_clip: self.vat.models[m].first_clip,
                clip_count: self.vat.models[m].clip_count,
                clip: model
                    .clip
                    .map_or(CLIP_MIXED, |c| c.min(s.clip_count.saturating_sub(1))),
                motion: model.motion as u32,
                field_radius: radii[m],
                model_size: s.model_size,
                offset: offsets[m],
                ..CrowdModelGpu::default()
            };
            joining[m].apply(&mut entry);
            table.push(entry);
            first_instance += model.count;
        }
        self.table = table;
        self.bounds = bounds;
        self.ground_bounds = if ground_bounds.is_empty() {
            bounds
        } else {
            ground_bounds
        };
    }

    /// Each model's instances.
    pub fn counts(&self) -> Vec<u32> {
        self.models.iter().map(|m| m.count).collect()
    }

    /// What each model's impostor atlas is drawn from (`members`: the
    /// crowd's, in the same order).
    pub fn atlas_sources<'a>(&'a self, members: &'a [Member]) -> Vec<AtlasSource<'a>> {
        self.models
            .iter()
            .zip(members)
            .map(|(m, member)| AtlasSource {
                layout: m.impostor.clone(),
                vat: &m.vat,
                model: &member.model,
                indices: &member.lod.indices,
            })
            .collect()
    }

    /// The radius around the origin every field fits in (the ground and
    /// the fog reach over it): the farthest field's edge.
    pub fn radius(&self) -> f32 {
        self.table
            .iter()
            .map(|e| e.offset[0].abs().max(e.offset[1].abs()) + e.field_radius)
            .fold(0.0, f32::max)
    }

    /// The crowd as the frame describes it: the models' motion when they
    /// share it on at most one ground field, else standing (the ground's
    /// rings come from the table, `crowd::tracks`); the largest model's
    /// size; every clip of the table.
    pub fn frame_spec(&self) -> CrowdSpec {
        let first = self.models[0].motion;
        let grounds = self
            .models
            .iter()
            .filter(|m| m.motion != Motion::Flock)
            .count();
        let shared = self.models.iter().all(|m| m.motion == first) && grounds <= 1;
        CrowdSpec {
            motion: if shared { first } else { Motion::Stand },
            model_size: self
                .models
                .iter()
                .map(|m| m.spec().model_size)
                .fold(1e-3, f32::max),
            ground_y: 0.0,
            clip_count: self.vat.clips.len() as u32,
        }
    }
}

// What each model does with behaviour on (`mixed_behaviour` builds the
// herd and flock from it).

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
pub fn gaits(m: &CrowdModel) -> Option<HerdClips> {
    (m.motion == Motion::Track)
        .then(|| HerdClips::find(&m.vat.clips, &m.ground_speeds))
        .flatten()
}

/// How many of `counts` (one per model of `models`) fly in the flock.
pub fn flock_birds(models: &[CrowdModel], counts: &[u32]) -> u64 {
    models
        .iter()
        .zip(counts)
        .filter(|(m, _)| wings(m).is_some())
        .map(|(_, &c)| c as u64)
        .sum()
}

/// The flap and glide clips of a flyer, if it has them.
pub fn wings(m: &CrowdModel) -> Option<(u32, u32)> {
    (m.motion == Motion::Flock)
        .then(|| bird_clips(&m.vat.clips))
        .flatten()
}

/// Its box across and along its heading over the gait clips.
pub fn footprint(m: &CrowdModel, clips: &HerdClips) -> Vec2 {
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

/// `total` instances shared out over models that have `counts`, in
/// proportion (rounded down, then one more for the first models while
/// some are left), each at least one (`total` at least the models).
pub fn share_count(counts: &[u32], total: u32) -> Vec<u32> {
    let had: u64 = counts.iter().map(|&c| c as u64).sum();
    if counts.len() <= 1 || had == 0 {
        let mut out = vec![0; counts.len().max(1)];
        out[0] = total;
        out.truncate(counts.len().max(1));
        return out;
    }
    let floor = |c: u32| ((c as u64 * total as u64) / had) as u32;
    let mut out: Vec<u32> = counts.iter().map(|&c| floor(c).max(1).min(total)).collect();
    let mut sum: u64 = out.iter().map(|&c| c as u64).sum();
    for c in out.iter_mut() {
        if sum >= total as u64 {
            break;
        }
        *c += 1;
        sum += 1;
    }
    while sum > total as u64 {
        let Some(c) = out.iter_mut().filter(|c| **c > 1).max() else {
            break;
        };
        *c -= 1;
        sum -= 1;
    }
    out
}
