//! Long uptime on the GPU: a tenth of a frame period changes the picture at
//! day 30 as much as at second 3. Scene time is f64 on the CPU and reaches
//! the shaders split and reduced per clip, lap and herd table; an f32 time
//! in seconds only moves in 1/8 s steps there, so both images came out
//! identical. (Where the herd is at day 30 is checked horse by horse in
//! tests/behaviour_gpu.rs; the reduction itself in crowd::scene_time.)

mod gpu_common;
use gpu_common as common;

use stampede::crowd::anim::HerdClips;
use stampede::crowd::herd::{Gait, Herd};
use stampede::crowd::setup::{Loaded, ModelChoice, load};
use stampede::crowd::{BehaviourSettings, FrameSettings};
use stampede::render::RendererConfig;
use stampede::render::headless::{self, Headless, RgbaImage};
use stampede::vat::Precision;

const SEED: u64 = 9;
const SIZE: (u32, u32) = (320, 200);
const DAY_30: f64 = 2_592_000.0;

fn view(choice: ModelChoice, behaviour: bool) -> Option<(Headless, Loaded)> {
    let gpu = common::gpu_or_skip("uptime")?;
    let prepared = load(&choice, 30.0, Precision::F16, None).expect("the model bakes");
    let mut config =
        RendererConfig::for_model(&prepared, SIZE.0, SIZE.1, 100, SEED, headless::FORMAT);
    if behaviour {
        config.behaviour = BehaviourSettings::on();
    }
    let view = Headless::new(gpu, &prepared.model, &prepared.vat, &config).expect("renderer");
    Some((view, prepared))
}

fn image(view: &mut Headless, time: f64) -> RgbaImage {
    view.render(&FrameSettings {
        time: time as _,
        ..FrameSettings::default()
    })
    .expect("render")
}

/// Pixels that differ at all between the images at `t` and a tenth of a
/// baked frame later (the camera fixed at its view of `t`).
fn changed_in_a_tenth_of_a_frame(view: &mut Headless, prepared: &Loaded, t: f64) -> usize {
    let dt = 0.1 / prepared.vat.clips[0].fps as f64;
    view.camera = view.renderer.camera_at(t as _, 1.0);
    let a = image(view, t);
    let b = image(view, t + dt);
    let background = &a.pixels[..4];
    assert!(
        a.pixels.chunks(4).any(|p| p != background),
        "blank image at {t}"
    );
    common::diff(&a, &b, 0).failed
}

/// At day 30 the pair differs in about as many pixels as at second 3 (within
/// a factor of 3 either way: the crowd is elsewhere on its loops), and not
/// in none.
fn assert_as_smooth(what: &str, early: usize, late: usize) {
    eprintln!("{what}: a tenth of a frame changes {early} pixels at 3 s, {late} at day 30");
    assert!(
        early > 20,
        "{what}: nothing moves even at 3 s ({early} pixels)"
    );
    assert!(
        late * 3 >= early && late <= early * 3,
        "{what}: a tenth of a frame changes {late} pixels at day 30 against {early} at 3 s"
    );
}

/// Behaviour off: the horses' ring track and the birds' circles, each
/// instance at its own clip rate.
#[test]
fn a_tenth_of_a_frame_shows_at_day_30_as_at_second_3_with_behaviour_off() {
    for choice in [ModelChoice::Horse, ModelChoice::Bird] {
        let Some((mut view, prepared)) = view(choice.clone(), false) else {
            return;
        };
        let early = changed_in_a_tenth_of_a_frame(&mut view, &prepared, 3.0);
        let late = changed_in_a_tenth_of_a_frame(&mut view, &prepared, DAY_30 + 0.5);
        assert_as_smooth(&choice.label(), early, late);
    }
}

/// Behaviour on, the herd: 3 s into a gallop at the start and 3 s into the
/// first gallop after day 30 (the same gait, so the same motion).
#[test]
fn a_tenth_of_a_frame_shows_at_day_30_as_at_second_3_in_the_herd() {
    let Some((mut view, prepared)) = view(ModelChoice::Horse, true) else {
        return;
    };
    let clips = HerdClips::find(&prepared.vat.clips, &prepared.ground_speeds).expect("gaits");
    let extent = prepared.vat.bounds.max - prepared.vat.bounds.min;
    let params = clips.params(
        SEED,
        &BehaviourSettings::on(),
        glam::Vec2::new(extent.x, extent.z),
    );
    let herd = Herd::new(params.clone(), 100);
    let segment = params.segment as f64;
    let gallop = |k: i64| herd.gait(k) == Gait::Gallop;
    assert!(gallop(0), "the herd sets off at a gallop");
    let mut k = (DAY_30 / segment).ceil() as i64;
    while !(gallop(k - 1) && gallop(k) && gallop(k + 1)) {
        k += 1;
    }
    let early = changed_in_a_tenth_of_a_frame(&mut view, &prepared, 3.0);
    let late = changed_in_a_tenth_of_a_frame(&mut view, &prepared, k as f64 * segment + 3.0);
    assert_as_smooth("herd", early, late);
}
