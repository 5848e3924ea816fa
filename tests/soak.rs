//! A bounded soak run: frames of the living herd drawn headless on the
//! backend the tests use (lavapipe on CI), with the process's resident
//! memory sampled after a warm-up. It fails when memory grows by more than
//! the stated bound. On Mesa 22.3 lavapipe, binding the frame data as a
//! uniform buffer grew the process by about 0.3 MB a frame (the driver
//! recompiled the crowd shaders at every bind, inlining the uniform's
//! values, and kept every variant): this run then grew by hundreds of MB.

mod gpu_common;
use gpu_common as common;

use stampede::crowd::{BehaviourSettings, FrameSettings, Motion};
use stampede::render::headless::Headless;
use stampede::render::{RendererConfig, TechniqueKind};
use stampede::vat::{self, BakeOptions};

/// Frames before the first sample (pipelines, caches and pools settle).
const WARMUP: u32 = 150;
/// Frames measured per technique.
const FRAMES: u32 = 500;
/// The most the process may grow over the measured frames, in MB: far
/// below the ~150 MB that 500 frames leaked per technique before the fix,
/// and well above the allocator's noise.
const BOUND_MB: f64 = 32.0;

/// Resident memory of this process in MB (Linux), `None` elsewhere.
fn rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

#[test]
fn memory_stays_flat_over_many_frames() {
    let Some(gpu) = common::gpu_or_skip("soak") else {
        return;
    };
    if rss_mb().is_none() {
        eprintln!("SKIPPED soak: no /proc/self/status on this system");
        return;
    }
    let info = gpu.adapter.get_info();
    eprintln!("soak on {} ({:?})", info.name, info.backend);
    let model = stampede::assets::load_model("horse").expect("the horse loads");
    let vat = std::sync::Arc::new(
        vat::bake(
            &model,
            &BakeOptions {
                fps: 15.0,
                ..BakeOptions::default()
            },
        )
        .expect("the horse bakes"),
    );
    let speeds: Vec<f32> = (0..vat.clips.len())
        .map(|c| stampede::crowd::setup::estimate_ground_speed(&vat, c))
        .collect();
    let config = RendererConfig {
        format: stampede::render::headless::FORMAT,
        width: 48,
        height: 32,
        count: 20,
        seed: 5,
        motion: Motion::Track,
        ground_speeds: speeds,
        behaviour: BehaviourSettings::on(),
        cull: Default::default(),
        lod: Default::default(),
        clip: None,
        lod_chain: None,
        impostor: None,
        shadows: Default::default(),
        targets: Default::default(),
    };
    let mut view = Headless::new(gpu, &model, &vat, &config).expect("renderer");
    let mut frame = 0u32;
    let mut render = |view: &mut Headless, n: u32| {
        for _ in 0..n {
            let settings = FrameSettings {
                time: frame as f64 / 60.0,
                ..FrameSettings::default()
            };
            view.render(&settings).expect("frame renders");
            frame += 1;
        }
    };
    let mut report = Vec::new();
    for kind in [TechniqueKind::Vat, TechniqueKind::Skinning] {
        view.renderer.set_technique(kind).expect("technique builds");
        render(&mut view, WARMUP);
        let before = rss_mb().expect("rss");
        render(&mut view, FRAMES);
        let after = rss_mb().expect("rss");
        report.push(format!(
            "{kind}: {before:.0} → {after:.0} MB over {FRAMES} frames"
        ));
        assert!(
            after - before <= BOUND_MB,
            "{kind}: resident memory grew {:.1} MB over {FRAMES} frames (bound {BOUND_MB} MB): {before:.0} → {after:.0} MB",
            after - before
        );
    }
    eprintln!("soak: {}", report.join("; "));
}
