//! A scene of several models drawn as one crowd: every model's vertices
//! and indices in shared buffers (`lod::GeometrySet`), every VAT in one
//! texture array (`vat::VatSet`, the clip table carrying each clip's row
//! layout and vertex base), one instance buffer whose ranges belong to the
//! models (`crowd_models`), one cull pass over every instance with a
//! region per (model, level), and one multi-draw per pass.
//!
//! Every GPU technique draws a scene (the bone-matrix ones over every
//! model's data in the shared stream's order: `techniques::members`); the
//! CPU technique keeps one model per scene. With behaviour off each
//! ground model runs round its own track, side by side, flyers circling
//! over them; with behaviour on the ground models are one mixed herd and
//! the flyers one flock over it (`mixed_behaviour`). The far field's
//! impostors are every model's atlas in one pair of textures
//! (`impostor::scene_atlas`), drawn by one draw over the models' impostor
//! regions.

use super::cull::{CullSource, Culler};
use super::impostor::AtlasSource;
use super::model_gpu::ModelGpu;
use super::techniques::members::Member;
use super::{CrowdBuffer, RenderError, Renderer, RendererConfig, TechniqueKind};
use crate::crowd::scene::{CrowdModelGpu, MAX_SCENE_MODELS};
use crate::crowd::{BehaviourSettings, CLIP_MIXED, CrowdSpec, Motion};
use crate::impostor::AtlasLayout;
use crate::lod::{GeometrySet, LodLevel};
use crate::vat::{Vat, VatSet};
use crate::{Aabb, Model};
use std::sync::Arc;

pub use crate::crowd::scene_spec::SceneModel;

/// What the renderer keeps of a scene of several models.
#[derive(Clone, Debug)]
pub struct SceneState {
    pub names: Vec<String>,
    pub counts: Vec<u32>,
    /// The crowd shaders' model table (written every frame).
    pub table: Vec<CrowdModelGpu>,
    /// Around every model's field.
    pub bounds: Aabb,
    /// Around the ground models' fields (every model's when all fly):
    /// what the opening view frames.
    pub ground_bounds: Aabb,
    /// The shared VAT array's plan.
    pub vat: VatSet,
    /// Each model's own bake, which the array's textures are written from
    /// (the renderer keeps no combined copy).
    pub vats: Vec<Arc<Vat>>,
    /// Each model's impostor atlas layout and its own VAT, which the atlas
    /// is drawn from the first time a frame wants impostors.
    pub atlases: Vec<(Arc<AtlasLayout>, Arc<Vat>)>,
}

/// The techniques that draw one model per scene (the panel and the
/// errors say it).
pub const SCENE_TECHNIQUES: &str =
    "draws one model per scene: a scene of several models is drawn by the GPU techniques";

/// Gap between two ground models' fields, in their larger member size.
const FIELD_GAP: f32 = 4.0;

impl SceneState {
    /// The table and fields of `models` (counts included): ground models'
    /// fields side by side along x, centred on the origin, each its own
    /// size; flyers' circles centred on the origin, over them.
    pub fn plan(models: &[SceneModel<'_>], vat: VatSet) -> Self {
        let spec = |m: &SceneModel<'_>| CrowdSpec {
            motion: m.loaded.motion,
            model_size: m.loaded.vat.bounds.diagonal().max(1e-3),
            ground_y: 0.0,
            clip_count: m.loaded.vat.clips.len() as u32,
        };
        let radii: Vec<f32> = models
            .iter()
            .map(|m| spec(m).field_radius(m.count))
            .collect();
        let ground: Vec<usize> = (0..models.len())
            .filter(|&m| models[m].loaded.motion != Motion::Flock)
            .collect();
        let gap = |a: usize, b: usize| {
            FIELD_GAP * spec(&models[a]).model_size.max(spec(&models[b]).model_size)
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
        let mut first_instance = 0;
        let mut bounds = Aabb::EMPTY;
        let mut ground_bounds = Aabb::EMPTY;
        let table = models
            .iter()
            .enumerate()
            .map(|(m, model)| {
                let s = spec(model);
                let mut b = s.bounds(model.count);
                let shift = glam::Vec3::new(offsets[m][0], 0.0, offsets[m][1]);
                b.min += shift;
                b.max += shift;
                bounds = bounds.union(&b);
                if model.loaded.motion != Motion::Flock {
                    ground_bounds = ground_bounds.union(&b);
                }
                let entry = CrowdModelGpu {
                    first_instance,
                    count: model.count,
                    first_clip: vat.models[m].first_clip,
                    clip_count: vat.models[m].clip_count,
                    clip: model.loaded.clip.unwrap_or(CLIP_MIXED),
                    motion: model.loaded.motion as u32,
                    field_radius: radii[m],
                    model_size: s.model_size,
                    offset: offsets[m],
                    ..CrowdModelGpu::default()
                };
                first_instance += model.count;
                entry
            })
            .collect();
        Self {
            names: models.iter().map(|m| m.loaded.model.name()).collect(),
            counts: models.iter().map(|m| m.count).collect(),
            table,
            bounds,
            ground_bounds: if ground_bounds.is_empty() {
                bounds
            } else {
                ground_bounds
            },
            vat,
            vats: models.iter().map(|m| m.loaded.vat.clone()).collect(),
            atlases: models
                .iter()
                .map(|m| (m.loaded.impostor.clone(), m.loaded.vat.clone()))
                .collect(),
        }
    }

    /// What each model's impostor atlas is drawn from (`members`: the
    /// scene's, in the same order).
    pub fn atlas_sources<'a>(&'a self, members: &'a [Member]) -> Vec<AtlasSource<'a>> {
        self.atlases
            .iter()
            .zip(members)
            .map(|((layout, vat), member)| AtlasSource {
                layout: layout.clone(),
                vat,
                model: &member.model,
                indices: &member.lod.indices,
            })
            .collect()
    }

    /// The radius around the origin every field fits in.
    pub fn radius(&self) -> f32 {
        let b = &self.bounds;
        b.min
            .x
            .abs()
            .max(b.max.x.abs())
            .max(b.min.z.abs().max(b.max.z.abs()))
    }
}

impl Renderer {
    /// A renderer of a scene of several `models` (one model: the same as
    /// [`Renderer::new`]). `config.count` is ignored (each model has its
    /// own); its behaviour is `mixed_behaviour`'s.
    pub fn new_scene(
        gpu: Arc<crate::gpu::GpuContext>,
        models: &[SceneModel<'_>],
        config: &RendererConfig,
    ) -> Result<Self, RenderError> {
        let Some(first) = models.first() else {
            return Err(RenderError::Scene(
                "a scene needs at least one model".into(),
            ));
        };
        let single = RendererConfig {
            count: first.count,
            lod_chain: Some(first.loaded.lod.clone()),
            impostor: Some(first.loaded.impostor.clone()),
            motion: first.loaded.motion,
            ground_speeds: first.loaded.ground_speeds.clone(),
            ..config.clone()
        };
        if models.len() == 1 {
            return Self::new(gpu, &first.loaded.model, &first.loaded.vat, &single);
        }
        if models.len() > MAX_SCENE_MODELS {
            return Err(RenderError::Scene(format!(
                "a scene holds at most {MAX_SCENE_MODELS} models, not {}",
                models.len()
            )));
        }
        let caps = gpu.caps;
        let vats: Vec<&Vat> = models.iter().map(|m| m.loaded.vat.as_ref()).collect();
        let names: Vec<String> = models.iter().map(|m| m.loaded.model.name()).collect();
        let named: Vec<(&str, &Vat)> = names
            .iter()
            .map(String::as_str)
            .zip(vats.iter().copied())
            .collect();
        let scene_error = |e: &dyn std::fmt::Display| RenderError::Scene(e.to_string());
        let set = VatSet::plan(
            &named,
            caps.max_texture_dimension_2d,
            caps.max_texture_array_layers,
        )
        .map_err(|e| scene_error(&e))?;
        let header = set.header(&vats).map_err(|e| scene_error(&e))?;
        let chains: Vec<(u32, &crate::lod::LodChain)> = models
            .iter()
            .map(|m| (m.loaded.model.vertex_count() as u32, m.loaded.lod.as_ref()))
            .collect();
        let geometry = GeometrySet::plan(&chains).map_err(|e| scene_error(&e))?;
        let speeds: Vec<&[f32]> = models
            .iter()
            .map(|m| m.loaded.ground_speeds.as_slice())
            .collect();
        let clip_table = super::techniques::vat::set_clip_table(&set, &vats, &speeds);

        let mut r = Self::new(
            gpu.clone(),
            &first.loaded.model,
            &first.loaded.vat,
            &RendererConfig {
                behaviour: BehaviourSettings {
                    enabled: false,
                    ..config.behaviour
                },
                ..single
            },
        )?;
        let device = &gpu.device;
        let cpu_models: Vec<&Model> = models.iter().map(|m| &m.loaded.model).collect();
        r.model = ModelGpu::for_scene(device, &gpu.queue, &cpu_models, &geometry.indices);
        let counts: Vec<u32> = models.iter().map(|m| m.count).collect();
        r.crowd = CrowdBuffer::for_scene(
            device,
            &gpu.queue,
            config.seed,
            &counts,
            caps.max_storage_buffer_binding_size,
        )?;
        let sources = models
            .iter()
            .zip(&geometry.meshes)
            .map(|(m, mesh)| CullSource {
                bounds: m.loaded.vat.pose_bounds(),
                levels: geometry.regions[mesh.first_region as usize..][..mesh.levels as usize]
                    .iter()
                    .zip(&m.loaded.lod.levels)
                    .map(|(region, level)| LodLevel {
                        first_index: region.first_index,
                        ..*level
                    })
                    .collect(),
                base_vertex: mesh.base_vertex,
                nearest_error: m
                    .loaded
                    .lod
                    .nearest_frame_error
                    .iter()
                    .copied()
                    .fold(0.0f32, f32::max),
            })
            .collect();
        let clip_buffer = super::techniques::clip_buffer(device, "clip table", &clip_table);
        let mut culler = Culler::for_scene(device, &r.frame_layout, &clip_buffer, sources);
        culler.settings = config.cull;
        r.culler = culler;
        let mut shadows =
            super::ShadowMaps::new(device, &caps, &r.frame_layout, &r.frame_buffer, &r.culler);
        shadows.settings = config.shadows;
        r.shadows = shadows;
        r.layout = CrowdSpec {
            // No track drawn on the ground, no herd or flock.
            motion: Motion::Stand,
            model_size: models
                .iter()
                .map(|m| m.loaded.vat.bounds.diagonal())
                .fold(1e-3, f32::max),
            ground_y: 0.0,
            clip_count: clip_table.len() as u32,
        };
        r.members = models
            .iter()
            .zip(&geometry.meshes)
            .map(|(m, mesh)| Member {
                model: Arc::new(m.loaded.model.clone()),
                clips: m.loaded.vat.clips.clone(),
                base_vertex: mesh.base_vertex,
                lod: m.loaded.lod.clone(),
            })
            .collect();
        r.vat = Arc::new(header);
        r.clip_table = clip_table;
        r.clip_buffer = clip_buffer;
        let joining = super::mixed_behaviour::plan(models);
        r.behaviour = super::mixed_behaviour::scene_behaviour(
            device,
            models,
            &joining,
            config.seed,
            config.behaviour,
        );
        let mut state = SceneState::plan(models, set);
        for (entry, j) in state.table.iter_mut().zip(&joining) {
            j.apply(entry);
        }
        r.mixed = Some(state);
        r.technique = TechniqueKind::Vat.build(&r.build_context())?;
        log::info!(
            "a scene of {} models: {}",
            models.len(),
            names
                .iter()
                .zip(models)
                .map(|(n, m)| format!("{n} ×{}", m.count))
                .collect::<Vec<_>>()
                .join(", ")
        );
        Ok(r)
    }

    /// The scene of several models this renderer draws (`None`: one).
    pub fn mixed_scene(&self) -> Option<&SceneState> {
        self.mixed.as_ref()
    }
}
