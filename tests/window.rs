//! The window path: under X (CI runs tests in `xvfb-run`), the viewer starts,
//! renders 30 frames while its window is resized, and exits 0; and it
//! survives losing its GPU device.

mod common;

use std::process::Command;

#[test]
fn window_renders_frames_and_survives_resizes() {
    if !common::have_display() {
        return;
    }
    let output = Command::new(env!("CARGO_BIN_EXE_stampede"))
        .args([
            "--count",
            "200",
            "--frames",
            "30",
            "--size",
            "640x400",
            "--resize-test",
            "--fps",
            "15",
        ])
        .env("RUST_LOG", "info,wgpu_hal=error,wgpu_core=warn,naga=error")
        .output()
        .expect("run the stampede binary");
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "stampede exited with {}:\n{log}",
        output.status
    );
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
    let output = Command::new(env!("CARGO_BIN_EXE_stampede"))
        .args([
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
        ])
        .env("RUST_LOG", "info,wgpu_hal=error,wgpu_core=warn,naga=error")
        .output()
        .expect("run the stampede binary");
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "stampede exited with {}:\n{log}",
        output.status
    );
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
    let output = Command::new(env!("CARGO_BIN_EXE_stampede"))
        .args([
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
        ])
        .env("RUST_LOG", "info,wgpu_hal=error,wgpu_core=warn,naga=error")
        .output()
        .expect("run the stampede binary");
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "stampede exited with {}:\n{log}",
        output.status
    );
    assert!(!log.contains("panicked"), "a panic:\n{log}");
    assert_eq!(
        log.matches("a scene of 2 models: horse ×40, bird ×30")
            .count(),
        2,
        "the scene, then the same scene after the rebuild:\n{log}"
    );
    assert!(log.contains("rendered 10 frames"), "{log}");
}
