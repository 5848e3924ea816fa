//! More of the sun shadows on the GPU: a banking bird casts a banked
//! shadow (against the CPU's projection of its banked and of its level
//! pose), and keeping only the casters whose shadow can reach the camera's
//! view draws fewer casters and changes no pixel; each cascade's casters
//! equal the CPU rule's, with the counts the renderer reports (kept,
//! triangles, dropped by the receivers rule).

mod culling_common;
mod gpu_common;
mod shadow_common;
use gpu_common as common;
use shadow_common::*;

use glam::{Mat4, Vec3};
use stampede::crowd::placement::Placement;
use stampede::crowd::setup::ModelChoice;
use stampede::crowd::shadow::ShadowSettings;
use stampede::crowd::{self, FrameSettings};
use stampede::render::Camera;

/// A bird on its loop flies banked into the turn; its shadow on the ground
/// matches the CPU projection of the banked pose, and matches it clearly
/// better than that of the same pose held level. A caster drawn without
/// the bank (or in another pose) fails.
#[test]
fn a_banking_birds_shadow_banks_with_it() {
    let Some((mut view, prepared)) = view_of(ModelChoice::Bird, 1) else {
        return;
    };
    let s = still(0.77);
    view.render(&s).expect("render");
    let frame = view.renderer.last_frame.expect("a frame was drawn");
    let banked = world_triangles(&prepared, &frame);
    let level = world_triangles_with(&prepared, &frame, |p| Placement { up: Vec3::Y, ..p });
    // A camera looking down on the shadow only (the bird flies high above
    // it), from the side away from the sun.
    let sun = crowd::sun_direction();
    let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for p in banked.iter().flatten() {
        let q = onto_ground(*p, sun, frame.ground_y);
        lo = lo.min(q);
        hi = hi.max(q);
    }
    view.camera = Camera {
        target: (lo + hi) * 0.5,
        yaw: 2.4,
        pitch: 1.3,
        distance: (hi - lo).length() * 1.5,
        fov_y: 45f32.to_radians(),
    };
    let off = with_shadows(&mut view, false, &s);
    let on = with_shadows(&mut view, true, &s);
    let frame = view.renderer.last_frame.expect("a frame was drawn");
    let vp = Mat4::from_cols_array_2d(&frame.view_proj);
    let bird = grow(&rasterize(&banked, vp), 2);
    let dark: Mask = darkening(&on, &off).iter().map(|&d| d >= 30).collect();
    let dark = and_not(&dark, &bird);
    let with_bank = and_not(&shadow_of(&banked, &frame), &bird);
    let held_level = and_not(&shadow_of(&level, &frame), &bird);
    let (own, flat) = (iou(&dark, &with_bank), iou(&dark, &held_level));
    eprintln!(
        "bird shadow {} px; IoU with the banked pose {own:.3}, held level {flat:.3}, between the two {:.3}",
        count(&dark),
        iou(&with_bank, &held_level)
    );
    assert!(
        count(&with_bank) > 300,
        "the shadow should fill some of the view"
    );
    assert!(
        iou(&with_bank, &held_level) < 0.85,
        "the bank should move the shadow"
    );
    assert!(
        own > 0.85,
        "the shadow should match the banked pose ({own:.3})"
    );
    assert!(
        own > flat + 0.1,
        "the shadow should match the banked pose better than the level one ({own:.3} vs {flat:.3})"
    );
}

/// Casters whose shadow cannot reach the view are dropped per cascade
/// (`ShadowSettings::cull_to_view`); a narrow view across a crowd draws the
/// same picture with that on as with every caster in the cascades' boxes.
#[test]
fn culling_casters_to_the_view_changes_no_pixel() {
    let Some((mut view, _)) = view(300) else {
        return;
    };
    let s = FrameSettings {
        time: 2.0,
        ..FrameSettings::default()
    };
    view.camera.fov_y = 15f32.to_radians();
    view.camera.yaw += 0.5;
    let mut render = |cull_to_view| {
        view.renderer.set_shadow_settings(ShadowSettings {
            cull_to_view,
            ..ShadowSettings::default()
        });
        let img = view.render(&s).expect("render");
        let gpu = view.renderer.gpu.clone();
        let casters: usize = view
            .renderer
            .shadows()
            .cascade_targets()
            .iter()
            .map(|t| {
                let lists = t.read_lists(&gpu).expect("read back");
                lists.entries.iter().map(Vec::len).sum::<usize>()
            })
            .sum();
        (img, casters)
    };
    let (all, boxed) = render(false);
    let (kept, fewer) = render(true);
    let unshadowed = with_shadows(&mut view, false, &s);
    let shaded = darkening(&kept, &unshadowed)
        .iter()
        .filter(|&&d| d >= 30)
        .count();
    let d = common::diff(&all, &kept, 0);
    eprintln!(
        "casters drawn: {boxed} in the boxes, {fewer} whose shadow can reach the view; {shaded} shadowed px, {} differ",
        d.failed
    );
    assert!(shaded > 100, "shadows should show ({shaded} px)");
    assert!(
        fewer < boxed,
        "fewer casters should be drawn ({fewer} vs {boxed})"
    );
    assert_eq!(d.failed, 0, "dropping casters changed {} pixels", d.failed);
}

/// Each cascade's casters on the GPU equal the CPU rule with the same
/// parameters (the sun's box and the camera's frustum swept along the
/// light), with the counts the renderer reports; in narrow views the
/// view's receivers keep far fewer casters than the boxes alone.
#[test]
fn each_cascade_keeps_the_casters_the_cpu_rule_keeps() {
    let Some((mut view, loaded)) = culling_common::view(ModelChoice::Horse, 700, 160, false) else {
        return;
    };
    let opening = view.camera;
    view.draw_frame(&culling_common::settings(3.0))
        .expect("frame");
    let all = culling_common::check_cascades(&mut view, &loaded, "opening view");
    assert!(all.iter().sum::<usize>() > 0, "the opening view casts");
    // A narrow view across the field: the cascades' boxes take in far more
    // of the field than the view shows; only casters whose shadow can
    // land in the view are kept.
    for yaw in [0.3f32, 4.0] {
        view.camera = Camera {
            yaw,
            fov_y: 12f32.to_radians(),
            ..opening
        };
        view.draw_frame(&culling_common::settings(3.0))
            .expect("frame");
        let kept = culling_common::check_cascades(
            &mut view,
            &loaded,
            &format!("narrow view at yaw {yaw}"),
        );
        view.renderer.set_shadow_settings(ShadowSettings {
            cull_to_view: false,
            ..ShadowSettings::default()
        });
        view.draw_frame(&culling_common::settings(3.0))
            .expect("frame");
        let boxes =
            culling_common::check_cascades(&mut view, &loaded, &format!("yaw {yaw}, boxes only"));
        let (kept, boxes) = (kept.iter().sum::<usize>(), boxes.iter().sum::<usize>());
        assert!(
            kept > 0 && kept < boxes,
            "yaw {yaw}: the view's receivers keep {kept} casters, the boxes alone {boxes}"
        );
        view.renderer.set_shadow_settings(ShadowSettings::default());
    }
}
