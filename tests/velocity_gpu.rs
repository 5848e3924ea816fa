//! The velocity target against the CPU: a galloping horse's vertices move
//! on screen as CPU skinning at the two frames' times, projected by the two
//! frames' cameras, says; a frozen crowd seen by a moving camera moves as
//! the depth reprojected by the two cameras says (the ground, the horses,
//! the sky). Every technique, time jumps and the birds:
//! velocity_techniques_gpu.rs.

mod gpu_common;
mod velocity_common;
use velocity_common::*;

use glam::{Mat4, Vec2, Vec3, Vec4};
use stampede::crowd::anim::{BehaviourView, instance_anim};
use stampede::crowd::herd::HerdTable;
use stampede::crowd::motion::{pixel_motion, screen_motion};
use stampede::crowd::placement::instance_placement;
use stampede::crowd::setup::Loaded;
use stampede::crowd::{self, FrameSettings, FrameUniform, instance_pose};
use stampede::render::headless::Headless;
use stampede::skin;

/// Instance `i`'s vertices in the world at frame `frame` (the loops, or
/// the herd of `view`), by CPU skinning; `None` while it crossfades (the
/// CPU twin does not blend).
fn cpu_world(
    prepared: &Loaded,
    frame: &FrameUniform,
    i: u32,
    view: BehaviourView<'_>,
) -> Option<Vec<Vec3>> {
    let inst = crowd::generate(SEED, i);
    let clips = &prepared.vat.clips;
    let place = instance_placement(&inst, i, frame, clips, &prepared.ground_speeds, view)?;
    let anim = instance_anim(&inst, i, frame, clips, view);
    if anim.weight < 1.0 {
        return None;
    }
    let (clip, t) = match view {
        BehaviourView::Off => instance_pose(&inst, frame, clips),
        _ => anim.current,
    };
    let pose = prepared.model.sample_pose(clip, t);
    let (positions, _) = skin::skin(&prepared.model, &pose);
    Some(
        positions
            .iter()
            .map(|p| place.to_world(*p, inst.scale))
            .collect(),
    )
}

/// A galloping horse's vertices: the velocity the GPU wrote at the pixel
/// each visible vertex lands on equals the vertex's own motion from CPU
/// skinning at both times through both cameras. The legs (the vertices
/// that move most against the body) are checked on their own.
///
/// Bound: 0.35 px + 6 % of the motion, for 95 % of the visible vertices
/// and of the legs' (measured: 98 %, median 0.05 of the bound). The
/// pixel's velocity is the triangle's interpolation at the pixel centre,
/// up to 0.71 px from the vertex, and the VAT lerps frames baked at 30 fps
/// against the exact pose; the few vertices beyond are on creases where
/// the pixel shows the next triangle at nearly the same depth. A previous
/// pose from the wrong time (e.g. this frame's: the limbs' motion lost)
/// puts most leg vertices off by a pixel or more.
#[test]
fn leg_vertices_move_as_cpu_skinning_says() {
    leg_vertices(false);
}

/// The same in the herd: its schedule at both frames' times.
#[test]
fn herd_leg_vertices_move_as_cpu_skinning_says() {
    leg_vertices(true);
}

fn leg_vertices(behaviour: bool) {
    let Some((mut view, prepared)) = setup(1, behaviour) else {
        return;
    };
    // Close to the one horse, from the side, so its legs span pixels.
    let settings = FrameSettings {
        time: 1.37,
        ..FrameSettings::default()
    };
    view.draw_frame(&settings).expect("a frame");
    let frame = view.renderer.last_frame.expect("a frame");
    let table = herd_table(&view);
    let body = cpu_world(&prepared, &frame, 0, behaviour_view(&view, table.as_ref()))
        .expect("the horse is not crossfading");
    let centre = body.iter().copied().sum::<Vec3>() / body.len() as f32;
    view.camera.target = centre;
    view.camera.distance = prepared.vat.bounds.diagonal() * 1.3;
    view.camera.pitch = 0.15;
    view.draw_frame(&settings).expect("a frame");
    let table_before = herd_table(&view);
    let (before, after, motion) = two_frames(&mut view, &settings);
    let table_now = herd_table(&view);
    let now = cpu_world(
        &prepared,
        &after,
        0,
        behaviour_view(&view, table_now.as_ref()),
    )
    .expect("the horse is not crossfading");
    let then = cpu_world(
        &prepared,
        &before,
        0,
        behaviour_view(&view, table_before.as_ref()),
    )
    .expect("the horse is not crossfading");
    let (vp, previous_vp) = (mat(after.motion_view_proj), mat(after.previous_view_proj));
    assert_eq!(
        mat(before.motion_view_proj),
        previous_vp,
        "the previous camera is the last frame's"
    );
    let depth = motion.depth.as_ref().expect("single-sampled depth");
    let mean_motion = {
        let all: Vec<Vec2> = now
            .iter()
            .zip(&then)
            .map(|(a, b)| pixel_motion(*a, *b, vp, previous_vp, SIZE))
            .collect();
        all.iter().copied().sum::<Vec2>() / all.len() as f32
    };
    let mut checked = 0;
    let mut legs = 0;
    let mut worst = 0.0f32;
    let (mut errors, mut leg_errors) = (Vec::new(), Vec::new());
    for (a, b) in now.iter().zip(&then) {
        let clip = vp * a.extend(1.0);
        let ndc = clip.truncate() / clip.w;
        let px = Vec2::new(
            (ndc.x * 0.5 + 0.5) * SIZE.0 as f32,
            (0.5 - ndc.y * 0.5) * SIZE.1 as f32,
        );
        if px.x < 1.0 || px.y < 1.0 || px.x >= SIZE.0 as f32 - 1.0 || px.y >= SIZE.1 as f32 - 1.0 {
            continue;
        }
        let (x, y) = (px.x as u32, px.y as u32);
        // Visible: the depth there is this vertex's (not a nearer part).
        if (depth[(y * SIZE.0 + x) as usize] - ndc.z).abs() > 2e-4 {
            continue;
        }
        let expected = pixel_motion(*a, *b, vp, previous_vp, SIZE);
        let got = motion.pixels(x, y);
        let error = (got - expected).length();
        let bound = 0.35 + 0.06 * expected.length();
        errors.push(error / bound);
        worst = worst.max(error);
        checked += 1;
        if (expected - mean_motion).length() > 1.0 {
            legs += 1;
            leg_errors.push(error / bound);
        }
    }
    eprintln!(
        "{checked} visible vertices ({legs} moving over a pixel against the body), \
         mean motion {mean_motion} px, worst error {worst:.3} px"
    );
    let share = |e: &[f32]| e.iter().filter(|r| **r <= 1.0).count() as f32 / e.len().max(1) as f32;
    let mut sorted = errors.clone();
    sorted.sort_by(f32::total_cmp);
    eprintln!(
        "error / bound: median {:.2}, 95th {:.2}; within: {:.1} % of all, {:.1} % of the legs'",
        sorted[sorted.len() / 2],
        sorted[sorted.len() * 95 / 100],
        100.0 * share(&errors),
        100.0 * share(&leg_errors)
    );
    assert!(checked >= 100, "only {checked} vertices were visible");
    assert!(
        legs >= 20,
        "only {legs} vertices move against the body: no galloping legs seen"
    );
    assert!(
        share(&errors) >= 0.95,
        "{:.1} % of the vertices within the bound",
        100.0 * share(&errors)
    );
    assert!(
        share(&leg_errors) >= 0.95,
        "{:.1} % of the legs' vertices within the bound",
        100.0 * share(&leg_errors)
    );
    assert!(
        sorted[sorted.len() / 2] <= 0.25,
        "median error {:.2} of the bound",
        sorted[sorted.len() / 2]
    );
}

/// The herd's table of the last frame (none without the herd).
fn herd_table(view: &Headless) -> Option<HerdTable> {
    match view.renderer.behaviour().view() {
        BehaviourView::Herd { table, .. } => Some(*table),
        _ => None,
    }
}

/// The behaviour's CPU view with `table` as the frame's.
fn behaviour_view<'a>(view: &'a Headless, table: Option<&'a HerdTable>) -> BehaviourView<'a> {
    match (view.renderer.behaviour().view(), table) {
        (BehaviourView::Herd { herd, .. }, Some(table)) => BehaviourView::Herd { herd, table },
        (v, _) => v,
    }
}

/// Pixel (x, y)'s expected motion from its depth: the point unprojected by
/// this frame's camera, projected by the previous one (the sky, depth 1:
/// a direction, w = 0).
fn reprojected(x: u32, y: u32, depth: f32, vp: Mat4, previous_vp: Mat4) -> Vec2 {
    let ndc = Vec2::new(
        (x as f32 + 0.5) / SIZE.0 as f32 * 2.0 - 1.0,
        1.0 - (y as f32 + 0.5) / SIZE.1 as f32 * 2.0,
    );
    let inv = vp.inverse();
    let size = Vec2::new(SIZE.0 as f32, SIZE.1 as f32);
    if depth >= 1.0 {
        let far = inv * Vec4::new(ndc.x, ndc.y, 1.0, 1.0);
        let near = inv * Vec4::new(ndc.x, ndc.y, 0.0, 1.0);
        let dir = (far.truncate() / far.w - near.truncate() / near.w).normalize();
        let d = dir.extend(0.0);
        return screen_motion(vp * d, previous_vp * d) * size;
    }
    let p = inv * Vec4::new(ndc.x, ndc.y, depth, 1.0);
    let world = p.truncate() / p.w;
    pixel_motion(world, world, vp, previous_vp, (SIZE.0, SIZE.1))
}

/// A frozen crowd (playback 0) and a moving camera: every pixel (ground,
/// horses, sky) moves as its depth reprojected by the two cameras.
/// Bound: 0.05 px + 2 % (f16 storage, depth precision).
#[test]
fn a_still_crowd_moves_only_with_the_camera() {
    let Some((mut view, _)) = setup(60, false) else {
        return;
    };
    let settings = FrameSettings {
        time: 2.0,
        playback: 0.0,
        ..FrameSettings::default()
    };
    let (_, after, motion) = two_frames(&mut view, &settings);
    let (vp, previous_vp) = (mat(after.motion_view_proj), mat(after.previous_view_proj));
    assert_ne!(vp, previous_vp, "the camera moved");
    let depth = motion.depth.as_ref().expect("single-sampled depth");
    let (mut sky, mut worst) = (0, 0.0f32);
    let mut moving = 0;
    for y in 0..SIZE.1 {
        for x in 0..SIZE.0 {
            let d = depth[(y * SIZE.0 + x) as usize];
            let expected = reprojected(x, y, d, vp, previous_vp);
            let got = motion.pixels(x, y);
            let error = (got - expected).length();
            let bound = 0.05 + 0.02 * expected.length();
            assert!(
                error <= bound,
                "pixel ({x}, {y}), depth {d}: GPU {got} px vs reprojected {expected} px"
            );
            worst = worst.max(error);
            sky += (d >= 1.0) as u32;
            moving += (expected.length() > 0.2) as u32;
        }
    }
    eprintln!("worst error {worst:.4} px; {sky} sky pixels; {moving} pixels moving over 0.2 px");
    assert!(
        sky > 100 && sky < SIZE.0 * SIZE.1 / 2,
        "{sky} sky pixels: not a view over the herd"
    );
    assert!(
        moving > SIZE.0 * SIZE.1 / 2,
        "the camera's motion was too small to test"
    );
}
