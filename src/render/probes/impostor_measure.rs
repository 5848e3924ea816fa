//! How far an impostor is from the mesh it stands for: one instance drawn
//! at the switch size as the mesh and as an impostor (two clips, cameras
//! between the atlas's directions, one from above), compared against the
//! same view without it: the silhouettes' IoU, the share of each
//! silhouette within a pixel of the other, and the mean colour difference.
//! `inspect`, `bench`, the panel and tests/impostor_gpu.rs report it.

use crate::crowd::cull::CullSettings;
use crate::crowd::placement::instance_placement;
use crate::crowd::setup::Loaded;
use crate::crowd::shadow::ShadowSettings;
use crate::crowd::{BehaviourSettings, FrameSettings, generate};
use crate::gpu::GpuContext;
use crate::render::camera::Camera;
use crate::render::config::RendererConfig;
use crate::render::headless::{self, Headless, HeadlessError, RgbaImage};
use std::sync::Arc;

/// Two renders of one scene compared against its background.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Likeness {
    /// Pixels both cover ÷ pixels either covers.
    pub iou: f32,
    /// The share of each silhouette's pixels within a pixel of the other
    /// (the lower of the two): a one-pixel shift of a silhouette a few
    /// pixels across halves its IoU, not this.
    pub near: f32,
    /// Mean colour difference, 0 to 255, over the pixels either covers.
    pub diff: f32,
}

/// The impostor's error at a switch size: the mean and the worst over
/// the views measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ImpostorError {
    pub px: f32,
    pub mean: Likeness,
    pub worst: Likeness,
    pub views: u32,
}

/// One view: a clip (or the behaviour's choice), a time, the camera's yaw
/// and pitch around the instance.
#[derive(Clone, Copy, Debug)]
pub struct View {
    pub clip: Option<u32>,
    pub time: f64,
    pub yaw: f32,
    pub pitch: f32,
}

/// The views [`measure`] takes: the first two clips at times between atlas
/// frames, cameras between atlas directions, the last from above.
pub const VIEWS: [View; 5] = [
    View {
        clip: Some(0),
        time: 2.1,
        yaw: 0.4,
        pitch: 0.15,
    },
    View {
        clip: Some(0),
        time: 2.37,
        yaw: 2.0,
        pitch: 0.45,
    },
    View {
        clip: Some(1),
        time: 1.3,
        yaw: 3.5,
        pitch: 0.3,
    },
    View {
        clip: Some(1),
        time: 0.55,
        yaw: 5.1,
        pitch: 0.8,
    },
    View {
        clip: Some(0),
        time: 1.0,
        yaw: 1.1,
        pitch: 1.45,
    },
];

/// The side of the square picture one instance is measured in.
pub const SIZE: u32 = 128;

/// A one-instance renderer for measuring (behaviour as asked, no shadows,
/// the atlas drawn).
pub fn single(
    gpu: Arc<GpuContext>,
    loaded: &Loaded,
    behaviour: bool,
) -> Result<Headless, HeadlessError> {
    let mut config = RendererConfig::for_model(loaded, SIZE, SIZE, 1, 5, headless::FORMAT);
    config.behaviour = BehaviourSettings {
        enabled: behaviour,
        ..Default::default()
    };
    config.shadows = ShadowSettings {
        enabled: false,
        ..Default::default()
    };
    let mut view = Headless::new(gpu, &loaded.model, &loaded.vat, &config)?;
    view.renderer.ensure_impostors()?;
    Ok(view)
}

/// The impostor's error at `px` pixels over [`VIEWS`] (clips the model
/// lacks are its last).
pub fn measure(
    gpu: Arc<GpuContext>,
    loaded: &Loaded,
    px: f32,
) -> Result<ImpostorError, HeadlessError> {
    let mut view = single(gpu, loaded, false)?;
    let last = loaded.vat.clips.len().saturating_sub(1) as u32;
    let mut all = Vec::new();
    for v in VIEWS {
        let v = View {
            clip: v.clip.map(|c| c.min(last)),
            ..v
        };
        all.push(compare_view(&mut view, loaded, &v, px)?);
    }
    let n = all.len().max(1) as f32;
    let fold = |f: fn(&Likeness) -> f32, worst: fn(f32, f32) -> f32, start: f32| {
        (
            all.iter().map(f).sum::<f32>() / n,
            all.iter().map(f).fold(start, worst),
        )
    };
    let (iou, worst_iou) = fold(|l| l.iou, f32::min, 1.0);
    let (near, worst_near) = fold(|l| l.near, f32::min, 1.0);
    let (diff, worst_diff) = fold(|l| l.diff, f32::max, 0.0);
    Ok(ImpostorError {
        px,
        mean: Likeness { iou, near, diff },
        worst: Likeness {
            iou: worst_iou,
            near: worst_near,
            diff: worst_diff,
        },
        views: all.len() as u32,
    })
}

/// Instance 0 of `view` (one instance) seen as `v` says with its sphere
/// `px` pixels across: the mesh against the impostor.
pub fn compare_view(
    view: &mut Headless,
    loaded: &Loaded,
    v: &View,
    px: f32,
) -> Result<Likeness, HeadlessError> {
    let s = FrameSettings {
        time: v.time,
        spread: 0.0,
        ..FrameSettings::default()
    };
    view.renderer.set_clip(0, v.clip);
    view.render(&s)?;
    let frame = view
        .renderer
        .last_frame
        .unwrap_or_else(bytemuck::Zeroable::zeroed);
    let inst = generate(view.renderer.crowd().seed(), 0);
    let (centre, radius) = loaded.vat.pose_sphere();
    let target = instance_placement(
        &inst,
        0,
        &frame,
        &loaded.vat.clips,
        &loaded.ground_speeds,
        view.renderer.behaviour().view(),
    )
    .map_or(centre, |p| p.to_world(centre, inst.scale));
    let fov_y = 45f32.to_radians();
    let pixel_scale = SIZE as f32 * 0.5 / (fov_y * 0.5).tan();
    view.camera = Camera {
        target,
        yaw: v.yaw,
        pitch: v.pitch,
        distance: 2.0 * radius * inst.scale * pixel_scale / px.max(1.0),
        fov_y,
    };
    let settings = view.renderer.cull_settings();
    let draw = |view: &mut Headless, impostors: bool, hide: bool| {
        view.renderer.set_cull_settings(CullSettings {
            impostors,
            impostor_px: 256.0,
            ..settings
        });
        view.renderer.hide_crowd = hide;
        view.render(&s)
    };
    let mesh = draw(view, false, false)?;
    let impostor = draw(view, true, false)?;
    let background = draw(view, false, true)?;
    view.renderer.hide_crowd = false;
    view.renderer.set_cull_settings(settings);
    Ok(compare(&mesh, &impostor, &background))
}

/// Pixels that differ from the background by more than 24 in a channel.
fn mask(image: &RgbaImage, background: &RgbaImage) -> Vec<bool> {
    image
        .pixels
        .chunks_exact(4)
        .zip(background.pixels.chunks_exact(4))
        .map(|(a, b)| (0..3).any(|c| a[c].abs_diff(b[c]) > 24))
        .collect()
}

/// Two renders of one scene against its background.
pub fn compare(a: &RgbaImage, b: &RgbaImage, background: &RgbaImage) -> Likeness {
    let (ma, mb) = (mask(a, background), mask(b, background));
    let (w, h) = (a.width as i32, a.height as i32);
    let near = |m: &[bool], x: i32, y: i32| {
        (-1..=1).any(|dy| {
            (-1..=1).any(|dx| {
                let (x, y) = (x + dx, y + dy);
                x >= 0 && y >= 0 && x < w && y < h && m[(y * w + x) as usize]
            })
        })
    };
    let (mut both, mut either, mut diff) = (0u32, 0u32, 0u64);
    let (mut a_near, mut a_all, mut b_near, mut b_all) = (0u32, 0u32, 0u32, 0u32);
    for (i, (&x, &y)) in ma.iter().zip(&mb).enumerate() {
        let (px, py) = (i as i32 % w, i as i32 / w);
        if x {
            a_all += 1;
            a_near += near(&mb, px, py) as u32;
        }
        if y {
            b_all += 1;
            b_near += near(&ma, px, py) as u32;
        }
        if x || y {
            either += 1;
            diff += (0..3)
                .map(|c| a.pixels[i * 4 + c].abs_diff(b.pixels[i * 4 + c]) as u64)
                .sum::<u64>();
        }
        both += (x && y) as u32;
    }
    let share = |n: u32, all: u32| n as f32 / all.max(1) as f32;
    Likeness {
        iou: share(both, either),
        near: share(a_near, a_all).min(share(b_near, b_all)),
        diff: diff as f32 / (3 * either.max(1)) as f32,
    }
}
