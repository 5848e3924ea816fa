//! The casters the camera's cull pass lists for the shadow cascades
//! (`crowd::caster_list`): the cascades going over that list keep exactly
//! the casters they keep going over the whole crowd (each cascade's list,
//! its dropped count and the picture, byte for byte), while the list holds
//! only part of the crowd; and the list is the CPU gate's, instance by
//! instance.

mod culling_common;
mod gpu_common;
use gpu_common as common;

use glam::Vec4;
use stampede::crowd::caster_list::{CasterGate, listed_dispatch};
use stampede::crowd::cull::DROPPED_WORD;
use stampede::crowd::setup::ModelChoice;
use stampede::render::Camera;
use stampede::render::headless::Headless;
use std::collections::{BTreeMap, BTreeSet};

const COUNT: u32 = 1_500;

/// Each cascade's entries (index → bits) and dropped count, and whether it
/// went over the camera's list.
fn cascades(view: &Headless) -> Vec<(BTreeMap<u32, u32>, u32, bool)> {
    let r = &view.renderer;
    r.shadows()
        .cascade_targets()
        .iter()
        .filter(|t| t.culled())
        .map(|t| {
            let lists = t.read_lists(&r.gpu).expect("read back");
            let word = r.culler().regions().counter_word() + DROPPED_WORD;
            let dropped = lists.args.get(word as usize).copied().unwrap_or(0);
            (culling_common::entries(&lists), dropped, t.went_over_list())
        })
        .collect()
}

/// The herd's opening view, one from behind it and one looking across it
/// with a narrow lens (the cascades' boxes then take in little of it).
fn cameras(opening: Camera) -> [(&'static str, Camera); 3] {
    [
        ("opening view", opening),
        (
            "behind the herd",
            Camera {
                yaw: opening.yaw + std::f32::consts::PI,
                ..opening
            },
        ),
        (
            "narrow view",
            Camera {
                yaw: opening.yaw + 0.5,
                fov_y: 15f32.to_radians(),
                ..opening
            },
        ),
    ]
}

/// With the list and without (and with occlusion culling), every cascade
/// keeps the same casters and drops the same number, and the picture is
/// the same; with it, every cascade went over the list, the list holds
/// every cascade's casters and less than the crowd. A gate that drops an instance a cascade keeps (a
/// plane's sign, the slack) fails the first; a list that is the whole
/// crowd fails the last.
#[test]
fn the_cascades_keep_the_same_casters_over_the_cameras_list() {
    let Some((mut view, _)) = culling_common::view(ModelChoice::Horse, COUNT, 160, true) else {
        return;
    };
    let [opening, ..] = cameras(view.camera);
    // The three views, then the first with occlusion culling (the camera's
    // pass is then its phase 1, which lists the casters).
    let runs = cameras(view.camera)
        .into_iter()
        .map(|(what, camera)| (what, camera, false))
        .chain([("opening view, occlusion culling", opening.1, true)]);
    for (what, camera, occlusion) in runs {
        view.camera = camera;
        let listed = same_casters_over_the_list(&mut view, what, occlusion);
        assert!(
            listed.len() < COUNT as usize,
            "{what}: the camera listed the whole crowd"
        );
    }
}

/// A crowd of one horse: the list holds it, the camera's pass counted a
/// workgroup for it, and the cascades keep it. A workgroup counted at any
/// instance but each CULL_GROUP-th's first leaves a list of one without
/// one (lists of 250 to 489 above get the same count either way).
#[test]
fn a_list_of_one_gets_its_workgroup() {
    let Some((mut view, loaded)) = culling_common::view(ModelChoice::Horse, 1, 96, true) else {
        return;
    };
    // Look at the horse where it is at the frame's time.
    view.render(&culling_common::settings(3.0)).expect("render");
    let r = &view.renderer;
    let sphere = r.culler().last_uniform().expect("culled").models[0].sphere;
    let (centre, radius, _) = common::world_sphere(r, &loaded, sphere, culling_common::SEED, 0);
    view.camera.target = centre;
    view.camera.distance = radius * 6.0;
    let listed = same_casters_over_the_list(&mut view, "one horse", false);
    assert_eq!(listed, [0], "the one horse is listed");
}

/// Renders the view with the list off, then on, and checks that every
/// cascade keeps the same casters and drops the same number, that the
/// picture is the same, that every cascade went over the list, that the
/// list holds every cascade's casters, no instance twice, and that the
/// cascades' dispatch is a workgroup for each CULL_GROUP begun. Returns
/// the list.
fn same_casters_over_the_list(view: &mut Headless, what: &str, occlusion: bool) -> Vec<u32> {
    let s = culling_common::settings(3.0);
    let mut settings = view.renderer.cull_settings();
    settings.occlusion = occlusion;
    settings.caster_list = false;
    view.renderer.set_cull_settings(settings);
    let whole = view.render(&s).expect("render");
    let over_all = cascades(view);
    let culler = view.renderer.culler();
    let gpu = &view.renderer.gpu;
    assert!(
        culler.read_caster_list(gpu).expect("read").is_empty(),
        "{what}: the camera listed casters with the list off"
    );
    settings.caster_list = true;
    view.renderer.set_cull_settings(settings);
    let listed_img = view.render(&s).expect("render");
    let over_list = cascades(view);
    let culler = view.renderer.culler();
    let gpu = &view.renderer.gpu;
    let listed = culler.read_caster_list(gpu).expect("read");
    let dispatch = culler.read_caster_dispatch(gpu).expect("read");
    assert_eq!(
        dispatch,
        Some(listed_dispatch(listed.len() as u32)),
        "{what}: the cascades' workgroups for {} listed",
        listed.len()
    );
    assert!(!over_all.is_empty(), "{what}: the cascades were culled");
    assert_eq!(over_all.len(), over_list.len(), "{what}: cascades culled");
    let set: BTreeSet<u32> = listed.iter().copied().collect();
    assert_eq!(set.len(), listed.len(), "{what}: an instance listed twice");
    let mut kept = 0;
    for (c, (all, list)) in over_all.iter().zip(&over_list).enumerate() {
        assert!(
            !all.2,
            "{what}, cascade {c}: went over a list with the list off"
        );
        assert!(
            list.2,
            "{what}, cascade {c}: did not go over the camera's list"
        );
        assert_eq!(all.0, list.0, "{what}, cascade {c}: the casters differ");
        assert_eq!(
            all.1, list.1,
            "{what}, cascade {c}: the dropped counts differ"
        );
        assert!(
            list.0.keys().all(|i| set.contains(i)),
            "{what}, cascade {c}: keeps a caster the camera did not list"
        );
        kept += list.0.len();
    }
    let d = common::diff(&whole, &listed_img, 0);
    eprintln!(
        "{what}: {} listed, {kept} casters kept over the cascades, {} px differ",
        listed.len(),
        d.failed
    );
    assert_eq!(d.failed, 0, "{what}: the picture changed");
    assert!(kept > 0, "{what}: the cascades kept no caster");
    listed
}

/// The camera's list is the CPU twin's (`CasterGate::admits`) over each
/// cascade's planes, for every instance but those within rounding of the
/// gate's edge; and the gate keeps every instance a cascade's box holds.
#[test]
fn the_list_is_the_cpu_gate() {
    let Some((mut view, loaded)) = culling_common::view(ModelChoice::Horse, COUNT, 160, true)
    else {
        return;
    };
    let s = culling_common::settings(3.0);
    for (what, camera) in cameras(view.camera) {
        view.camera = camera;
        view.render(&s).expect("render");
        let r = &view.renderer;
        let listed: BTreeSet<u32> = r
            .culler()
            .read_caster_list(&r.gpu)
            .expect("read")
            .into_iter()
            .collect();
        let views: Vec<[Vec4; 6]> = r
            .shadows()
            .cascade_targets()
            .iter()
            .filter(|t| t.culled())
            .map(|t| {
                t.last_uniform()
                    .expect("culled")
                    .planes
                    .map(Vec4::from_array)
            })
            .collect();
        let gate = CasterGate {
            views: views.clone(),
        };
        let sphere = r.culler().last_uniform().expect("culled").models[0].sphere;
        let (mut admitted, mut close) = (0, 0);
        for i in 0..COUNT {
            let (c, radius, _) = common::world_sphere(r, &loaded, sphere, culling_common::SEED, i);
            // Within rounding of the gate's edge: either answer is right.
            let edge = views.iter().flatten().any(|p| {
                let m = p.truncate().dot(c)
                    + p.w
                    + radius
                    + stampede::crowd::caster_list::gate_slack(*p, c);
                m.abs() < 1e-3 * radius.max(1.0)
            });
            if edge {
                close += 1;
                continue;
            }
            let cpu = gate.admits(c, radius);
            admitted += cpu as usize;
            assert_eq!(
                listed.contains(&i),
                cpu,
                "{what}: instance {i} listed on the GPU: {}, by the CPU gate: {cpu}",
                listed.contains(&i)
            );
            for planes in &views {
                assert!(
                    gate.covers(planes, c, radius),
                    "{what}: {i} in a box, not admitted"
                );
            }
        }
        eprintln!(
            "{what}: {} listed, {admitted} admitted by the CPU, {close} at the edge",
            listed.len()
        );
        assert!(admitted > 0, "{what}: the cascades' boxes hold no horse");
    }
}
