//! The GL backend draws what Vulkan draws. wgpu's GL backend takes a
//! texture's view dimension from its layer count, so a one-layer texture
//! read as an array (the VAT, the shadow maps with one cascade, a model's
//! base colours) was bound as a plain 2D texture and the crowd silently
//! vanished; `gpu::array_layers` gives such textures a spare layer there.
//! The impostors met two more: a 2D view of an array's layer other than
//! the first samples the first (the atlas's mip levels were black), and
//! GL's `%` of a negative integer differs from WGSL's (the atlas cell was
//! chosen half a turn away). Each case renders the same herd on both
//! backends of this machine's driver and compares the pictures (and that
//! the crowd is in them). The exact visibility count, which GL's
//! conservative occlusion queries would overstate, is refused there.

mod gpu_common;
use gpu_common as common;

use stampede::crowd::cull::CullSettings;
use stampede::crowd::motion::Aa;
use stampede::crowd::setup::{ModelChoice, load};
use stampede::crowd::{BehaviourSettings, FrameSettings};
use stampede::gpu::GpuContext;
use stampede::render::headless::{self, Headless, RgbaImage};
use stampede::render::passes::targets::TargetOptions;
use stampede::render::{RendererConfig, TechniqueKind};
use stampede::vat::Precision;
use std::sync::Arc;

const SIZE: (u32, u32) = (320, 180);

/// The herd drawn with `technique` at `precision`, with one shadow
/// cascade, and the same view with the crowd hidden.
fn render(
    gpu: &Arc<GpuContext>,
    technique: TechniqueKind,
    precision: Precision,
) -> (RgbaImage, RgbaImage) {
    render_with(gpu, technique, precision, TargetOptions::default())
}

fn render_with(
    gpu: &Arc<GpuContext>,
    technique: TechniqueKind,
    precision: Precision,
    targets: TargetOptions,
) -> (RgbaImage, RgbaImage) {
    let loaded = load(&ModelChoice::Horse, 15.0, precision, None).expect("horse");
    let mut config = RendererConfig::for_model(&loaded, SIZE.0, SIZE.1, 20, 1, headless::FORMAT);
    config.clip = None;
    config.behaviour = BehaviourSettings::on();
    config.shadows.cascades = 1;
    config.targets = targets;
    let mut view =
        Headless::new(gpu.clone(), &loaded.model, &loaded.vat, &config).expect("renderer");
    view.renderer.set_technique(technique).expect("technique");
    let settings = FrameSettings {
        time: 2.0,
        ..FrameSettings::default()
    };
    view.camera = view.renderer.camera_at(settings.time, 1.0);
    // TAA's picture: the frames of a jitter cycle at the time, the herd
    // galloping into it (motion vectors, reprojection and all).
    if targets.aa == Aa::Taa {
        for k in (1..=16).rev() {
            let earlier = FrameSettings {
                time: settings.time - k as f64 / 60.0,
                ..settings
            };
            view.draw_frame(&earlier).expect("frame");
        }
    }
    let shown = view.render(&settings).expect("render");
    view.renderer.hide_crowd = true;
    let hidden = view.render(&settings).expect("render");
    (shown, hidden)
}

#[test]
fn gl_draws_the_crowd_as_vulkan_does() {
    // On CI a missing GL adapter fails the test (`.ci/run` installs
    // Mesa's EGL).
    let Some(gl) = common::backend_or_skip("gl_backend (GL)", wgpu::Backends::GL) else {
        return;
    };
    let Some(vulkan) = common::gpu_or_skip("gl_backend") else {
        return;
    };
    assert_eq!(gl.info.backend, wgpu::Backend::Gl);
    for (technique, precision) in [
        (TechniqueKind::Vat, Precision::F16),
        (TechniqueKind::Vat, Precision::Packed),
        (TechniqueKind::Skinning, Precision::F16),
    ] {
        let what = format!("{technique:?} {precision:?}");
        let (on_gl, gl_hidden) = render(&gl, technique, precision);
        let (on_vulkan, _) = render(&vulkan, technique, precision);
        let crowd = common::diff(&on_gl, &gl_hidden, 8);
        let share = crowd.failed as f64 / (SIZE.0 * SIZE.1) as f64;
        let d = common::diff(&on_gl, &on_vulkan, 24);
        eprintln!(
            "{what}: crowd {:.1} % of the GL picture; GL vs Vulkan mean {:.3}, {} pixels off",
            share * 100.0,
            d.mean,
            d.failed
        );
        assert!(
            share > 0.2,
            "{what}: the crowd covers {:.2} % on GL",
            share * 100.0
        );
        // Measured: mean 0.003-0.004, 1 to 3 pixels of 57,600.
        assert!(
            d.mean < 0.1 && d.failed < 60,
            "{what}: GL and Vulkan differ (mean {:.3}, {} pixels)",
            d.mean,
            d.failed
        );
    }
}

/// TAA (the velocity target, the float scene colour, the resolve and its
/// history) resolves on GL as on Vulkan.
#[test]
fn gl_resolves_taa_as_vulkan_does() {
    let Some(gl) = common::backend_or_skip("gl_backend TAA (GL)", wgpu::Backends::GL) else {
        return;
    };
    let Some(vulkan) = common::gpu_or_skip("gl_backend TAA") else {
        return;
    };
    let taa = TargetOptions {
        aa: Aa::Taa,
        velocity: false,
        ..Default::default()
    };
    let (on_gl, gl_hidden) = render_with(&gl, TechniqueKind::Vat, Precision::F16, taa);
    let (on_vulkan, _) = render_with(&vulkan, TechniqueKind::Vat, Precision::F16, taa);
    let crowd = common::diff(&on_gl, &gl_hidden, 8);
    let share = crowd.failed as f64 / (SIZE.0 * SIZE.1) as f64;
    let d = common::diff(&on_gl, &on_vulkan, 24);
    eprintln!(
        "TAA: crowd {:.1} % of the GL picture; GL vs Vulkan mean {:.3}, {} pixels off",
        share * 100.0,
        d.mean,
        d.failed
    );
    assert!(
        share > 0.2,
        "TAA: the crowd covers {:.2} % on GL",
        share * 100.0
    );
    assert!(
        d.mean < 0.1 && d.failed < 60,
        "TAA: GL and Vulkan differ (mean {:.3}, {} pixels)",
        d.mean,
        d.failed
    );
}

/// The far field's impostors on GL as on Vulkan: every horse an impostor
/// close up (the atlas's cells: GL's remainder of a negative integer chose
/// the cell half a turn away, a horse seen from behind), and a herd far off
/// through the atlas's mip levels (wgpu's GL backend cannot bind a 2D view
/// of any layer of an array but the first: each level's binding failed with
/// an error and the far impostors were black squares).
#[test]
fn gl_draws_impostors_as_vulkan_does() {
    let Some(gl) = common::backend_or_skip("gl_backend impostors (GL)", wgpu::Backends::GL) else {
        return;
    };
    let Some(vulkan) = common::gpu_or_skip("gl_backend impostors") else {
        return;
    };
    let loaded = load(&ModelChoice::Horse, 15.0, Precision::F16, None).expect("horse");
    let settings = FrameSettings {
        time: 2.0,
        ..FrameSettings::default()
    };
    let render = |gpu: &Arc<GpuContext>, count: u32, impostor_px: f32, distance: f32| {
        let mut config =
            RendererConfig::for_model(&loaded, SIZE.0, SIZE.1, count, 1, headless::FORMAT);
        config.clip = None;
        config.behaviour = BehaviourSettings::on();
        config.shadows.cascades = 1;
        let mut view =
            Headless::new(gpu.clone(), &loaded.model, &loaded.vat, &config).expect("renderer");
        view.renderer.ensure_impostors().expect("the atlas");
        view.renderer.set_cull_settings(CullSettings {
            impostor_px,
            ..CullSettings::default()
        });
        let mut camera = view.renderer.camera_at(settings.time, 1.0);
        camera.distance *= distance;
        view.camera = camera;
        let shown = view.render(&settings).expect("render");
        let impostors = view.renderer.wait_for_cull_stats().impostors();
        view.renderer.hide_crowd = true;
        let hidden = view.render(&settings).expect("render");
        (shown, hidden, impostors)
    };
    for (what, count, impostor_px, distance) in [
        ("close, every horse an impostor", 20, 256.0, 1.0),
        ("further off, through the mip levels", 400, 64.0, 1.5),
    ] {
        let (on_gl, gl_hidden, impostors) = render(&gl, count, impostor_px, distance);
        let (on_vulkan, _, vulkan_impostors) = render(&vulkan, count, impostor_px, distance);
        // The same rule on the same numbers; a horse whose sphere lands on
        // the switch's edge may round either way on the two backends.
        assert!(
            impostors.abs_diff(vulkan_impostors) <= 2,
            "{what}: {impostors} impostors on GL, {vulkan_impostors} on Vulkan"
        );
        assert!(
            impostors * 2 > count,
            "{what}: {impostors} of {count} impostors"
        );
        let crowd = common::diff(&on_gl, &gl_hidden, 8);
        let d = common::diff(&on_gl, &on_vulkan, 24);
        eprintln!(
            "{what}: {impostors} impostors, crowd {} pixels on GL; GL vs Vulkan mean {:.3}, {} pixels off",
            crowd.failed, d.mean, d.failed
        );
        assert!(
            crowd.failed > 200,
            "{what}: the crowd covers {} pixels on GL",
            crowd.failed
        );
        assert!(
            d.mean < 0.1 && d.failed * 20 < crowd.failed,
            "{what}: GL and Vulkan differ (mean {:.3}, {} pixels of the crowd's {})",
            d.mean,
            d.failed,
            crowd.failed
        );
    }
}

/// wgpu's GL backend makes occlusion queries ANY_SAMPLES_PASSED_CONSERVATIVE,
/// which may say a sample passed where none did: the exact visibility count
/// would call hidden instances shown, so GL refuses it and says why.
#[test]
fn gl_refuses_the_exact_visibility_count() {
    let Some(gl) = common::backend_or_skip("gl_backend exact visibility", wgpu::Backends::GL)
    else {
        return;
    };
    let loaded = load(&ModelChoice::Horse, 15.0, Precision::F16, None).expect("horse");
    let mut config = RendererConfig::for_model(&loaded, SIZE.0, SIZE.1, 200, 1, headless::FORMAT);
    config.clip = None;
    config.targets = TargetOptions {
        aa: Aa::Msaa,
        keep_depth: true,
        ..Default::default()
    };
    let mut view = Headless::new(gl, &loaded.model, &loaded.vat, &config).expect("renderer");
    view.render(&FrameSettings::default()).expect("render");
    let err = view.exact_visibility().expect_err("refused on GL");
    assert!(err.to_string().contains("GL backend"), "{err}");
}
