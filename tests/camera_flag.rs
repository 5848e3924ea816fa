//! `--camera` on the command line gives the same image as the same view set
//! on the renderer's camera in process (what the panel's orbit and zoom
//! change), and a different view from the opening one.

mod gpu_common;
use gpu_common as common;

use stampede::app::ViewerArgs;
use stampede::cli::OnOff;
use stampede::crowd::FrameSettings;
use stampede::crowd::setup::{ModelChoice, load};
use stampede::render::headless::{self, Headless, RgbaImage};
use stampede::render::{CameraSpec, RendererConfig};
use std::process::Command;

const SPEC: &str = "40,12,9";

fn screenshot(extra: &[&str], path: &std::path::Path) -> RgbaImage {
    let mut args = vec![
        "--headless",
        "--screenshot",
        path.to_str().unwrap(),
        "--count",
        "3",
        "--size",
        "160x96",
        "--time",
        "1.5",
        "--behaviour",
        "off",
    ];
    args.extend_from_slice(extra);
    let out = Command::new(env!("CARGO_BIN_EXE_stampede"))
        .args(&args)
        .env("RUST_LOG", "warn")
        .output()
        .expect("stampede runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    RgbaImage::load_png(path).expect("the screenshot reads back")
}

#[test]
fn camera_flag_matches_the_same_view_in_process() {
    let Some(gpu) = common::gpu_or_skip("camera flag") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("stampede-camera-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let from_cli = screenshot(&["--camera", SPEC], &dir.join("cli.png"));
    let opening = screenshot(&[], &dir.join("opening.png"));
    assert_ne!(from_cli, opening, "--camera changed nothing");

    // The same frame in process, the view set on the camera directly.
    let args = ViewerArgs {
        behaviour: OnOff::Off,
        ..ViewerArgs::default()
    };
    let loaded = load(&ModelChoice::Horse, args.fps, args.precision, None).expect("horse");
    let mut config = RendererConfig::for_model(&loaded, 160, 96, 3, args.seed, headless::FORMAT);
    config.behaviour = args.behaviour_settings();
    let mut view = Headless::new(gpu, &loaded.model, &loaded.vat, &config).expect("renderer");
    let settings = FrameSettings {
        time: 1.5,
        ..FrameSettings::default()
    };
    let spec: CameraSpec = SPEC.parse().unwrap();
    let opening_view = view.renderer.camera_at(settings.time, settings.playback);
    view.camera = opening_view;
    view.camera.yaw = 40f32.to_radians();
    view.camera.pitch = 12f32.to_radians();
    view.camera.distance = 9.0;
    assert_eq!(view.camera, spec.apply(opening_view));
    let in_process = view.render(&settings).expect("render");
    assert_eq!(
        from_cli, in_process,
        "--camera and the same view in process differ"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_camera_flag_is_refused_clearly() {
    let out = Command::new(env!("CARGO_BIN_EXE_stampede"))
        .args(["--headless", "--screenshot", "x.png", "--camera", "10,20"])
        .output()
        .expect("stampede runs");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("yaw,pitch,distance"), "{err}");
}
