//! What the scene tests share: horses and birds baked once, a scene
//! renderer of them, and pictures with some models hidden.
#![allow(dead_code)]

use stampede::crowd::BehaviourSettings;
use stampede::crowd::FrameSettings;
use stampede::crowd::setup::{Loaded, ModelChoice, load};
use stampede::render::RendererConfig;
use stampede::render::headless::{Headless, RgbaImage};
use stampede::render::mixed::SceneModel;
use stampede::vat::Precision;

pub const SEED: u64 = 3;
pub const SIZE: (u32, u32) = (192, 108);

pub fn models() -> Vec<Loaded> {
    [ModelChoice::Horse, ModelChoice::Bird]
        .iter()
        .map(|c| load(c, 30.0, Precision::F16, None).expect("bakes"))
        .collect()
}

pub fn scene(
    gpu: std::sync::Arc<stampede::gpu::GpuContext>,
    loaded: &[Loaded],
    counts: &[u32],
) -> Headless {
    scene_with(gpu, loaded, counts, true)
}

pub fn scene_with(
    gpu: std::sync::Arc<stampede::gpu::GpuContext>,
    loaded: &[Loaded],
    counts: &[u32],
    shadows: bool,
) -> Headless {
    let behaviour = BehaviourSettings {
        enabled: false,
        ..Default::default()
    };
    scene_living(gpu, loaded, counts, shadows, behaviour)
}

/// The scene with `behaviour` (the other helpers' is off).
pub fn scene_living(
    gpu: std::sync::Arc<stampede::gpu::GpuContext>,
    loaded: &[Loaded],
    counts: &[u32],
    shadows: bool,
    behaviour: BehaviourSettings,
) -> Headless {
    let models: Vec<SceneModel<'_>> = loaded
        .iter()
        .zip(counts)
        .map(|(loaded, &count)| SceneModel { loaded, count })
        .collect();
    let mut config = RendererConfig::for_model(
        &loaded[0],
        SIZE.0,
        SIZE.1,
        counts[0],
        SEED,
        stampede::render::headless::FORMAT,
    );
    config.behaviour = behaviour;
    config.shadows.enabled = shadows;
    Headless::new_scene(gpu, &models, &config).expect("the scene's renderer")
}

/// The scene with the models of `hidden` (bit per model) not drawn.
pub fn picture(view: &mut Headless, hidden: u32, settings: &FrameSettings) -> RgbaImage {
    view.renderer.culler_mut().hidden_models = hidden;
    view.render(settings).expect("renders")
}

pub fn same_pixel(a: &RgbaImage, b: &RgbaImage, i: usize) -> bool {
    a.pixels[i * 4..i * 4 + 4] == b.pixels[i * 4..i * 4 + 4]
}
