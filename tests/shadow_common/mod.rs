//! What the shadow tests share: a headless view, still frames, the CPU's
//! posed triangles of instance 0, their projection along the sun, and pixel
//! masks to compare with the GPU's picture.
#![allow(dead_code)]

use super::gpu_common as common;
use glam::{Mat4, Vec3};
use stampede::crowd::anim::BehaviourView;
use stampede::crowd::placement::{Placement, instance_placement};
use stampede::crowd::setup::{Loaded, ModelChoice, load};
use stampede::crowd::shadow::ShadowSettings;
use stampede::crowd::{self, FrameSettings, FrameUniform, Instance};
use stampede::render::RendererConfig;
use stampede::render::headless::{self, Headless, RgbaImage};
use stampede::skin;
use stampede::vat::Precision;

pub const SEED: u64 = 11;
pub const SIZE: (u32, u32) = (256, 192);

pub fn view(count: u32) -> Option<(Headless, Loaded)> {
    view_of(ModelChoice::Horse, count)
}

pub fn view_of(choice: ModelChoice, count: u32) -> Option<(Headless, Loaded)> {
    let gpu = common::gpu_or_skip("shadows_gpu")?;
    let prepared = load(&choice, 30.0, Precision::F16, None).expect("the model bakes");
    let config =
        RendererConfig::for_model(&prepared, SIZE.0, SIZE.1, count, SEED, headless::FORMAT);
    let view = Headless::new(gpu, &prepared.model, &prepared.vat, &config).expect("renderer");
    Some((view, prepared))
}

/// Everyone in step and in place: only the pose changes with time.
pub fn still(time: f64) -> FrameSettings {
    FrameSettings {
        time,
        spread: 0.0,
        stride: 0.0,
        ..FrameSettings::default()
    }
}

pub fn with_shadows(view: &mut Headless, enabled: bool, s: &FrameSettings) -> RgbaImage {
    view.renderer.set_shadow_settings(ShadowSettings {
        enabled,
        ..ShadowSettings::default()
    });
    view.render(s).expect("render")
}

/// Pixel masks (row-major, one bool a pixel) of the image.
pub type Mask = Vec<bool>;

/// The horse (instance 0) as the frame placed it: world-space triangles
/// of its CPU-skinned pose at the frame's clip time.
pub fn world_triangles(prepared: &Loaded, frame: &FrameUniform) -> Vec<[Vec3; 3]> {
    world_triangles_with(prepared, frame, |p| p)
}

/// The same with its placement changed by `adjust`.
pub fn world_triangles_with(
    prepared: &Loaded,
    frame: &FrameUniform,
    adjust: impl Fn(Placement) -> Placement,
) -> Vec<[Vec3; 3]> {
    let inst: Instance = crowd::generate(SEED, 0);
    let clips = &prepared.vat.clips;
    let (source, time) = crowd::instance_pose(&inst, frame, clips);
    let pose = prepared.model.sample_pose(source, time);
    let (positions, _) = skin::skin(&prepared.model, &pose);
    let place = instance_placement(
        &inst,
        0,
        frame,
        clips,
        &prepared.ground_speeds,
        BehaviourView::Off,
    )
    .expect("loops have a CPU placement");
    let place = adjust(place);
    let world: Vec<Vec3> = positions
        .iter()
        .map(|&p| place.to_world(p, inst.scale))
        .collect();
    prepared
        .model
        .indices
        .chunks_exact(3)
        .map(|t| [0, 1, 2].map(|k| world[t[k] as usize]))
        .collect()
}

/// Along the sun onto the ground plane.
pub fn onto_ground(p: Vec3, sun: Vec3, ground: f32) -> Vec3 {
    p - sun * ((p.y - ground) / sun.y)
}

/// Rasterizes world triangles seen through `view_proj` (pixel centres);
/// triangles reaching behind the eye are left out.
pub fn rasterize(triangles: &[[Vec3; 3]], view_proj: Mat4) -> Mask {
    let (w, h) = SIZE;
    let mut mask = vec![false; (w * h) as usize];
    for t in triangles {
        let clip = t.map(|p| view_proj * p.extend(1.0));
        if clip.iter().any(|c| c.w <= 1e-6) {
            continue;
        }
        let s = clip.map(|c| {
            let n = c.truncate() / c.w;
            glam::Vec2::new((n.x + 1.0) * 0.5 * w as f32, (1.0 - n.y) * 0.5 * h as f32)
        });
        let area = (s[1] - s[0]).perp_dot(s[2] - s[0]);
        if area.abs() < 1e-9 {
            continue;
        }
        let lo = s[0].min(s[1]).min(s[2]).max(glam::Vec2::ZERO);
        let hi = s[0]
            .max(s[1])
            .max(s[2])
            .min(glam::Vec2::new(w as f32, h as f32));
        for y in lo.y.floor() as u32..hi.y.ceil() as u32 {
            for x in lo.x.floor() as u32..hi.x.ceil() as u32 {
                let p = glam::Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
                let e = [
                    (s[1] - s[0]).perp_dot(p - s[0]),
                    (s[2] - s[1]).perp_dot(p - s[1]),
                    (s[0] - s[2]).perp_dot(p - s[2]),
                ];
                let inside = e.iter().all(|&v| v * area.signum() >= 0.0);
                if inside && x < w && y < h {
                    mask[(y * w + x) as usize] = true;
                }
            }
        }
    }
    mask
}

/// The mask grown (`r > 0`) or shrunk (`r < 0`) by |r| pixels (square).
pub fn grow(mask: &Mask, r: i32) -> Mask {
    let (w, h) = (SIZE.0 as i32, SIZE.1 as i32);
    let want = r > 0;
    let r = r.abs();
    (0..w * h)
        .map(|i| {
            let (x, y) = (i % w, i / w);
            let mut any = !want;
            for dy in -r..=r {
                for dx in -r..=r {
                    let (u, v) = (x + dx, y + dy);
                    let m = u >= 0 && v >= 0 && u < w && v < h && mask[(v * w + u) as usize];
                    if want && m {
                        any = true;
                    }
                    if !want && !m {
                        any = false;
                    }
                }
            }
            any
        })
        .collect()
}

pub fn and_not(a: &Mask, b: &Mask) -> Mask {
    a.iter().zip(b).map(|(x, y)| *x && !*y).collect()
}

pub fn count(m: &Mask) -> usize {
    m.iter().filter(|&&x| x).count()
}

/// How much darker each pixel of `on` is than `off` (sum of RGB).
pub fn darkening(on: &RgbaImage, off: &RgbaImage) -> Vec<i32> {
    on.pixels
        .chunks(4)
        .zip(off.pixels.chunks(4))
        .map(|(a, b)| (0..3).map(|k| b[k] as i32 - a[k] as i32).sum())
        .collect()
}

pub fn iou(a: &Mask, b: &Mask) -> f32 {
    let inter = a.iter().zip(b).filter(|(x, y)| **x && **y).count();
    let union = a.iter().zip(b).filter(|(x, y)| **x || **y).count();
    inter as f32 / union.max(1) as f32
}

/// The ground shadow of `triangles` along the sun, in pixels.
pub fn shadow_of(triangles: &[[Vec3; 3]], frame: &FrameUniform) -> Mask {
    let sun = crowd::sun_direction();
    let shadow: Vec<[Vec3; 3]> = triangles
        .iter()
        .map(|t| t.map(|p| onto_ground(p, sun, frame.ground_y)))
        .collect();
    rasterize(&shadow, Mat4::from_cols_array_2d(&frame.view_proj))
}
