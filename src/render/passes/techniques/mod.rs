//! The crowd techniques: one small interface ([`Technique`]), what a
//! technique reports about its cost, and the list of techniques.
//!
//! Each technique is a pair of files named alike: `src/render/techniques/X.rs`
//! (its GPU objects and per-frame work) and `shaders/techniques/X.wgsl` (its
//! pose hook, `fn pose(vertex, instance, anim) -> VatSample`, which the one
//! crowd vertex entry in `shaders/crowd_vertex.wgsl` calls). Adding a
//! technique is those two files and one line in the [`techniques!`] list
//! below.

pub mod members;
mod palettes;
mod shared;

pub use shared::{
    ARGS_WORDS, CrowdDraw, CrowdGroup, CrowdPass, CrowdPipelines, CrowdViews, MAX_VIEWS,
    PipelineSpec, SHADOW_FORMAT, clip_buffer, crowd_bind_group, crowd_group_layout, crowd_pipeline,
    draw_crowd, shadow_depth_state,
};

use crate::Model;
use crate::crowd::FrameUniform;
use crate::render::config::RenderError;
use crate::render::data::behaviour::Behaviour;
use crate::render::data::crowd_buffer::CrowdBuffer;
use crate::render::data::gpu_data::VatClipGpu;
use crate::render::data::model_gpu::ModelGpu;
use crate::render::passes::targets::Targets;
use crate::vat::Vat;
use std::sync::Arc;

/// Declares every technique from one list: the [`TechniqueKind`] variant,
/// its command-line name, its module (`src/render/techniques/MODULE.rs` with
/// `shaders/techniques/MODULE.wgsl`), its type and its label. The first is
/// the default.
macro_rules! techniques {
    ($($kind:ident => $module:ident :: $ty:ident, $name:literal, $label:literal, [$($extra:literal),*];)+) => {
        $(pub mod $module;)+
        $(pub use $module::$ty;)+

        /// The techniques the viewer offers.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum TechniqueKind {
            $(#[doc = $label] $kind,)+
        }

        impl TechniqueKind {
            pub const ALL: &[TechniqueKind] = &[$(TechniqueKind::$kind,)+];

            /// The command-line name.
            pub fn name(self) -> &'static str {
                match self {
                    $(TechniqueKind::$kind => $name,)+
                }
            }

            pub fn label(self) -> &'static str {
                match self {
                    $(TechniqueKind::$kind => $label,)+
                }
            }

            /// The technique's WGSL file under `shaders/`, holding its pose hook.
            pub fn shader_file(self) -> &'static str {
                match self {
                    $(TechniqueKind::$kind => concat!("techniques/", stringify!($module)),)+
                }
            }

            /// The files of its composed crowd module: the shared vertex entry,
            /// its own file, and any file that completes it (the VAT's fetch).
            pub fn crowd_roots(self) -> &'static [&'static str] {
                match self {
                    $(TechniqueKind::$kind => &[
                        crate::render::util::shaders::CROWD_VERTEX,
                        concat!("techniques/", stringify!($module)),
                        $($extra,)*
                    ],)+
                }
            }

            /// Its composed crowd module.
            pub fn crowd_module(self) -> crate::render::util::shaders::ModuleSpec {
                crate::render::util::shaders::ModuleSpec {
                    name: match self {
                        $(TechniqueKind::$kind => concat!("crowd_", stringify!($module)),)+
                    },
                    roots: self.crowd_roots(),
                }
            }

            /// Builds the technique.
            pub fn build(self, ctx: &BuildContext<'_>) -> Result<Box<dyn Technique>, RenderError> {
                Ok(match self {
                    $(TechniqueKind::$kind => Box::new($ty::build(ctx)?),)+
                })
            }
        }
    };
}

techniques! {
    Vat => vat::VatTechnique, "vat", "VAT (vertex animation texture)", ["vat_float"];
    Skinning => skinning::SkinningTechnique, "skinning", "Live GPU skinning (bone matrices)", [];
    BoneTexture => bone_texture::BoneTextureTechnique, "bone-texture", "Baked bone texture", [];
    Cpu => cpu::CpuSkinningTechnique, "cpu", "CPU skinning", [];
    Static => static_pose::StaticTechnique, "static", "Static (no animation)", [];
    ComputeSkinning => compute_skinning::ComputeSkinningTechnique, "compute-skinning", "Compute skinning (once per frame)", [];
    ComputeBoneTexture => compute_bone_texture::ComputeBoneTextureTechnique, "compute-bone-texture", "Compute skinning from the bone texture", [];
}

impl Default for TechniqueKind {
    fn default() -> Self {
        Self::ALL[0]
    }
}

impl clap::ValueEnum for TechniqueKind {
    fn value_variants<'a>() -> &'a [Self] {
        Self::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.name()).help(self.label()))
    }
}

impl std::fmt::Display for TechniqueKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What the active technique cost in the last frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TechniqueCosts {
    pub kind: TechniqueKind,
    /// CPU milliseconds of the technique's part of the last frame: sampling,
    /// skinning, uploads and recording its draw.
    pub cpu_ms: f32,
    /// CPU milliseconds of the behaviour's update in the last frame (the
    /// herd's table or the flock's dispatches), shared by every technique.
    pub behaviour_ms: f32,
    /// Bytes the technique wrote to the GPU in the last frame.
    pub upload_bytes: u64,
    /// Bytes of the technique's own GPU resources (not the shared crowd,
    /// mesh and textures).
    pub gpu_memory_bytes: u64,
    /// Bytes every technique shares: the instance buffer, the mesh's static
    /// vertices, indices and textures, and the herd's or flock's buffers.
    pub shared_memory_bytes: u64,
    /// GPU milliseconds of the last timed scene pass, when timestamps exist.
    pub gpu_ms: Option<f32>,
    /// GPU milliseconds of the last timed shadow passes (every cascade),
    /// apart from `gpu_ms`; `None` with shadows off or no timestamps.
    pub shadow_gpu_ms: Option<f32>,
    /// Instances actually drawn.
    pub drawn: u32,
    /// Instances requested (the crowd's count).
    pub requested: u32,
    /// What the technique's own pass did (compute skinning's skin pass),
    /// read back a frame or two late; `None` for techniques without one.
    pub pass: Option<PassStats>,
    /// The most instances this technique draws, when it has a cap.
    pub cap: Option<u32>,
    /// The model has morph targets and this technique does not apply them.
    pub morphs_ignored: bool,
    /// Draw calls of the crowd the last frame recorded, every pass
    /// together (the scene's, each shadow cascade's, the impostors'); the
    /// technique's own compute dispatches are not draws.
    pub draw_calls: u32,
}

impl TechniqueCosts {
    /// True when the cap cut the crowd this frame.
    pub fn capped(&self) -> bool {
        self.drawn < self.requested
    }
}

/// What a technique's own pass (compute skinning's skin pass) did in a
/// frame, apart from the scene and shadow passes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PassStats {
    /// What the panel calls the pass.
    pub name: &'static str,
    /// Instances it processed (each once, however many passes draw it).
    pub instances: u32,
    /// Vertex invocations it launched.
    pub vertices: u64,
    /// GPU milliseconds of the pass, when timestamps exist.
    pub gpu_ms: Option<f32>,
}

/// Everything a technique may read while preparing a frame.
pub struct FrameContext<'a> {
    pub device: &'a wgpu::Device,
    pub queue: &'a wgpu::Queue,
    pub crowd: &'a CrowdBuffer,
    pub model: &'a ModelGpu,
    /// This frame's uniform (already written): time, clip, spread, count.
    pub frame: &'a FrameUniform,
    /// The herd or flock (bound in group 2; the CPU techniques mirror it).
    pub behaviour: &'a Behaviour,
    /// The scene's model table as written this frame (`crowd_models`):
    /// each model's instances and clips, one entry per [`members::Member`].
    pub models: &'a [crate::crowd::scene::CrowdModelGpu],
}

/// Everything a technique needs to be built (at startup or on a switch).
pub struct BuildContext<'a> {
    pub device: &'a wgpu::Device,
    pub queue: &'a wgpu::Queue,
    pub caps: &'a crate::gpu::Capabilities,
    /// The CPU model, for the techniques that animate on the CPU (a
    /// scene's first).
    pub model: &'a Arc<Model>,
    /// Every model drawn: `model` alone, or each model of a scene.
    pub members: &'a [members::Member],
    /// The baked VAT (the VAT technique's textures; every technique's
    /// clip timing).
    pub vat: &'a Vat,
    /// The VAT's clip table as the shaders read it (with ground speeds).
    pub clip_table: &'a [VatClipGpu],
    /// The same table on the GPU: one buffer, which the cull pass, the
    /// impostors and the techniques bind (the bone techniques bind their
    /// own, with their texture's rows).
    pub clip_buffer: &'a wgpu::Buffer,
    /// Where `vat`'s texels come from (a scene's `vat` holds none: each
    /// model's own bake is written to its place).
    pub texels: vat::TexelSource<'a>,
    pub model_gpu: &'a ModelGpu,
    pub targets: &'a Targets,
    pub frame_layout: &'a wgpu::BindGroupLayout,
    /// Group 3 of the crowd pipelines: the cull pass's visible list.
    pub visible_layout: &'a wgpu::BindGroupLayout,
}

/// What `prepare` did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prepared {
    /// Instances to draw (the crowd's count, or less under a cap).
    pub drawn: u32,
    pub upload_bytes: u64,
}

/// A way of drawing the crowd. Each one owns its pipeline and buffers; the
/// instance data (`CrowdBuffer`) and the model's static data are shared, so
/// switching keeps the same crowd.
pub trait Technique {
    /// Builds the technique's GPU objects. Every technique is built through
    /// the same context, at startup or on its first use.
    fn build(ctx: &BuildContext<'_>) -> Result<Self, RenderError>
    where
        Self: Sized;
    fn kind(&self) -> TechniqueKind;
    /// Per-frame preparation: bind groups after the crowd buffer grew, and
    /// whatever CPU work and uploads the technique needs.
    fn prepare(&mut self, ctx: &FrameContext<'_>) -> Prepared;
    /// Records the crowd's draw calls in the scene pass or a shadow cascade
    /// (`draw`: every one of the instances `prepare` returned, or the cull
    /// pass's indirect draws); group 0 (the frame) is already set.
    fn draw(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        model: &ModelGpu,
        draw: &CrowdDraw<'_>,
        which: CrowdPass,
    );
    /// Bytes of the technique's own GPU resources.
    fn gpu_memory_bytes(&self) -> u64;
    /// The most instances it can draw, when capped.
    fn cap(&self) -> Option<u32> {
        None
    }
    /// The most instances it can draw this frame (`blend`: with the
    /// behaviour's crossfades; `table`: the scene's models and counts),
    /// when capped: what the renderer shares out over a scene's models
    /// before `prepare` (a technique whose cap depends on the table keeps
    /// it as this frame's [`Self::cap`]).
    fn instance_cap(
        &mut self,
        blend: bool,
        table: &[crate::crowd::scene::CrowdModelGpu],
    ) -> Option<u32> {
        let _ = (blend, table);
        self.cap()
    }
    /// Its group 1 (layout and bind group, visible to compute too), so the
    /// GPU tests can run its WGSL vertex function; `None` before `prepare`.
    fn group(&self) -> Option<(&wgpu::BindGroupLayout, &wgpu::BindGroup)>;
    /// True when it ignores morph targets.
    fn ignores_morphs(&self) -> bool {
        false
    }
    /// A compute step of the technique's own, recorded once every cull of
    /// the frame is and before the shadow and scene passes: `views` are the
    /// passes that will draw the crowd, `frame_group` the scene's group 0.
    /// Compute skinning skins what they draw here. Default: nothing.
    fn before_passes(
        &mut self,
        _ctx: &FrameContext<'_>,
        _encoder: &mut wgpu::CommandEncoder,
        _frame_group: &wgpu::BindGroup,
        _views: &CrowdViews<'_>,
    ) {
    }
    /// After the frame's submit: starts the read-backs of that step's
    /// counts and GPU time and collects earlier ones; `wait` blocks until
    /// every pending one has landed (benchmarks and tests, never the viewer).
    fn after_submit(&mut self, _device: &wgpu::Device, _wait: bool) {}
    /// What that step did in the last frame read back.
    fn pass_stats(&self) -> Option<PassStats> {
        None
    }
    /// Forgets the last reading of that step (a benchmark then counts fresh
    /// readings only).
    fn clear_pass_stats(&mut self) {}
}

/// Every shader module the renderer builds: each technique's crowd module
/// and the others. tests/shader_validation.rs validates exactly this list.
pub fn shader_modules() -> Vec<crate::render::util::shaders::ModuleSpec> {
    TechniqueKind::ALL
        .iter()
        .map(|k| k.crowd_module())
        .chain(crate::render::util::shaders::OTHER_MODULES.iter().copied())
        .collect()
}

/// The composed source of the module called `name` in [`shader_modules`].
pub fn shader_source(name: &str) -> Option<String> {
    shader_modules()
        .into_iter()
        .find(|m| m.name == name)
        .and_then(|m| m.source().ok())
}
