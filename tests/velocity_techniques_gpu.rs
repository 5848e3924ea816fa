//! The velocity target across the renderer: every technique writes the
//! same velocity image; a time jump gives no motion, never a smear; the
//! birds move as their boids did.

mod gpu_common;
mod velocity_common;
use gpu_common as common;
use velocity_common::*;

use glam::{Vec2, Vec3};
use stampede::crowd::motion::Aa;
use stampede::crowd::motion::pixel_motion;
use stampede::crowd::setup::{ModelChoice, load};
use stampede::crowd::{BehaviourSettings, FrameSettings};
use stampede::render::headless::{self, Headless};
use stampede::render::passes::targets::TargetOptions;
use stampede::render::probes::picture::MotionImage;
use stampede::render::{RendererConfig, TechniqueKind};
use stampede::vat::Precision;

/// Mean velocity difference (pixels) over the pixels where either image
/// has the crowd's motion, and how many there are.
fn mean_difference(a: &MotionImage, b: &MotionImage) -> (f32, usize) {
    let mut sum = 0.0;
    let mut n = 0;
    for y in 0..a.height {
        for x in 0..a.width {
            let (va, vb) = (a.pixels(x, y), b.pixels(x, y));
            if va.length() > 0.05 || vb.length() > 0.05 {
                sum += (va - vb).length();
                n += 1;
            }
        }
    }
    (sum / n.max(1) as f32, n)
}

/// Every technique writes the velocity image VAT writes, the galloping
/// herd seen by a still camera: within a mean of 0.15 px over the moving
/// pixels (the techniques' pose differences move a few edge pixels, as in
/// techniques_gpu.rs); the static floor, whose legs do not move, is far
/// off (the bound's teeth; so is a previous pose that loses the limbs:
/// 0.32 px, measured with compute skinning's from this frame).
#[test]
fn every_technique_writes_the_same_velocity() {
    let Some((mut view, _)) = setup(24, true) else {
        return;
    };
    let settings = FrameSettings {
        time: 3.0,
        ..FrameSettings::default()
    };
    let frames = |view: &mut Headless, kind: TechniqueKind| {
        view.renderer.set_technique(kind).expect("technique builds");
        let (x, y, d) = (view.camera.yaw, view.camera.pitch, view.camera.distance);
        let (_, _, m) = two_frames(view, &settings);
        (view.camera.yaw, view.camera.pitch, view.camera.distance) = (x, y, d);
        m
    };
    let vat = frames(&mut view, TechniqueKind::Vat);
    for &kind in TechniqueKind::ALL {
        if kind == TechniqueKind::Vat {
            continue;
        }
        let other = frames(&mut view, kind);
        let (mean, n) = mean_difference(&vat, &other);
        eprintln!("{kind}: mean velocity difference {mean:.3} px over {n} pixels");
        assert!(n > 500, "{kind}: only {n} moving pixels");
        match kind {
            TechniqueKind::ComputeBoneTexture | TechniqueKind::Static => {}
            _ => assert!(
                mean <= 0.15,
                "{kind}: mean velocity difference {mean:.3} px > 0.15"
            ),
        }
    }
    // The static floor does not gallop: its velocity differs (the bound
    // can fail).
    let still = frames(&mut view, TechniqueKind::Static);
    let (mean, _) = mean_difference(&vat, &still);
    assert!(
        mean > 0.15,
        "the static pose's velocity is VAT's ({mean:.3} px): the bound has no teeth"
    );
}

/// A time jump (the clock going back, or a step longer than a quarter
/// second) gives the crowd no motion: the previous pose is this frame's.
/// A still camera, so only the crowd could move.
#[test]
fn a_time_jump_gives_no_motion() {
    let Some((mut view, _)) = setup(60, true) else {
        return;
    };
    let at = |time| FrameSettings {
        time,
        ..FrameSettings::default()
    };
    let moving = |view: &mut Headless| {
        let m = view
            .renderer
            .read_motion()
            .expect("read back")
            .expect("velocity");
        (0..m.height)
            .flat_map(|y| (0..m.width).map(move |x| (x, y)))
            .filter(|&(x, y)| m.pixels(x, y).length() > 0.05)
            .count()
    };
    view.draw_frame(&at(4.0)).expect("frame");
    view.draw_frame(&at(4.0 + DT)).expect("frame");
    let gallop = moving(&mut view);
    assert!(gallop > 200, "the herd moves: {gallop} moving pixels");
    for jump in [1.0, 9.0] {
        view.draw_frame(&at(jump)).expect("frame");
        let n = moving(&mut view);
        assert_eq!(n, 0, "after a jump to {jump} s, {n} pixels move");
    }
    // A pause is no motion either.
    view.draw_frame(&at(9.0)).expect("frame");
    assert_eq!(moving(&mut view), 0, "paused, nothing moves");
}

/// The flock (simulated on the GPU, so its previous state is the boids the
/// previous frame drew, copied before the frame's steps): at the pixel
/// where each visible bird's origin lands, the velocity is the origin's
/// motion between the two read-back boid states through the two cameras.
/// Bound: 0.35 px + 15 % (the pixel shows the body near the origin, which
/// the wings and the bank turn a little around it), for 90 % of the birds
/// seen; a previous state one step off (or this frame's) misses by the
/// step's whole motion.
#[test]
fn birds_move_as_their_boids_did() {
    let Some(gpu) = common::gpu_or_skip("velocity_gpu birds") else {
        return;
    };
    let prepared = load(&ModelChoice::Bird, 30.0, Precision::F16, None).expect("the bird bakes");
    let mut config =
        RendererConfig::for_model(&prepared, SIZE.0, SIZE.1, 150, SEED, headless::FORMAT);
    config.behaviour = BehaviourSettings::on();
    config.targets = TargetOptions {
        aa: Aa::Off,
        velocity: true,
        ..Default::default()
    };
    config.shadows.enabled = false;
    let mut view = Headless::new(gpu, &prepared.model, &prepared.vat, &config).expect("renderer");
    let at = |time| FrameSettings {
        time,
        ..FrameSettings::default()
    };
    // A second of flight, then the flock's own view.
    let mut t = 0.0;
    while t < 1.0 {
        view.draw_frame(&at(t)).expect("frame");
        t += 0.25;
    }
    view.draw_frame(&at(1.0)).expect("frame");
    view.camera = view.renderer.flock_camera().expect("a flock");
    view.camera.distance *= 0.5;
    let boids = |view: &Headless| {
        let r = &view.renderer;
        r.behaviour()
            .flock_sim()
            .expect("a flock")
            .read_back(&r.gpu.device, &r.gpu.queue)
            .expect("read back")
    };
    view.draw_frame(&at(1.0 + DT)).expect("frame");
    let before = boids(&view);
    view.draw_frame(&at(1.0 + 2.0 * DT)).expect("frame");
    let after = boids(&view);
    let frame = view.renderer.last_frame.expect("a frame");
    let (vp, previous_vp) = (mat(frame.motion_view_proj), mat(frame.previous_view_proj));
    let motion = view
        .renderer
        .read_motion()
        .expect("read back")
        .expect("velocity");
    let depth = motion.depth.as_ref().expect("depth");
    let (mut seen, mut within, mut moving) = (0, 0, 0);
    let mut worst = 0.0f32;
    for (b0, b1) in before.iter().zip(&after) {
        let (p0, p1) = (Vec3::from(b0.pos), Vec3::from(b1.pos));
        let clip = vp * p1.extend(1.0);
        let ndc = clip.truncate() / clip.w;
        let px = Vec2::new(
            (ndc.x * 0.5 + 0.5) * SIZE.0 as f32,
            (0.5 - ndc.y * 0.5) * SIZE.1 as f32,
        );
        if clip.w <= 0.0
            || px.x < 0.0
            || px.y < 0.0
            || px.x >= SIZE.0 as f32
            || px.y >= SIZE.1 as f32
        {
            continue;
        }
        let (x, y) = (px.x as u32, px.y as u32);
        // The bird's body at its origin, not one in front or the sky.
        if (depth[(y * SIZE.0 + x) as usize] - ndc.z).abs() > 2e-3 {
            continue;
        }
        let expected = pixel_motion(p1, p0, vp, previous_vp, SIZE);
        let error = (motion.pixels(x, y) - expected).length();
        seen += 1;
        within += (error <= 0.35 + 0.15 * expected.length()) as u32;
        moving += (expected.length() > 0.5) as u32;
        worst = worst.max(error);
    }
    eprintln!(
        "{seen} birds seen at their origin, {within} within the bound, {moving} moving over 0.5 px; worst error {worst:.3} px"
    );
    assert!(seen >= 10, "only {seen} birds seen at their origin");
    assert!(
        moving * 2 >= seen,
        "the birds hardly move ({moving} of {seen} over 0.5 px)"
    );
    assert!(
        within * 10 >= seen * 9,
        "{within} of {seen} birds within the bound"
    );
}
