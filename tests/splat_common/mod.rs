//! What the splat tests share: a horse crowd's view, the frame drawn and
//! its counts, the far camera, where the crowd's pictures differ.
// Each test file uses a part.
#![allow(dead_code)]

use crate::gpu_common;
use stampede::crowd::BehaviourSettings;
use stampede::crowd::FrameSettings;
use stampede::crowd::cull::CullSettings;
use stampede::crowd::motion::Aa;
use stampede::crowd::setup::{Loaded, ModelChoice, load};
use stampede::render::RendererConfig;
use stampede::render::headless::{self, Headless, RgbaImage};
use stampede::vat::Precision;

pub const SEED: u64 = 5;

pub fn view(count: u32, size: (u32, u32), aa: Aa, velocity: bool) -> Option<(Headless, Loaded)> {
    let gpu = gpu_common::gpu_or_skip("splat")?;
    Some(view_on(gpu, count, size, aa, velocity))
}

/// [`view`] on `gpu`.
pub fn view_on(
    gpu: std::sync::Arc<stampede::gpu::GpuContext>,
    count: u32,
    size: (u32, u32),
    aa: Aa,
    velocity: bool,
) -> (Headless, Loaded) {
    let loaded = load(&ModelChoice::Horse, 30.0, Precision::F16, None).expect("the model bakes");
    let mut config =
        RendererConfig::for_model(&loaded, size.0, size.1, count, SEED, headless::FORMAT);
    config.behaviour = BehaviourSettings::on();
    config.targets.aa = aa;
    config.targets.velocity = velocity;
    let view = Headless::new(gpu, &loaded.model, &loaded.vat, &config).expect("renderer");
    (view, loaded)
}

pub fn settings() -> FrameSettings {
    FrameSettings {
        time: 3.0,
        ..FrameSettings::default()
    }
}

/// The opening view moved `far` times as far away.
pub fn far_camera(view: &mut Headless, far: f32) {
    let mut camera = view.renderer.camera_at(settings().time, 1.0);
    camera.distance *= far;
    view.camera = camera;
}

/// Writes `images` as `DIR/NAME.png` when `STAMPEDE_SPLAT_PNG=DIR`.
pub fn save(images: &[(&str, &RgbaImage)]) {
    if let Ok(dir) = std::env::var("STAMPEDE_SPLAT_PNG") {
        for (name, image) in images {
            let path = std::path::Path::new(&dir).join(format!("{name}.png"));
            image.save_png(&path).expect("written");
        }
    }
}

/// The last frame's depth (single-sampled, with the velocity target) and
/// splat planes, read back.
pub fn depth_and_planes(view: &Headless) -> (Vec<f32>, Vec<u32>) {
    let r = &view.renderer;
    let motion = r.read_motion().expect("read").expect("velocity");
    let planes = r
        .splats()
        .expect("splats")
        .read_planes(&r.gpu)
        .expect("read");
    (motion.depth.expect("depth"), planes)
}

pub fn draw(view: &mut Headless, cull: CullSettings) -> (RgbaImage, u32, u32) {
    view.renderer.set_cull_settings(cull);
    let image = view.render(&settings()).expect("render");
    let stats = view.renderer.wait_for_cull_stats();
    (image, stats.impostors(), stats.splats)
}

/// The frame the tests compare splats with, drawn with `cull`'s splats
/// off: as impostors (with the impostors and splats counted), as meshes
/// (impostors off too), and without the crowd.
pub struct Baselines {
    pub impostors: RgbaImage,
    pub impostor_count: u32,
    pub splats: u32,
    pub meshes: RgbaImage,
    pub empty: RgbaImage,
}

pub fn baselines(view: &mut Headless, cull: CullSettings) -> Baselines {
    let off = CullSettings {
        splats: false,
        ..cull
    };
    let (impostors, impostor_count, splats) = draw(view, off);
    let meshes = CullSettings {
        impostors: false,
        ..off
    };
    let (meshes, ..) = draw(view, meshes);
    view.renderer.hide_crowd = true;
    let (empty, ..) = draw(view, off);
    view.renderer.hide_crowd = false;
    Baselines {
        impostors,
        impostor_count,
        splats,
        meshes,
        empty,
    }
}

/// How two pictures of a crowd differ where the crowd is (pixels where
/// either differs from `empty`, the scene without it, by more than 3):
/// (crowd pixels, mean channel difference there, mean signed luminance
/// difference there, mean channel difference of 4 × 4 blocks' means).
pub fn crowd_diff(a: &RgbaImage, b: &RgbaImage, empty: &RgbaImage) -> (usize, f64, f64, f64) {
    let w = a.width as usize;
    let px =
        |img: &RgbaImage, p: usize| -> [f64; 3] { [0, 1, 2].map(|c| img.pixels[p * 4 + c] as f64) };
    let far = |x: [f64; 3], y: [f64; 3]| x.iter().zip(&y).any(|(u, v)| (u - v).abs() > 3.0);
    let n = a.pixels.len() / 4;
    let crowd: Vec<bool> = (0..n)
        .map(|p| far(px(a, p), px(empty, p)) || far(px(b, p), px(empty, p)))
        .collect();
    let count = crowd.iter().filter(|&&c| c).count().max(1);
    let (mut abs, mut signed) = (0.0, 0.0);
    for p in (0..n).filter(|&p| crowd[p]) {
        let (x, y) = (px(a, p), px(b, p));
        abs += x.iter().zip(&y).map(|(u, v)| (u - v).abs()).sum::<f64>() / 3.0;
        let lum = |c: [f64; 3]| 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
        signed += lum(x) - lum(y);
    }
    let (mut blocks, mut block_abs) = (0usize, 0.0);
    for by in 0..a.height as usize / 4 {
        for bx in 0..w / 4 {
            let ps: Vec<usize> = (0..16)
                .map(|k| (by * 4 + k / 4) * w + bx * 4 + k % 4)
                .collect();
            if !ps.iter().any(|&p| crowd[p]) {
                continue;
            }
            let mean = |img: &RgbaImage| {
                ps.iter().fold([0.0; 3], |m, &p| {
                    let c = px(img, p);
                    [m[0] + c[0] / 16.0, m[1] + c[1] / 16.0, m[2] + c[2] / 16.0]
                })
            };
            let (x, y) = (mean(a), mean(b));
            block_abs += x.iter().zip(&y).map(|(u, v)| (u - v).abs()).sum::<f64>() / 3.0;
            blocks += 1;
        }
    }
    (
        count,
        abs / count as f64,
        signed / count as f64,
        block_abs / blocks.max(1) as f64,
    )
}
