//! The window path: under X (CI runs tests in `xvfb-run`), the viewer starts,
//! renders 30 frames while its window is resized, and exits 0; and it
//! survives losing its GPU device.

mod common;

use std::ffi::OsStr;
use std::process::Command;

/// The viewer run with `args` (its log at info, wgpu's warnings only): it
/// must exit 0; returns its log.
fn run_viewer<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_stampede"))
        .args(args)
        .env("RUST_LOG", "info,wgpu_hal=error,wgpu_core=warn,naga=error")
        .output()
        .expect("run the stampede binary");
    let log = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.success(),
        "stampede exited with {}:\n{log}",
        output.status
    );
    log
}

#[test]
fn window_renders_frames_and_survives_resizes() {
    if !common::have_display() {
        return;
    }
    let log = run_viewer([
        "--count",
        "200",
        "--frames",
        "30",
        "--size",
        "640x400",
        "--resize-test",
        "--fps",
        "15",
    ]);
    assert!(
        log.contains("rendered 30 frames"),
        "the viewer did not report its frames:\n{log}"
    );
    assert!(
        log.contains("resize test: requesting"),
        "the window was not resized:\n{log}"
    );
}

/// The viewer destroys its own device at frame 5, rebuilds everything, says
/// so in one line and renders the rest of its frames.
#[test]
fn window_rebuilds_a_lost_device_and_carries_on() {
    if !common::have_display() {
        return;
    }
    let log = run_viewer([
        "--count",
        "50",
        "--frames",
        "12",
        "--size",
        "320x200",
        "--technique",
        "skinning",
        "--fps",
        "15",
        "--lose-device-at",
        "5",
    ]);
    assert!(!log.contains("panicked"), "a panic:\n{log}");
    assert!(
        log.contains("lose-device test: destroying the GPU device"),
        "the device was not destroyed:\n{log}"
    );
    assert_eq!(
        log.matches("rebuilt the device and renderer").count(),
        1,
        "one rebuild, said once:\n{log}"
    );
    assert!(
        log.contains("rendered 12 frames"),
        "the viewer did not carry on:\n{log}"
    );
}

/// A scene of several models in the window: drawn, and drawn again as the
/// same scene after the device is lost and rebuilt.
#[test]
fn window_shows_a_scene_and_rebuilds_it() {
    if !common::have_display() {
        return;
    }
    let log = run_viewer([
        "--model",
        "horse:40",
        "--model",
        "bird:30",
        "--frames",
        "10",
        "--size",
        "320x200",
        "--fps",
        "15",
        "--lose-device-at",
        "4",
    ]);
    assert!(!log.contains("panicked"), "a panic:\n{log}");
    assert_eq!(
        log.matches("a scene of 2 models: horse ×40, bird ×30")
            .count(),
        2,
        "the scene, then the same scene after the rebuild:\n{log}"
    );
    assert!(log.contains("rendered 10 frames"), "{log}");
}

/// The panel's scene list applied (`--test-scene` goes through the same
/// Apply): the scene is rebuilt as listed, a corrupt file named and left
/// out while the others run, and a device
/// lost afterwards rebuilds the new scene.
#[test]
fn window_applies_a_new_scene_list() {
    if !common::have_display() {
        return;
    }
    let Some(deer) = common::shared_model("QuaterniusDeer.gltf") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("stampede-window-scene-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let corrupt = dir.join("corrupt.glb");
    std::fs::write(&corrupt, b"glTF not really").expect("write");
    let log = run_viewer([
        "--model".to_string(),
        "horse:40".into(),
        "--model".into(),
        "bird:30".into(),
        "--frames".into(),
        "10".into(),
        "--size".into(),
        "320x200".into(),
        "--fps".into(),
        "15".into(),
        "--lose-device-at".into(),
        "6".into(),
        "--test-scene".into(),
        "bird:20".into(),
        "--test-scene".into(),
        format!("{}:10", deer.display()),
        "--test-scene".into(),
        format!("{}:5", corrupt.display()),
    ]);
    assert!(!log.contains("panicked"), "a panic:\n{log}");
    assert!(
        log.contains("a scene of 2 models: horse ×40, bird ×30"),
        "{log}"
    );
    let left_out = format!("left out of the scene: {}", corrupt.display());
    assert!(log.contains(&left_out), "the corrupt file is named:\n{log}");
    let new_scene = log
        .lines()
        .filter(|l| l.contains("a scene of 2 models: bird ×20, ") && l.contains(" ×10"))
        .count();
    assert_eq!(
        new_scene, 2,
        "the new list, then again after the rebuild:\n{log}"
    );
    assert!(log.contains("rendered 10 frames"), "{log}");
    let _ = std::fs::remove_dir_all(&dir);
}
