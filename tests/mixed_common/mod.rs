//! What the scene tests share: horses and birds baked once, a scene
//! renderer of them, and pictures with some models hidden.
#![allow(dead_code)]

use stampede::crowd::BehaviourSettings;
use stampede::crowd::FrameSettings;
use stampede::crowd::setup::{Loaded, ModelChoice, load};
use stampede::render::RendererConfig;
use stampede::render::data::models::SceneModel;
use stampede::render::headless::{Headless, RgbaImage};
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
    let config = scene_config(loaded, counts, shadows, behaviour);
    scene_configured(gpu, loaded, counts, &config)
}

/// The helpers' configuration: `SIZE`, `SEED`, no splats (each model's
/// counts per level and its impostors are checked against the CPU's cull,
/// and the splats, tests/splat_gpu.rs, are in no model's counts).
pub fn scene_config(
    loaded: &[Loaded],
    counts: &[u32],
    shadows: bool,
    behaviour: BehaviourSettings,
) -> RendererConfig {
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
    config.cull.splats = false;
    config
}

/// The scene of `loaded`, `counts` of each, drawn as `config` says.
pub fn scene_configured(
    gpu: std::sync::Arc<stampede::gpu::GpuContext>,
    loaded: &[Loaded],
    counts: &[u32],
    config: &RendererConfig,
) -> Headless {
    let models: Vec<SceneModel<'_>> = loaded
        .iter()
        .zip(counts)
        .map(|(loaded, &count)| SceneModel { loaded, count })
        .collect();
    Headless::from_scene(gpu, &models, config).expect("the scene's renderer")
}

/// The scene with the models of `hidden` (bit per model) not drawn.
pub fn picture(view: &mut Headless, hidden: u32, settings: &FrameSettings) -> RgbaImage {
    view.renderer.culler_mut().hidden_models = hidden;
    view.render(settings).expect("renders")
}

pub fn same_pixel(a: &RgbaImage, b: &RgbaImage, i: usize) -> bool {
    a.pixels[i * 4..i * 4 + 4] == b.pixels[i * 4..i * 4 + 4]
}

/// Where instance `inst` of model `m` (its table `entry`) runs on its loop
/// in the frame `f` as its model sees it, in the scene's field.
pub fn looped(
    loaded: &[Loaded],
    m: usize,
    entry: &stampede::crowd::scene::CrowdModelGpu,
    inst: &stampede::crowd::Instance,
    f: &stampede::crowd::FrameUniform,
) -> stampede::crowd::placement::Placement {
    let (clip, _) = stampede::crowd::instance_clip_time(inst, f, &loaded[m].vat.clips);
    let mut p = stampede::crowd::placement::loop_placement(inst, f, loaded[m].ground_speeds[clip]);
    p.origin += entry.offset();
    p
}

/// Every instance of the scene `view` last drew, placed by `place` (its
/// model, its table entry, its index in the model, the instance, the frame
/// as its model sees it) and culled by the CPU twin of the cull pass: the
/// count in each region of the visible list, and how many were culled.
pub fn cpu_cull(
    view: &Headless,
    mut place: impl FnMut(
        usize,
        &stampede::crowd::scene::CrowdModelGpu,
        u32,
        &stampede::crowd::Instance,
        &stampede::crowd::FrameUniform,
    ) -> stampede::crowd::placement::Placement,
) -> (Vec<u32>, u32) {
    let renderer = &view.renderer;
    let uniform = renderer.culler().last_uniform().expect("culled");
    let frame = renderer.last_frame.expect("a frame");
    let scene = renderer.scene();
    let mut cpu = vec![0u32; renderer.culler().regions().regions()];
    let mut culled = 0;
    // The table as written for the frame: each model's drawn instances
    // (all of them unless a technique's cap is shared out).
    let written = renderer.crowd().models_written();
    assert_eq!(
        written.len(),
        scene.table.len(),
        "the scene's table is written"
    );
    for (m, entry) in written.iter().enumerate() {
        let f = entry.frame_for(&frame);
        let model = &uniform.models[m];
        let sphere = glam::Vec3::from_slice(&model.sphere[..3]);
        for local in 0..entry.drawn() {
            let inst = stampede::crowd::generate(
                stampede::render::data::crowd_buffer::scene_seed(SEED, m),
                local,
            );
            let p = place(m, entry, local, &inst, &f);
            let centre = p.to_world(sphere, inst.scale);
            match uniform.cull_model(model, centre, model.sphere[3] * inst.scale, inst.scale) {
                Some(bits) => cpu[model.region_of(bits) as usize] += 1,
                None => culled += 1,
            }
        }
    }
    (cpu, culled)
}

/// The cull pass's count in each region of the last frame, read back,
/// against [`cpu_cull`]'s with `place`: they must be equal (`name` says
/// where). Returns the lists read back, the CPU's counts and how many it
/// culled.
pub fn assert_cull_matches(
    view: &Headless,
    gpu: &stampede::gpu::GpuContext,
    name: &str,
    place: impl FnMut(
        usize,
        &stampede::crowd::scene::CrowdModelGpu,
        u32,
        &stampede::crowd::Instance,
        &stampede::crowd::FrameUniform,
    ) -> stampede::crowd::placement::Placement,
) -> (stampede::render::passes::cull::VisibleLists, Vec<u32>, u32) {
    let lists = view.renderer.culler().read_lists(gpu).expect("read back");
    let (cpu, culled) = cpu_cull(view, place);
    let gpu_counts: Vec<u32> = (0..view.renderer.culler().regions().regions())
        .map(|r| lists.args[r * 5 + 1])
        .collect();
    eprintln!("{name}: per region GPU {gpu_counts:?}, CPU {cpu:?}, {culled} culled");
    assert_eq!(gpu_counts, cpu, "{name}");
    (lists, cpu, culled)
}
