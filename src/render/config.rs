//! How a renderer is asked for ([`RendererConfig`]) and why it cannot be
//! built or used ([`RenderError`]).

use crate::bones::BoneError;
use crate::crowd::{BehaviourSettings, CountError, Motion};
use crate::gpu::GpuError;
use crate::lod::LodChain;
use crate::render::passes::targets;
use std::sync::Arc;

/// Why the renderer cannot be built or used.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error(transparent)]
    Crowd(#[from] CountError),
    #[error(
        "the VAT is {width}×{height}×{layers} texels, more than this GPU allows ({max_side}² × {max_layers} layers); bake with a smaller --max-width or --fps"
    )]
    VatTooLarge {
        width: u32,
        height: u32,
        layers: u32,
        max_side: u32,
        max_layers: u32,
    },
    #[error("the image size must be between 1×1 and {max}×{max}, not {width}×{height}")]
    BadSize { width: u32, height: u32, max: u32 },
    #[error("the bone-texture technique cannot be built: {0}")]
    Bone(#[from] BoneError),
    #[error("{0}")]
    Scene(String),
    #[error("cannot count the exact visibility: {0}")]
    ExactVisibility(&'static str),
}

/// How to build a renderer.
#[derive(Clone, Debug)]
pub struct RendererConfig {
    pub format: wgpu::TextureFormat,
    pub width: u32,
    pub height: u32,
    pub count: u32,
    /// The clip the instances play with behaviour off (`None`: each its
    /// own); `Renderer::set_clip` changes it live.
    pub clip: Option<u32>,
    pub seed: u64,
    pub motion: Motion,
    /// Each clip's ground speed in model units per second of clip time
    /// (0 = animate in place).
    pub ground_speeds: Vec<f32>,
    /// The living crowd (off: the synchronized loops).
    pub behaviour: BehaviourSettings,
    /// GPU culling and LOD.
    pub cull: crate::crowd::cull::CullSettings,
    /// How the mesh levels are built.
    pub lod: crate::lod::LodOptions,
    /// The loaded model's levels, used when they were built with `lod`
    /// (else the renderer builds its own).
    pub lod_chain: Option<Arc<LodChain>>,
    /// The loaded model's impostor atlas layout (else the renderer plans
    /// its own).
    pub impostor: Option<Arc<crate::impostor::AtlasLayout>>,
    /// The sun's shadows.
    pub shadows: crate::crowd::shadow::ShadowSettings,
    /// Anti-aliasing and the velocity target.
    pub targets: targets::TargetOptions,
}

impl RendererConfig {
    /// The configuration that draws `loaded` with default behaviour settings.
    pub fn for_model(
        loaded: &crate::crowd::setup::Loaded,
        width: u32,
        height: u32,
        count: u32,
        seed: u64,
        format: wgpu::TextureFormat,
    ) -> Self {
        Self {
            format,
            width,
            height,
            count,
            clip: loaded.clip,
            seed,
            motion: loaded.motion,
            ground_speeds: loaded.ground_speeds.clone(),
            behaviour: BehaviourSettings::default(),
            cull: Default::default(),
            lod: Default::default(),
            lod_chain: Some(loaded.lod.clone()),
            impostor: Some(loaded.impostor.clone()),
            shadows: Default::default(),
            targets: Default::default(),
        }
    }
}
