//! The window path: under X (CI runs tests in `xvfb-run`), the viewer starts,
//! renders 30 frames while its window is resized, and exits 0.

use std::process::Command;

#[test]
fn window_renders_frames_and_survives_resizes() {
    if std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none() {
        if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") {
            panic!("window test: no DISPLAY on CI; run the tests under xvfb-run");
        }
        eprintln!(
            "SKIPPED window test: no DISPLAY (run under xvfb-run -a -s \"-screen 0 1280x720x24\")"
        );
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
