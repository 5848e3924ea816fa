//! A crowd of several models changes live the way one model does: each
//! model's count and each model's clip, from the next frame, drawing what
//! a renderer built with those counts and clips draws.

mod gpu_common;
mod mixed_common;

use gpu_common as common;
use mixed_common::*;
use stampede::crowd::{BehaviourSettings, FrameSettings};
use stampede::render::data::models::share_count;

fn settings() -> FrameSettings {
    FrameSettings {
        time: 1.7,
        ..FrameSettings::default()
    }
}

/// The picture of `view` from the scene's opening view of `camera_from`.
fn picture_from(
    view: &mut stampede::render::headless::Headless,
    camera: stampede::render::Camera,
) -> stampede::render::headless::RgbaImage {
    view.camera = camera;
    view.render(&settings()).expect("renders")
}

#[test]
fn each_models_count_changes_live() {
    let Some(gpu) = common::gpu_or_skip("scene_live") else {
        return;
    };
    let loaded = models();
    let mut live = scene_with(gpu.clone(), &loaded, &[30, 20], false);
    let camera = live.renderer.camera_at(1.7, 1.0);
    let before = picture_from(&mut live, camera);
    live.renderer.set_counts(&[50, 8]).expect("new counts");
    assert_eq!(live.renderer.crowd().counts(), [50, 8]);
    let table = &live.renderer.scene().table;
    assert_eq!((table[1].first_instance, table[1].count), (50, 8));
    let changed = picture_from(&mut live, camera);
    let mut built = scene_with(gpu.clone(), &loaded, &[50, 8], false);
    let fresh = picture_from(&mut built, camera);
    assert!(
        common::diff(&before, &changed, 0).failed > 50,
        "the new counts change the picture"
    );
    let same = common::diff(&fresh, &changed, 0);
    assert_eq!(
        same.failed, 0,
        "counts changed live draw what a scene built with them draws"
    );
    // A count for each model, or a clear refusal.
    let err = live
        .renderer
        .set_counts(&[5])
        .expect_err("one count for two models");
    assert!(err.to_string().contains("2 models"), "{err}");
    // The crowd's count shared out in proportion.
    live.renderer.set_count(116).expect("a total");
    assert_eq!(live.renderer.crowd().counts(), [100, 16]);
    let err = live
        .renderer
        .set_count(1)
        .expect_err("fewer than the models");
    assert!(
        err.to_string().contains("at least one instance of each"),
        "{err}"
    );
    assert!(live.renderer.set_counts(&[5, 0]).is_err());
    assert_eq!(
        live.renderer.crowd().counts(),
        [100, 16],
        "refused counts change nothing"
    );
}

#[test]
fn the_herd_and_flock_follow_the_counts() {
    let Some(gpu) = common::gpu_or_skip("scene_live") else {
        return;
    };
    let loaded = models();
    let mut view = scene_living(
        gpu.clone(),
        &loaded,
        &[40, 12],
        false,
        BehaviourSettings::on(),
    );
    assert_eq!(view.renderer.behaviour().herd_count(), 40);
    view.render(&settings()).expect("renders");
    view.renderer.set_counts(&[64, 30]).expect("new counts");
    assert_eq!(view.renderer.behaviour().herd_count(), 64);
    let flock = view.renderer.scene().table[1];
    assert_eq!((flock.first_instance, flock.rank_base), (64, 0));
    view.render(&settings()).expect("renders after the change");
}

#[test]
fn each_models_clip_changes_live() {
    let Some(gpu) = common::gpu_or_skip("scene_live") else {
        return;
    };
    let loaded = models();
    let mut live = scene_with(gpu.clone(), &loaded, &[30, 20], false);
    let camera = live.renderer.camera_at(1.7, 1.0);
    let own = picture_from(&mut live, camera);
    // The horse's clips differ from its loaded one: another clip of it.
    let other = (loaded[0].clip.unwrap_or(0) + 1) % loaded[0].vat.clips.len() as u32;
    live.renderer.set_clip(0, Some(other));
    assert_eq!(live.renderer.scene().table[0].clip, other);
    assert_eq!(
        live.renderer.scene().table[1].clip,
        loaded[1].clip.unwrap_or(u32::MAX),
        "the other model keeps its clip"
    );
    let changed = picture_from(&mut live, camera);
    let mut horse = loaded[0].clone();
    horse.clip = Some(other);
    let mut built = scene_with(gpu.clone(), &[horse, loaded[1].clone()], &[30, 20], false);
    let fresh = picture_from(&mut built, camera);
    assert!(
        common::diff(&own, &changed, 0).failed > 20,
        "another clip changes the picture"
    );
    assert_eq!(
        common::diff(&fresh, &changed, 0).failed,
        0,
        "a clip changed live draws what a scene built with it draws"
    );
}

#[test]
fn a_count_is_shared_in_proportion() {
    assert_eq!(share_count(&[30], 7), [7]);
    assert_eq!(share_count(&[30, 20], 100), [60, 40]);
    assert_eq!(share_count(&[30, 20], 101), [61, 40]);
    assert_eq!(share_count(&[1000, 1], 10), [9, 1], "each keeps one");
    for total in [3u32, 4, 50, 1_000_000] {
        let shared = share_count(&[5, 7, 11], total);
        assert_eq!(shared.iter().sum::<u32>(), total, "{total}: {shared:?}");
    }
}

/// The ground draws each track field's ring where that field is, and
/// follows the fields when the counts change: two herds of horses side by
/// side, seen from above with the crowd hidden. Along each ring (0.8 of
/// its field's radius) the ground is dirt (red over green); inside it (0.3)
/// and between the fields it is grass (green over red). With behaviour on
/// the horses join the herd and roam the open field: no ring at all.
#[test]
fn each_track_field_has_its_ring() {
    let Some(gpu) = common::gpu_or_skip("scene_live") else {
        return;
    };
    let horse = stampede::crowd::setup::load(
        &stampede::crowd::setup::ModelChoice::Horse,
        30.0,
        stampede::vat::Precision::F16,
        None,
    )
    .expect("bakes");
    let loaded = [horse.clone(), horse];
    let off = BehaviourSettings {
        enabled: false,
        ..Default::default()
    };
    let on = BehaviourSettings {
        enabled: true,
        ..Default::default()
    };
    for (behaviour, rings) in [(off, true), (on, false)] {
        let mut view = scene_living(gpu.clone(), &loaded, &[20, 40], false, behaviour);
        view.renderer.hide_crowd = true;
        for counts in [[20, 40], [120, 10]] {
            view.renderer.set_counts(&counts).expect("new counts");
            let table = view.renderer.scene().table.clone();
            assert_eq!(table.len(), 2);
            let radius = view.renderer.scene().radius();
            view.camera = stampede::render::Camera {
                target: glam::Vec3::ZERO,
                yaw: 0.0,
                pitch: 1.5,
                distance: radius * 2.6,
                ..Default::default()
            };
            let image = view.render(&settings()).expect("renders");
            let view_proj = view.camera.view_proj(SIZE.0 as f32 / SIZE.1 as f32);
            let colour = |p: glam::Vec3| -> [i32; 3] {
                let c = view_proj.project_point3(p);
                assert!(c.x.abs() < 0.95 && c.y.abs() < 0.95, "{p} is in view");
                let x = ((c.x * 0.5 + 0.5) * SIZE.0 as f32) as usize;
                let y = ((0.5 - c.y * 0.5) * SIZE.1 as f32) as usize;
                let i = (y * SIZE.0 as usize + x) * 4;
                let px = &image.pixels[i..i + 3];
                [px[0] as i32, px[1] as i32, px[2] as i32]
            };
            let dirt = |c: [i32; 3]| c[0] > c[1];
            for (m, e) in table.iter().enumerate() {
                let centre = e.offset();
                for k in 0..8 {
                    let a = k as f32 * std::f32::consts::TAU / 8.0 + 0.2;
                    let dir = glam::Vec3::new(a.cos(), 0.0, a.sin());
                    let on_ring = colour(centre + dir * 0.8 * e.field_radius);
                    let inside = colour(centre + dir * 0.3 * e.field_radius);
                    assert_eq!(
                        dirt(on_ring),
                        rings,
                        "model {m} of {counts:?}, behaviour {}: {on_ring:?} at 0.8 of its radius",
                        behaviour.enabled
                    );
                    assert!(!dirt(inside), "model {m}: {inside:?} inside its ring");
                }
            }
            // Between the fields (the gap's middle): grass.
            let gap = (table[0].offset[0] + table[0].field_radius + table[1].offset[0]
                - table[1].field_radius)
                * 0.5;
            let between = colour(glam::Vec3::new(gap, 0.0, 0.0));
            assert!(!dirt(between), "{between:?} between the fields");
        }
    }
}
