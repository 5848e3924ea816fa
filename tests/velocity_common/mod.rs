//! What the velocity tests share: a horse crowd with a one-sample velocity
//! target and two frames a 60th of a second apart, the camera turning a
//! little between them.
#![allow(dead_code)]

use crate::gpu_common as common;
use glam::Mat4;
use stampede::crowd::motion::Aa;
use stampede::crowd::setup::{Loaded, ModelChoice, load};
use stampede::crowd::{BehaviourSettings, FrameSettings, FrameUniform};
use stampede::render::RendererConfig;
use stampede::render::headless::{self, Headless};
use stampede::render::passes::targets::TargetOptions;
use stampede::render::probes::picture::MotionImage;
use stampede::vat::Precision;

pub const SEED: u64 = 5;
pub const SIZE: (u32, u32) = (256, 144);
pub const DT: f64 = 1.0 / 60.0;

pub fn setup(count: u32, behaviour: bool) -> Option<(Headless, Loaded)> {
    let gpu = common::gpu_or_skip("velocity_gpu")?;
    let prepared = load(&ModelChoice::Horse, 30.0, Precision::F16, None).expect("the horse bakes");
    let mut config =
        RendererConfig::for_model(&prepared, SIZE.0, SIZE.1, count, SEED, headless::FORMAT);
    config.behaviour = BehaviourSettings {
        enabled: behaviour,
        ..Default::default()
    };
    // One sample per pixel: the depth can be read back, and each pixel's
    // velocity is one surface's.
    config.targets = TargetOptions {
        aa: Aa::Off,
        velocity: true,
        ..Default::default()
    };
    // No shadows: they do not move anything here and cost lavapipe time.
    config.shadows.enabled = false;
    let mut view = Headless::new(gpu, &prepared.model, &prepared.vat, &config).expect("renderer");
    view.camera = view.renderer.camera_at(3.0, 1.0);
    Some((view, prepared))
}

/// Draws two frames `DT` apart, the camera turning a little between them;
/// returns the two frames' uniforms and the second frame's motion.
pub fn two_frames(
    view: &mut Headless,
    settings: &FrameSettings,
) -> (FrameUniform, FrameUniform, MotionImage) {
    view.draw_frame(settings).expect("first frame");
    let before = view.renderer.last_frame.expect("a frame");
    // About 1.5 px of turn at the centre, and a step closer.
    view.camera.yaw += 0.01;
    view.camera.pitch += 0.004;
    view.camera.distance *= 0.99;
    let now = FrameSettings {
        time: settings.time + DT,
        ..*settings
    };
    view.draw_frame(&now).expect("second frame");
    let after = view.renderer.last_frame.expect("a frame");
    let motion = view
        .renderer
        .read_motion()
        .expect("read back")
        .expect("the targets have velocity");
    (before, after, motion)
}

pub fn mat(m: [[f32; 4]; 4]) -> Mat4 {
    Mat4::from_cols_array_2d(&m)
}
