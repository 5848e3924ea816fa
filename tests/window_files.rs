//! The window's file paths, under X (CI runs tests in `xvfb-run`): a model
//! file dropped on the window is loaded (a bad one leaves the previous model
//! running and shows why), and F12 saves the 3D view as a PNG in the folder
//! the viewer was started from. A model that loads joins the recent files
//! (kept under `STAMPEDE_CONFIG_DIR` here).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn viewer(dir: &Path, extra: &[&str]) -> (Output, String) {
    let mut args = vec![
        "--count", "20", "--frames", "8", "--size", "320x200", "--fps", "10",
    ];
    args.extend_from_slice(extra);
    let output = Command::new(env!("CARGO_BIN_EXE_stampede"))
        .args(&args)
        .current_dir(dir)
        // The recent files list goes here, never into the user's home.
        .env("STAMPEDE_CONFIG_DIR", dir.join("config"))
        .env("RUST_LOG", "info,wgpu_hal=error,wgpu_core=warn,naga=error")
        .output()
        .expect("run the stampede binary");
    let log = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.success(),
        "stampede exited with {}:\n{log}",
        output.status
    );
    assert!(
        log.contains("rendered 8 frames"),
        "the viewer stopped early:\n{log}"
    );
    (output, log)
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stampede-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp folder");
    dir
}

#[test]
fn a_dropped_model_is_loaded_and_a_bad_one_is_refused() {
    if !common::have_display() {
        return;
    }
    let dir = temp_dir("drop");
    let bird = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/bird.glb");
    let (_, log) = viewer(&dir, &["--test-drop", bird.to_str().unwrap()]);
    assert!(log.contains(&format!("loaded {}", bird.display())), "{log}");
    // A model that loaded is added to the recent files.
    let recent = dir.join("config/recent.txt");
    let listed = || std::fs::read_to_string(&recent).unwrap_or_default();
    assert_eq!(
        listed().lines().collect::<Vec<_>>(),
        [bird.to_str().unwrap()]
    );

    let bad = dir.join("broken.glb");
    std::fs::write(&bad, b"glTF not really").unwrap();
    let (_, log) = viewer(&dir, &["--test-drop", bad.to_str().unwrap()]);
    assert!(log.contains("could not load the model"), "{log}");
    assert!(
        log.contains("broken.glb"),
        "the error names the file:\n{log}"
    );
    assert!(!log.contains("loaded "), "nothing else was loaded:\n{log}");
    // One that failed is not.
    assert_eq!(
        listed().lines().collect::<Vec<_>>(),
        [bird.to_str().unwrap()]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn f12_saves_the_view_where_the_viewer_started() {
    if !common::have_display() {
        return;
    }
    let dir = temp_dir("f12");
    let (_, log) = viewer(&dir, &["--test-save-view"]);
    let saved = dir.join("stampede-1.png");
    assert!(saved.exists(), "no {}:\n{log}", saved.display());
    assert!(log.contains("saved the view to"), "{log}");
    let img = stampede::render::headless::RgbaImage::load_png(&saved).expect("a PNG");
    // The 3D view beside the panel: the window's height, at most its width.
    assert_eq!(img.height, 200);
    assert!(img.width >= 80 && img.width <= 320, "{}", img.width);
    // The 3D view, not a cleared target: grass (green over red and blue)
    // and horses (red over green over blue) both take a good part of it.
    let share = |f: &dyn Fn(&[u8]) -> bool| {
        img.pixels.chunks(4).filter(|p| f(p)).count() as f64 / (img.width * img.height) as f64
    };
    let grass = share(&|p| p[1] > p[0] && p[1] > p[2]);
    let horse = share(&|p| p[0] as u32 > p[1] as u32 + 20 && p[1] > p[2]);
    assert!(
        grass > 0.1 && horse > 0.05,
        "grass {:.1} %, horse {:.1} %",
        grass * 100.0,
        horse * 100.0
    );
    let _ = std::fs::remove_dir_all(&dir);
}
