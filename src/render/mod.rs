//! The crowd renderer: the backdrop (sky, ground, light, fog) and one technique
//! that draws the whole crowd from a shared instance buffer.
//!
//! `Model → Vat → VatResources + ModelGpu + CrowdBuffer → one draw`.
//!
//! The [`Renderer`] is this file and the files beside it (building it,
//! the frame's list of passes, framing, live changes, read-outs). Below it:
//! - `data/`: the crowd's GPU data, long-lived and shared by every pass
//!   (the models' mesh, the instances and model table, the herd or flock,
//!   the Rust mirrors of the WGSL structs);
//! - `passes/`: the passes, each owning its GPU objects and taking the
//!   frame's data (the techniques, the cull, the shadows, the impostors,
//!   the backdrop, TAA and the motion view, group 0 and the targets);
//! - `probes/`: read-backs and probes of a whole renderer (the picture,
//!   exact visibility, unseen casters, the impostors' likeness);
//! - `util/`: small GPU utilities (pipelines, full-screen passes, mapped
//!   read-backs, the shader sources, the GPU timer).
//!
//! Nothing in `data/`, `passes/` or `util/` imports the renderer
//! (tests/structure.rs keeps it so).

mod build;
pub mod camera;
mod config;
pub mod data;
mod frame;
mod framing;
pub mod headless;
mod live;
pub mod offscreen;
pub mod passes;
pub mod probes;
mod readouts;
mod scene_targets;
mod splats;
pub mod util;

use crate::Model;
use crate::crowd::{BehaviourSettings, CrowdSpec, FrameSettings, FrameUniform};
use crate::gpu::GpuContext;
use crate::vat::Vat;
pub use camera::{Camera, CameraSpec};
pub use config::{RenderError, RendererConfig};
pub use data::behaviour::{Behaviour, BehaviourKind};
pub use data::crowd_buffer::CrowdBuffer;
use data::gpu_data::VatClipGpu;
use data::model_gpu::ModelGpu;
use data::{crowd_gpu, models};
pub use passes::backdrop::Backdrop;
pub use passes::cull::{CullStats, Culler};
pub use passes::shadow::ShadowMaps;
pub use passes::targets::{DEPTH_FORMAT, Targets};
pub use passes::techniques::vat::{VatResources, clip_table};
pub use passes::techniques::{
    BuildContext, CrowdDraw, CrowdPass, CrowdViews, FrameContext, PassStats, Prepared, Technique,
    TechniqueCosts, TechniqueKind,
};
pub use passes::techniques::{shader_modules, shader_source};
use passes::{cull, frame_group, impostor, post, splat, targets, techniques};
pub use probes::unseen_casters::UnseenCasters;
use std::sync::Arc;
pub use util::timing::{GpuTimer, History};

/// The backdrop, the crowd and the active technique.
pub struct Renderer {
    pub gpu: Arc<GpuContext>,
    pub targets: Targets,
    /// Group 0: the frame's uniform and the shadows it binds.
    frame_group: frame_group::FrameGroup,
    backdrop: Backdrop,
    /// The models' mesh, the instances, the herd or flock.
    data: crowd_gpu::CrowdGpu,
    /// The technique drawing the crowd: the only one allocated (switching
    /// drops the previous one's GPU objects before building the next).
    technique: Box<dyn Technique>,
    costs: TechniqueCosts,
    /// Every model drawn, as the techniques are built over them.
    members: Vec<techniques::members::Member>,
    /// The VAT array's header: every model's clips where the array holds
    /// them (no texels: each model's own bake is written to its place).
    vat: Arc<Vat>,
    /// The model's outline for framing (`framing::silhouette`), made from
    /// the VAT the first time a view needs it.
    outline: std::sync::OnceLock<Vec<glam::Vec3>>,
    /// The follow camera's target relative to the herd (`herd_target`),
    /// for the count and aspect (as bits) it was measured at.
    follow_offset: Option<((u32, u32), glam::Vec3)>,
    clip_table: Vec<VatClipGpu>,
    /// `clip_table` on the GPU, shared by the cull pass, the impostors and
    /// the techniques.
    clip_buffer: wgpu::Buffer,
    pub layout: CrowdSpec,
    pub timer: Option<GpuTimer>,
    /// Times the cull passes before the scene: the camera's (with the
    /// splats it writes) and every shadow cascade's.
    cull_timer: Option<GpuTimer>,
    /// The shadow cascades' cull passes, part of `cull_timer`'s span.
    cascade_cull_timer: Option<GpuTimer>,
    /// The cull pass: visible lists, LOD choice, indirect arguments.
    culler: Culler,
    /// The sun's cascaded shadow maps.
    shadows: ShadowMaps,
    /// The far field's impostors: the atlas and their draw, made the first
    /// time a frame wants them (`None` before, or when no atlas could be
    /// made: `impostor_error` says why).
    impostors: Option<impostor::ImpostorPass>,
    impostor_layout: Arc<crate::impostor::AtlasLayout>,
    pub impostor_error: Option<String>,
    /// The splat level below the impostors (made with the impostors).
    splats: Option<splat::Splats>,
    /// Why the last frame that wanted splats drew none, if it drew none.
    pub splat_error: Option<String>,
    /// Pixels on the left of the target that something else covers (the
    /// window's panel): the scene is drawn beside them, with their aspect.
    view_left: u32,
    /// Draw the scene without the crowd (a debug switch: tests measure the
    /// crowd's share of the picture against it).
    pub hide_crowd: bool,
    /// The last uniform written, for tests and the panel.
    pub last_frame: Option<FrameUniform>,
    /// Occlusion culling's debug view of its depth pyramid (made when
    /// first shown).
    pyramid_view: Option<cull::pyramid_view::PyramidView>,
    /// The previous frame's time and camera (the velocity target, TAA).
    motion: crate::crowd::motion::MotionHistory,
    /// TAA's resolve and the motion view.
    pub post: post::Post,
    /// The crowd's models: each one's facts, the model table, the fields.
    scene: models::SceneState,
}

impl Renderer {
    /// The active technique itself (for the GPU tests).
    pub fn technique(&self) -> &dyn Technique {
        self.technique.as_ref()
    }

    /// The technique drawing the crowd.
    pub fn technique_kind(&self) -> TechniqueKind {
        self.technique.kind()
    }

    /// Switches the technique that draws the crowd. The previous technique's
    /// GPU objects are dropped first, so at most one technique is allocated.
    /// The crowd, its instance buffer, the time and camera stay. When the
    /// new technique cannot be built, VAT (which every model has) draws
    /// and the error is returned.
    pub fn set_technique(&mut self, kind: TechniqueKind) -> Result<(), RenderError> {
        if self.technique.kind() == kind {
            return Ok(());
        }
        let ctx = self.build_context();
        // A placeholder-free swap: build the new one, then drop the old.
        // Dropping first would leave nothing to draw if the build failed.
        match kind.build(&ctx) {
            Ok(technique) => {
                self.technique = technique;
                Ok(())
            }
            Err(e) => {
                if self.technique.kind() != TechniqueKind::default() {
                    self.technique = TechniqueKind::default().build(&ctx)?;
                }
                Err(e)
            }
        }
    }

    /// What the active technique cost in the last frame it drew.
    pub fn costs(&self) -> TechniqueCosts {
        let t = &self.technique;
        TechniqueCosts {
            kind: t.kind(),
            gpu_memory_bytes: t.gpu_memory_bytes(),
            shared_memory_bytes: self.data.gpu_memory_bytes()
                + self.culler.gpu_memory_bytes()
                + self.clip_buffer.size()
                + self.shadows.gpu_memory_bytes()
                + self.impostors.as_ref().map_or(0, |i| i.gpu_memory_bytes()),
            gpu_ms: self.gpu_ms(),
            shadow_gpu_ms: self.shadow_gpu_ms(),
            cap: t.cap(),
            pass: t.pass_stats(),
            // Any model's morphs: a scene's first model may have none.
            morphs_ignored: t.ignores_morphs()
                && self.members.iter().any(|m| !m.model.morphs.is_empty()),
            ..self.costs
        }
    }

    /// The impostor atlas, when one was made.
    pub fn impostor_atlas(&self) -> Option<&Arc<impostor::ImpostorAtlas>> {
        self.impostors.as_ref().map(|i| &i.atlas)
    }

    /// The impostor atlas's layout (planned when the model was loaded).
    pub fn impostor_layout(&self) -> &Arc<crate::impostor::AtlasLayout> {
        &self.impostor_layout
    }

    /// Draws the impostor atlas now if it is not there yet (the first
    /// frame that wants impostors does it). A GPU that cannot hold it
    /// leaves the far field to the meshes, and `impostor_error` says why.
    pub fn ensure_impostors(&mut self) -> Result<(), RenderError> {
        if self.impostors.is_some() || self.impostor_error.is_some() {
            return Ok(());
        }
        let built = impostor::ImpostorAtlas::build_scene(
            &self.gpu,
            &self.scene.atlas_sources(&self.members),
        );
        match built {
            Ok(atlas) => {
                log::info!(
                    "impostor atlas: {} layers of {}×{} texels ({} model{}), {:.1} MiB, drawn in {:.0} ms",
                    atlas.layers,
                    atlas.layer_size.0,
                    atlas.layer_size.1,
                    atlas.models.len(),
                    if atlas.models.len() == 1 { "" } else { "s" },
                    atlas.bytes as f64 / (1024.0 * 1024.0),
                    atlas.build_ms
                );
                let atlas = Arc::new(atlas);
                self.splats = Some(self.splat_pass(&atlas));
                self.impostors = Some(self.impostor_pass(atlas));
                self.culler.impostors_ready = true;
            }
            Err(impostor::AtlasError::Gpu(e)) => return Err(e.into()),
            Err(e) => {
                log::warn!("{e}; the far field is drawn with meshes only");
                self.impostor_error = Some(e.to_string());
            }
        }
        Ok(())
    }

    /// The impostors' draw of `atlas` into the current targets.
    fn impostor_pass(&self, atlas: Arc<impostor::ImpostorAtlas>) -> impostor::ImpostorPass {
        let device = &self.gpu.device;
        impostor::ImpostorPass::new(
            device,
            atlas,
            &self.targets,
            &self.frame_group.layout,
            self.culler.draw_layout(),
            &self.clip_buffer,
        )
    }

    /// The first model's CPU model.
    pub fn model_cpu(&self) -> &Arc<Model> {
        &self.members[0].model
    }

    /// The crowd's instances and model table.
    pub fn crowd(&self) -> &CrowdBuffer {
        &self.data.crowd
    }

    /// The models' vertices and mesh levels on the GPU.
    pub fn model_gpu(&self) -> &ModelGpu {
        &self.data.model
    }

    /// The herd or flock.
    pub fn behaviour(&self) -> &Behaviour {
        &self.data.behaviour
    }

    /// Changes the living crowd's settings from the next frame.
    pub fn set_behaviour(&mut self, settings: BehaviourSettings) {
        self.data.behaviour.set_settings(settings);
    }

    pub fn resize(&mut self, width: u32, height: u32) {
        self.targets.resize(&self.gpu.device, width, height);
    }

    /// Changes the anti-aliasing or the velocity target: the targets and
    /// every pipeline drawing into them are made again (the technique, the
    /// ground and sky, the impostors' draw; not the atlas), and TAA's
    /// history starts again.
    pub fn set_target_options(
        &mut self,
        options: targets::TargetOptions,
    ) -> Result<(), RenderError> {
        if options == self.targets.options {
            return Ok(());
        }
        let generation = self.targets.generation + 1;
        self.targets = Targets::with_options(
            &self.gpu,
            self.targets.format,
            self.targets.width,
            self.targets.height,
            options,
        );
        self.targets.generation = generation;
        let device = &self.gpu.device;
        self.backdrop = Backdrop::new(device, &self.targets, &self.frame_group.layout);
        if let Some(old) = self.impostors.take() {
            self.splats = Some(self.splat_pass(&old.atlas));
            self.impostors = Some(self.impostor_pass(old.atlas));
        }
        self.pyramid_view = None;
        self.post = self.post.fresh();
        self.motion.cut();
        let kind = self.technique.kind();
        let built = kind.build(&self.build_context());
        match built {
            Ok(technique) => {
                self.technique = technique;
                Ok(())
            }
            Err(e) => {
                self.technique = TechniqueKind::default().build(&self.build_context())?;
                Err(e)
            }
        }
    }

    /// What a technique is built from.
    fn build_context(&self) -> BuildContext<'_> {
        BuildContext {
            device: &self.gpu.device,
            queue: &self.gpu.queue,
            caps: &self.gpu.caps,
            model: &self.members[0].model,
            members: &self.members,
            vat: &self.vat,
            clip_table: &self.clip_table,
            clip_buffer: &self.clip_buffer,
            texels: techniques::vat::TexelSource::Set(&self.scene.vat, &self.scene.vats),
            model_gpu: &self.data.model,
            targets: &self.targets,
            frame_layout: &self.frame_group.layout,
            visible_layout: self.culler.draw_layout(),
        }
    }
}
