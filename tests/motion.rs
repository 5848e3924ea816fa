//! `--motion`: a model from a file flies with the flock when asked (or, on
//! auto, when it has a flight clip), and walks otherwise.

mod gpu_common;
use gpu_common as common;

use stampede::crowd::setup::{ModelChoice, MotionChoice, load_with};
use stampede::crowd::{BehaviourSettings, FrameSettings, Motion};
use stampede::render::RendererConfig;
use stampede::render::data::behaviour::BehaviourKind;
use stampede::render::headless::{self, Headless};
use stampede::vat::Precision;
use std::path::PathBuf;

fn asset(name: &str) -> ModelChoice {
    ModelChoice::File(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("assets")
            .join(name),
    )
}

fn motion(choice: &ModelChoice, m: MotionChoice) -> Motion {
    load_with(choice, 10.0, Precision::F16, None, m)
        .expect("the model loads")
        .motion
}

#[test]
fn motion_follows_the_flag_and_the_clips() {
    let bird_file = asset("bird.glb");
    let horse_file = asset("horse.glb");
    // Auto: a file with Flap and Glide flies, the horse walks.
    assert_eq!(motion(&bird_file, MotionChoice::Auto), Motion::Flock);
    assert_eq!(motion(&horse_file, MotionChoice::Auto), Motion::Track);
    assert_eq!(
        motion(&ModelChoice::Bird, MotionChoice::Auto),
        Motion::Flock
    );
    // The flag wins.
    // On the ground, a bird has no walking clip: it stands in a field.
    assert_eq!(motion(&bird_file, MotionChoice::Ground), Motion::Stand);
    assert_eq!(motion(&horse_file, MotionChoice::Air), Motion::Flock);
}

#[test]
fn a_flying_file_joins_the_flock() {
    let Some(gpu) = common::gpu_or_skip("motion") else {
        return;
    };
    let loaded = load_with(
        &asset("bird.glb"),
        10.0,
        Precision::F16,
        None,
        MotionChoice::Air,
    )
    .expect("the bird file loads");
    let mut config = RendererConfig::for_model(&loaded, 64, 48, 30, 1, headless::FORMAT);
    config.behaviour = BehaviourSettings::on();
    let mut view = Headless::new(gpu, &loaded.model, &loaded.vat, &config).expect("renderer");
    view.render(&FrameSettings {
        time: 0.5,
        ..FrameSettings::default()
    })
    .expect("a frame");
    assert!(
        matches!(view.renderer.behaviour().kind(), BehaviourKind::Flock(..)),
        "{:?}",
        view.renderer.behaviour().kind()
    );
    assert!(view.renderer.behaviour().active(), "the flock draws");
    // Flyers are placed above the ground: the frame's field is the flock's.
    let frame = view.renderer.last_frame.expect("a frame was drawn");
    assert_eq!(frame.motion, Motion::Flock as u32);
}
