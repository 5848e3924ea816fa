//! Building a renderer: from a list of models (one model is a list of
//! one), every model's data in the shared buffers, the VAT array, the cull
//! pass, the shadows and the first technique.

use crate::Model;
use crate::crowd::scene::MAX_SCENE_MODELS;
use crate::lod::{GeometrySet, LodChain};
use crate::render::data::crowd_gpu::CrowdGpu;
use crate::render::data::model_gpu::ModelGpu;
use crate::render::data::models::{CrowdModel, SceneModel, SceneState};
use crate::render::passes::cull::{CullSource, Culler};
use crate::render::passes::frame_group::{self, FrameGroup};
use crate::render::passes::techniques::members::Member;
use crate::render::{
    Backdrop, CrowdBuffer, GpuTimer, RenderError, Renderer, RendererConfig, ShadowMaps, Targets,
    TechniqueKind,
};
use crate::vat::{Vat, VatSet};
use std::sync::Arc;

impl Renderer {
    /// A renderer of `model`'s crowd drawn from `vat`, as `config` says
    /// (a list of one model: [`Renderer::from_models`]).
    pub fn new(
        gpu: Arc<crate::gpu::GpuContext>,
        model: &Model,
        vat: &Arc<Vat>,
        config: &RendererConfig,
    ) -> Result<Self, RenderError> {
        // Refused before the mesh levels are made from its texels.
        fits(&gpu.caps, vat)?;
        Self::from_models(
            gpu,
            vec![CrowdModel::from_config(model, vat, config)],
            config,
        )
    }

    /// A renderer of the loaded `models`, each with its count
    /// ([`Renderer::from_models`]).
    pub fn from_scene(
        gpu: Arc<crate::gpu::GpuContext>,
        models: &[SceneModel<'_>],
        config: &RendererConfig,
    ) -> Result<Self, RenderError> {
        Self::from_models(gpu, models.iter().map(CrowdModel::of).collect(), config)
    }

    /// A renderer of the crowd of `models` (one model is a list of one):
    /// each its own count, clip, motion, levels and atlas; `config` says
    /// everything else (its count, motion, ground speeds, levels and atlas
    /// layout are the models' own here).
    pub fn from_models(
        gpu: Arc<crate::gpu::GpuContext>,
        models: Vec<CrowdModel>,
        config: &RendererConfig,
    ) -> Result<Self, RenderError> {
        if models.is_empty() {
            return Err(RenderError::Scene(
                "a scene needs at least one model".into(),
            ));
        }
        if models.len() > MAX_SCENE_MODELS {
            return Err(RenderError::Scene(format!(
                "a scene holds at most {MAX_SCENE_MODELS} models, not {}",
                models.len()
            )));
        }
        let caps = gpu.caps;
        let max_side = caps.max_texture_dimension_2d;
        if config.width == 0
            || config.height == 0
            || config.width > max_side
            || config.height > max_side
        {
            return Err(RenderError::BadSize {
                width: config.width,
                height: config.height,
                max: max_side,
            });
        }
        let vats: Vec<&Vat> = models.iter().map(|m| m.vat.as_ref()).collect();
        let named: Vec<(&str, &Vat)> = models
            .iter()
            .map(|m| (m.name.as_str(), m.vat.as_ref()))
            .collect();
        for vat in &vats {
            fits(&caps, vat)?;
        }
        let scene_error = |e: &dyn std::fmt::Display| RenderError::Scene(e.to_string());
        let set = VatSet::plan(&named, max_side, caps.max_texture_array_layers)
            .map_err(|e| scene_error(&e))?;
        let header = set.header(&vats).map_err(|e| scene_error(&e))?;
        let chains: Vec<(u32, &LodChain)> = models
            .iter()
            .map(|m| (m.model.vertex_count() as u32, m.lod.as_ref()))
            .collect();
        let geometry = GeometrySet::plan(&chains).map_err(|e| scene_error(&e))?;
        let speeds: Vec<&[f32]> = models.iter().map(|m| m.ground_speeds.as_slice()).collect();
        let clip_table =
            crate::render::passes::techniques::vat::set_clip_table(&set, &vats, &speeds);

        let device = &gpu.device;
        let targets = Targets::with_options(
            &gpu,
            config.format,
            config.width,
            config.height,
            config.targets,
        );
        let frame_buffer = frame_group::uniform_buffer(device);
        let frame_layout = frame_group::layout(device);
        let backdrop = Backdrop::new(device, &targets, &frame_layout);
        let cpu_models: Vec<&Model> = models.iter().map(|m| m.model.as_ref()).collect();
        let model_gpu = ModelGpu::new(device, &gpu.queue, &cpu_models, &geometry.indices);
        let sources = models
            .iter()
            .zip(&geometry.meshes)
            .map(|(m, mesh)| {
                CullSource::new(
                    m.vat.pose_bounds(),
                    &m.lod,
                    mesh.first_index,
                    mesh.base_vertex,
                )
            })
            .collect();
        let clip_buffer =
            crate::render::passes::techniques::clip_buffer(device, "clip table", &clip_table);
        let mut culler = Culler::new(device, &frame_layout, &clip_buffer, sources);
        let counts: Vec<u32> = models.iter().map(|m| m.count).collect();
        crate::render::live::check_counts(&gpu, &culler, &models, &counts)?;
        let crowd = CrowdBuffer::new(
            device,
            &gpu.queue,
            config.seed,
            &counts,
            caps.max_storage_buffer_binding_size,
        )?;
        culler.settings = config.cull;
        let mut shadows = ShadowMaps::new(device, &caps, &frame_layout, &frame_buffer, &culler);
        shadows.settings = config.shadows;
        shadows.update(device);
        let members: Vec<Member> = models
            .iter()
            .zip(&geometry.meshes)
            .map(|(m, mesh)| Member {
                model: m.model.clone(),
                clips: m.vat.clips.clone(),
                base_vertex: mesh.base_vertex,
                lod: m.lod.clone(),
            })
            .collect();
        let behaviour = crate::render::data::mixed_behaviour::behaviour(
            device,
            &models,
            config.seed,
            config.behaviour,
        );
        let impostor_layout = models[0].impostor.clone();
        let names: Vec<String> = models
            .iter()
            .map(|m| format!("{} ×{}", m.name, m.count))
            .collect();
        let scene = SceneState::plan(models, set);
        let header = Arc::new(header);
        let technique = TechniqueKind::default().build(&crate::render::BuildContext {
            device,
            queue: &gpu.queue,
            caps: &caps,
            model: &members[0].model,
            members: &members,
            vat: &header,
            clip_table: &clip_table,
            clip_buffer: &clip_buffer,
            texels: crate::render::passes::techniques::vat::TexelSource::Set(
                &scene.vat,
                &scene.vats,
            ),
            model_gpu: &model_gpu,
            targets: &targets,
            frame_layout: &frame_layout,
            visible_layout: culler.draw_layout(),
        })?;
        let frame_group = FrameGroup::new(device, frame_layout, frame_buffer, shadows.bindings());
        let r = Self {
            targets,
            frame_group,
            backdrop,
            data: CrowdGpu {
                model: model_gpu,
                crowd,
                behaviour,
            },
            technique,
            costs: Default::default(),
            members,
            vat: header,
            outline: std::sync::OnceLock::new(),
            follow_offset: None,
            clip_table,
            clip_buffer,
            layout: scene.frame_spec(),
            timer: GpuTimer::new(device, &caps),
            cull_timer: GpuTimer::new(device, &caps),
            cascade_cull_timer: GpuTimer::new(device, &caps),
            culler,
            shadows,
            impostors: None,
            impostor_layout,
            impostor_error: None,
            splats: None,
            splat_error: None,
            hide_crowd: false,
            view_left: 0,
            last_frame: None,
            pyramid_view: None,
            motion: Default::default(),
            post: Default::default(),
            scene,
            gpu: gpu.clone(),
        };
        if names.len() > 1 {
            log::info!("a scene of {} models: {}", names.len(), names.join(", "));
        }
        Ok(r)
    }
}

/// Refuses a VAT whose textures this device cannot hold.
fn fits(caps: &crate::gpu::Capabilities, vat: &Vat) -> Result<(), RenderError> {
    let max_side = caps.max_texture_dimension_2d;
    if vat.layout.width > max_side
        || vat.layout.height > max_side
        || vat.layout.layers > caps.max_texture_array_layers
    {
        return Err(RenderError::VatTooLarge {
            width: vat.layout.width,
            height: vat.layout.height,
            layers: vat.layout.layers,
            max_side,
            max_layers: caps.max_texture_array_layers,
        });
    }
    Ok(())
}
