//! Helpers shared by the GPU tests.
#![allow(dead_code)]

use stampede::gpu::GpuContext;
use std::path::PathBuf;
use std::sync::Arc;

/// A headless device, or `None` (with the reason printed) when this machine
/// has none. On CI (`CI=true`) a missing adapter fails the test instead.
pub fn gpu_or_skip(test: &str) -> Option<Arc<GpuContext>> {
    match GpuContext::headless() {
        Ok(gpu) => Some(gpu),
        Err(e) => {
            if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") {
                panic!("{test}: no GPU on CI: {e}");
            }
            eprintln!("SKIPPED {test}: {e}");
            None
        }
    }
}

/// The model the GPU tests draw: the project's horse when it exists, else the Fox.
pub fn test_model_path() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let horse = root.join("assets/horse.glb");
    if horse.exists() { horse } else { fox_path() }
}

pub fn fox_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/models/Fox.glb")
}

use stampede::render::headless::RgbaImage;

/// How two images differ.
#[derive(Debug)]
pub struct Diff {
    /// Mean absolute channel difference, 0..255.
    pub mean: f64,
    /// Pixels whose largest channel difference exceeds the threshold.
    pub failed: usize,
    pub image: RgbaImage,
}

pub fn diff(a: &RgbaImage, b: &RgbaImage, threshold: u8) -> Diff {
    assert_eq!(
        (a.width, a.height),
        (b.width, b.height),
        "image sizes differ"
    );
    let mut sum = 0u64;
    let mut failed = 0;
    let mut pixels = Vec::with_capacity(a.pixels.len());
    for (pa, pb) in a.pixels.chunks(4).zip(b.pixels.chunks(4)) {
        let d: Vec<u8> = pa
            .iter()
            .zip(pb)
            .take(3)
            .map(|(x, y)| x.abs_diff(*y))
            .collect();
        sum += d.iter().map(|&x| x as u64).sum::<u64>();
        let worst = d.iter().copied().max().unwrap_or(0);
        if worst > threshold {
            failed += 1;
        }
        pixels.extend([
            worst.saturating_mul(4),
            worst.saturating_mul(4),
            worst.saturating_mul(4),
            255,
        ]);
    }
    Diff {
        mean: sum as f64 / (a.pixels.len() / 4 * 3) as f64,
        failed,
        image: RgbaImage {
            width: a.width,
            height: a.height,
            pixels,
        },
    }
}

/// Compares `actual` with `tests/snapshots/{name}.png` (style.md): a mean
/// error limit plus a failed-pixel budget. On failure writes `-actual` and
/// `-difference` PNGs next to it. `UPDATE_SNAPSHOTS=1` rewrites the reference.
pub fn check_snapshot(name: &str, actual: &RgbaImage, mean_limit: f64, failed_budget: f64) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let reference = dir.join(format!("{name}.png"));
    let update = std::env::var("UPDATE_SNAPSHOTS").is_ok_and(|v| !v.is_empty() && v != "0");
    if update {
        std::fs::create_dir_all(&dir).expect("create tests/snapshots");
        actual.save_png(&reference).expect("write the reference");
        eprintln!("updated {}", reference.display());
        return;
    }
    let expected = match RgbaImage::load_png(&reference) {
        Ok(img) => img,
        Err(e) => {
            let out = dir.join(format!("{name}-actual.png"));
            let _ = actual.save_png(&out);
            panic!(
                "no reference image ({e}); wrote {}; run with UPDATE_SNAPSHOTS=1 to accept it",
                out.display()
            );
        }
    };
    let size_ok = (expected.width, expected.height) == (actual.width, actual.height);
    let d = size_ok.then(|| diff(&expected, actual, 24));
    let budget = (failed_budget * (actual.width * actual.height) as f64) as usize;
    let ok = d
        .as_ref()
        .is_some_and(|d| d.mean <= mean_limit && d.failed <= budget);
    if !ok {
        let actual_path = dir.join(format!("{name}-actual.png"));
        let diff_path = dir.join(format!("{name}-difference.png"));
        let _ = actual.save_png(&actual_path);
        if let Some(d) = &d {
            let _ = d.image.save_png(&diff_path);
        }
        panic!(
            "{name} differs from {}: {} (limits: mean {mean_limit}, {budget} failed pixels); wrote {} and {}",
            reference.display(),
            d.map_or("size differs".to_string(), |d| format!(
                "mean error {:.3}, {} failed pixels",
                d.mean, d.failed
            )),
            actual_path.display(),
            diff_path.display()
        );
    }
}
