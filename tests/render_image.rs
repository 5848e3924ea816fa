//! Image tests of the headless renderer: a fixed scene against a reference
//! PNG, and interpolation between baked frames visible in the picture.

mod gpu_common;
use gpu_common as common;

use stampede::Model;
use stampede::crowd::{FrameSettings, Motion};
use stampede::render::RendererConfig;
use stampede::render::headless::{Headless, RgbaImage};
use stampede::vat::{self, BakeOptions};

const SIZE: (u32, u32) = (512, 320);

/// The renderer, the snapshot name, the default clip and clip 0's frame rate.
fn setup() -> Option<(Headless, String, u32, f32)> {
    let gpu = common::gpu_or_skip("render_image")?;
    let path = common::test_model_path();
    let model = Model::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let vat = std::sync::Arc::new(
        vat::bake(&model, &BakeOptions::default()).expect("the test model bakes"),
    );
    let clip = stampede::crowd::setup::default_clip(&vat) as usize;
    let speeds: Vec<f32> = (0..vat.clips.len())
        .map(|c| stampede::crowd::setup::estimate_ground_speed(&vat, c))
        .collect();
    let config = RendererConfig {
        format: stampede::render::headless::FORMAT,
        width: SIZE.0,
        height: SIZE.1,
        count: 64,
        seed: 7,
        motion: Motion::Track,
        ground_speeds: speeds,
        behaviour: Default::default(),
        cull: Default::default(),
        lod: Default::default(),
        clip: Some(0),
        lod_chain: None,
        impostor: None,
        shadows: Default::default(),
        targets: Default::default(),
    };
    let fps = vat.clips[0].fps;
    let view = Headless::new(gpu, &model, &vat, &config).expect("renderer builds");
    Some((
        view,
        format!("crowd-{}", model.name().to_lowercase()),
        clip as u32,
        fps,
    ))
}

fn settings(time: f64) -> FrameSettings {
    FrameSettings {
        time,
        ..FrameSettings::default()
    }
}

#[test]
fn fixed_scene_matches_reference() {
    let Some((mut view, name, clip, _)) = setup() else {
        return;
    };
    view.renderer.set_clip(0, Some(clip));
    let image = view.render(&settings(1.5)).expect("render");
    // A real picture, not a cleared target: sky at the top, ground below.
    let px = |x: u32, y: u32| &image.pixels[((y * image.width + x) * 4) as usize..][..3];
    let (sky, ground) = (px(256, 5), px(256, 315));
    assert!(sky[2] > sky[0], "the top should be blue sky, got {sky:?}");
    assert!(
        ground[1] > ground[2],
        "the bottom should be grass, got {ground:?}"
    );
    common::check_snapshot(&name, &image, 1.0, 0.005);
}

fn changed(a: &RgbaImage, b: &RgbaImage) -> usize {
    common::diff(a, b, 8).failed
}

#[test]
fn interpolation_shows_in_between_poses() {
    let Some((mut view, _, _, fps)) = setup() else {
        return;
    };
    // Everyone in step and in place, so only the pose changes with time.
    let base = FrameSettings {
        spread: 0.0,
        stride: 0.0,
        ..FrameSettings::default()
    };
    view.renderer.set_clip(0, Some(0));
    let at = |view: &mut Headless, t: f32, interpolate: bool| {
        view.render(&FrameSettings {
            time: t as f64,
            interpolate,
            ..base
        })
        .expect("render")
    };
    let dt = 1.0 / fps;
    let f0 = at(&mut view, 0.0, true);
    let f1 = at(&mut view, dt, true);
    let mid = at(&mut view, 0.4 * dt, true);
    let nearest = at(&mut view, 0.4 * dt, false);
    let (to0, to1, neighbours) = (changed(&mid, &f0), changed(&mid, &f1), changed(&f0, &f1));
    eprintln!(
        "changed pixels: mid vs f0 {to0}, mid vs f1 {to1}, f0 vs f1 {neighbours}, nearest vs f0 {}",
        changed(&nearest, &f0)
    );
    assert!(
        neighbours > 50,
        "neighbouring frames should differ visibly ({neighbours} pixels)"
    );
    assert!(
        to0 > 10 && to1 > 10,
        "the in-between image should differ from both neighbours ({to0}, {to1})"
    );
    // Without interpolation, 0.4 frames shows frame 0 (every speed is within ±6%).
    assert!(
        changed(&nearest, &f0) * 4 < to0,
        "nearest-frame playback should match frame 0"
    );
}
