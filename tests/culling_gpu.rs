//! The cull pass on the GPU against its CPU twin and against the unculled
//! picture: the visible set (and each survivor's level and nearest-frame
//! bit) equals `CullUniform::cull` applied to the CPU placement of every
//! instance, for several camera poses (inside the crowd, looking away,
//! straddling planes), loops and herd; culling on draws the same image as
//! culling off, for horses and birds, behaviour on and off, through the
//! multi-draw and the per-level draws; counts of 1 and 1,000,000 work; each
//! shadow cascade keeps the casters the CPU rule keeps (the sun's box and
//! the camera's frustum swept along the light), far fewer than the boxes
//! alone in narrow views.

mod gpu_common;
use gpu_common as common;
use stampede::crowd::shadow::{ShadowDistance, ShadowSettings};

use glam::Vec3;
use stampede::crowd::cull::{
    CullSettings, CullUniform, FLAG_CAMERA_LOD, FLAG_GROUND, FLAG_IMPOSTOR, FLAG_MIN_SIZE,
    FLAG_RECEIVERS, INDEX_MASK, entry_region,
};
use stampede::crowd::placement::instance_placement;
use stampede::crowd::setup::{Loaded, ModelChoice, load};
use stampede::crowd::{BehaviourSettings, FrameSettings, generate};
use stampede::render::cull::VisibleLists;
use stampede::render::headless::{self, Headless, RgbaImage};
use stampede::render::{Camera, RendererConfig};
use stampede::vat::Precision;
use std::collections::BTreeMap;

const SEED: u64 = 11;

fn view(choice: ModelChoice, count: u32, size: u32, behaviour: bool) -> Option<(Headless, Loaded)> {
    let gpu = common::gpu_or_skip("culling")?;
    let loaded = load(&choice, 30.0, Precision::F16, None).expect("the model bakes");
    let mut config =
        RendererConfig::for_model(&loaded, size, size * 9 / 16, count, SEED, headless::FORMAT);
    if behaviour {
        config.behaviour = BehaviourSettings::on();
    }
    let view = Headless::new(gpu, &loaded.model, &loaded.vat, &config).expect("renderer");
    Some((view, loaded))
}

fn settings(time: f64) -> FrameSettings {
    FrameSettings {
        time,
        clip: None,
        ..FrameSettings::default()
    }
}

/// The CPU's visible set for the last frame's camera pass: index → entry
/// bits, and the indices within `eps` of a plane (where f32 rounding may
/// decide).
fn cpu_visible(
    view: &Headless,
    loaded: &Loaded,
    eps: f32,
) -> (BTreeMap<u32, u32>, Vec<u32>, usize) {
    let uniform = view.renderer.culler().last_uniform().expect("the pass ran");
    cpu_visible_for(view, loaded, &uniform, eps)
}

/// The same for any pass's parameters (the camera's or a cascade's).
fn cpu_visible_for(
    view: &Headless,
    loaded: &Loaded,
    uniform: &CullUniform,
    eps: f32,
) -> (BTreeMap<u32, u32>, Vec<u32>, usize) {
    let r = &view.renderer;
    let planes = uniform.planes.map(glam::Vec4::from_array);
    let receivers = uniform.receivers.map(glam::Vec4::from_array);
    let sweep = glam::Vec4::from_array(uniform.sweep).truncate();
    let lookup = uniform.sweep[3];
    let mut visible = BTreeMap::new();
    let mut close = Vec::new();
    let mut straddling = 0;
    for i in 0..uniform.count {
        let (c, radius, scale) = common::world_sphere(r, loaded, uniform.models[0].sphere, SEED, i);
        let margin = stampede::crowd::cull::sphere_margin(&planes, c, radius);
        // Within rounding of a plane, or of the pixel budget for a level
        // or the nearest frame: f32 order of operations may decide.
        let errors = (1..uniform.models[0].levels)
            .map(|l| uniform.level_error(l))
            .chain([uniform.models[0].nearest_error]);
        let near = |a: f32, b: f32| (a - b).abs() <= 1e-3 * b.max(1e-3);
        let at_budget = errors
            .into_iter()
            .any(|e| near(uniform.project(e, scale, c, radius), uniform.budget_px));
        // Within rounding of the impostor switch or the smallest size kept
        // (a light's view with the camera's rule: the camera's size and
        // pixel budget too).
        let size = uniform.diameter_px(c, radius);
        let camera = uniform.flags & FLAG_CAMERA_LOD != 0;
        let seen = if camera {
            uniform.camera_diameter(c, radius)
        } else {
            size
        };
        let eye = Vec3::from_slice(&uniform.camera[..3]);
        let at_camera_budget = camera
            && (1..uniform.models[0].levels).any(|l| {
                let px = uniform.level_error(l) * scale * uniform.camera[3]
                    / ((c - eye).length() - radius).max(1e-4);
                near(px, uniform.budget_px)
            });
        let at_size = (near(seen, uniform.impostor_px)
            && (camera || uniform.flags & FLAG_IMPOSTOR != 0))
            || (uniform.flags & FLAG_MIN_SIZE != 0 && near(size, uniform.min_size_px))
            || at_camera_budget;
        // Within rounding of a receiver plane, at the sweep's start or, where
        // it ends under the ground, at its end.
        let length = (uniform.flags & FLAG_GROUND != 0)
            .then(|| stampede::crowd::cull::sweep_length(c, radius + lookup, sweep, uniform.ground))
            .flatten();
        let at_receiver = uniform.flags & FLAG_RECEIVERS != 0
            && receivers.iter().any(|q| {
                let n = q.truncate();
                let m = n.dot(c) + q.w + (radius + lookup);
                let end = length.map_or(f32::INFINITY, |l| m + n.dot(sweep) * l);
                m.abs() < eps * radius.max(1.0)
                    || end.abs() < eps * radius.max(1.0)
                    || n.dot(sweep).abs() < 1e-5
            });
        if margin.abs() < eps * radius.max(1.0) || at_budget || at_size || at_receiver {
            close.push(i);
        }
        // The sphere crosses a plane: its centre's distance is under r.
        if margin >= 0.0 && margin < 2.0 * radius {
            straddling += 1;
        }
        if let Some(bits) = uniform.cull(c, radius, scale) {
            visible.insert(i, bits);
        }
    }
    (visible, close, straddling)
}

fn gpu_visible(view: &Headless) -> BTreeMap<u32, u32> {
    let lists = view
        .renderer
        .culler()
        .read_lists(&view.renderer.gpu)
        .expect("read back");
    entries(&lists)
}

/// Index → entry bits of read-back lists.
fn entries(lists: &VisibleLists) -> BTreeMap<u32, u32> {
    let mut out = BTreeMap::new();
    for (level, entries) in lists.entries.iter().enumerate() {
        for &e in entries {
            assert_eq!(entry_region(e) as usize, level, "entry in its region");
            let previous = out.insert(e & INDEX_MASK, e & !INDEX_MASK);
            assert!(
                previous.is_none(),
                "instance {} listed twice",
                e & INDEX_MASK
            );
        }
    }
    out
}

/// The instances on which `gpu` and `cpu` differ, leaving out `close`.
fn differ(gpu: &BTreeMap<u32, u32>, cpu: &BTreeMap<u32, u32>, close: &[u32]) -> Vec<u32> {
    let mut out: Vec<u32> = gpu
        .iter()
        .filter(|(i, b)| cpu.get(i) != Some(b))
        .map(|(i, _)| *i)
        .chain(cpu.keys().filter(|i| !gpu.contains_key(i)).copied())
        .collect();
    out.retain(|i| !close.contains(i));
    out
}

/// Each shadow cascade's GPU casters against the CPU rule with the same
/// parameters, and the casters the renderer reports (read back late, as
/// the panel and bench read them) against the list; returns how many each
/// kept.
fn check_cascades(view: &mut Headless, loaded: &Loaded, what: &str) -> Vec<usize> {
    view.renderer.wait_for_cull_stats();
    let reported = view.renderer.shadow_stats();
    let r = &view.renderer;
    let mut kept = Vec::new();
    for (i, target) in r.shadows().cascade_targets().iter().enumerate() {
        let uniform = target.last_uniform().expect("the cascade was culled");
        let gpu = entries(&target.read_lists(&r.gpu).expect("read back"));
        let (cpu, close, _) = cpu_visible_for(view, loaded, &uniform, 1e-4);
        let d = differ(&gpu, &cpu, &close);
        assert!(
            d.is_empty(),
            "{what}, cascade {i}: GPU and CPU disagree on {} casters (e.g. {:?}); GPU {}, CPU {}",
            d.len(),
            &d[..d.len().min(8)],
            gpu.len(),
            cpu.len()
        );
        let stats = reported[i].expect("the cascade's counts were read back");
        assert_eq!(
            stats.visible_total() as usize,
            gpu.len(),
            "{what}, cascade {i}: reported casters"
        );
        let triangles: u64 = gpu
            .values()
            .map(|bits| {
                // A caster the camera draws as an impostor casts as one:
                // a quad.
                r.lod()
                    .levels
                    .get(entry_region(*bits) as usize)
                    .map_or(2, |l| l.triangles() as u64)
            })
            .sum();
        assert_eq!(
            stats.triangles_total(),
            triangles,
            "{what}, cascade {i}: reported triangles"
        );
        // The casters the receivers rule dropped: in the cascade's box
        // (and over the minimum size, which is tested after it) on the
        // CPU without the rule, not with it (two more CPU culls: not for
        // the million).
        let without = |flags: u32| {
            let mut u = uniform;
            u.flags &= !flags;
            let (kept, close, _) = cpu_visible_for(view, loaded, &u, 1e-4);
            (kept.len(), close.len())
        };
        if uniform.count <= 50_000 {
            let (boxed, close_boxed) = without(FLAG_RECEIVERS | FLAG_MIN_SIZE);
            let (reached, close_reached) = without(FLAG_MIN_SIZE);
            let dropped = boxed as i64 - reached as i64;
            let slack = (close_boxed + close_reached) as i64;
            assert!(
                (stats.dropped as i64 - dropped).abs() <= slack,
                "{what}, cascade {i}: {} casters reported dropped, the CPU drops {dropped} (±{slack})",
                stats.dropped
            );
        }
        if uniform.flags & FLAG_RECEIVERS == 0 {
            assert_eq!(
                stats.dropped, 0,
                "{what}, cascade {i}: no rule, none dropped"
            );
        }
        let mut regions = [0usize; 8];
        for bits in gpu.values() {
            regions[entry_region(*bits) as usize] += 1;
        }
        eprintln!(
            "{what}, cascade {i}: casters per level {regions:?}, {} dropped by the receivers rule",
            stats.dropped
        );
        kept.push(gpu.len());
    }
    eprintln!("{what}: casters per cascade {kept:?}");
    kept
}

/// Draws a frame and compares; returns (GPU visible, straddling a plane).
fn check_against_cpu(view: &mut Headless, loaded: &Loaded, what: &str) -> (usize, usize) {
    view.draw_frame(&settings(3.0)).expect("frame");
    let gpu = gpu_visible(view);
    let (cpu, close, straddling) = cpu_visible(view, loaded, 1e-4);
    let differ = differ(&gpu, &cpu, &close);
    assert!(
        differ.is_empty(),
        "{what}: GPU and CPU disagree on {} instances (e.g. {:?}); GPU {} visible, CPU {}",
        differ.len(),
        &differ[..differ.len().min(8)],
        gpu.len(),
        cpu.len()
    );
    eprintln!(
        "{what}: {} of {} visible, {straddling} straddling a plane, {} within rounding of one",
        gpu.len(),
        view.renderer.crowd.count(),
        close.len()
    );
    (gpu.len(), straddling)
}

#[test]
fn the_gpu_visible_set_equals_the_cpu_rule() {
    for (behaviour, lod) in [(false, false), (true, false), (false, true), (true, true)] {
        let Some((mut view, loaded)) = view(ModelChoice::Horse, 700, 160, behaviour) else {
            return;
        };
        view.renderer.set_cull_settings(CullSettings {
            lod,
            ..CullSettings::default()
        });
        let count = view.renderer.crowd.count() as usize;
        let opening = view.camera;
        // The opening view: some in, some out.
        let (n, _) = check_against_cpu(&mut view, &loaded, "opening view");
        assert!(
            n > 0 && n < count,
            "the opening view culls some: {n} of {count}"
        );
        // Inside the crowd, at a horse, looking along the ring.
        let frame = view.renderer.last_frame.expect("frame");
        let inst = generate(SEED, 0);
        let p = instance_placement(
            &inst,
            0,
            &frame,
            &loaded.vat.clips,
            &loaded.ground_speeds,
            view.renderer.behaviour().view(),
        )
        .expect("placed");
        view.camera = Camera {
            target: p.origin + Vec3::Y * 0.5,
            distance: 0.5,
            pitch: 0.05,
            ..opening
        };
        let (n, _) = check_against_cpu(&mut view, &loaded, "inside the crowd");
        assert!(n > 0 && n < count, "inside: {n} of {count}");
        // Looking straight up from the middle: nobody.
        view.camera = Camera {
            target: Vec3::new(0.0, 5.0, 0.0),
            pitch: -1.5,
            distance: 1.0,
            ..opening
        };
        check_against_cpu(&mut view, &loaded, "looking up");
        // Narrow views across the field: many spheres straddle a plane.
        for yaw in [0.3f32, 1.9, 4.0] {
            view.camera = Camera {
                yaw,
                fov_y: 12f32.to_radians(),
                ..opening
            };
            let (_, straddling) =
                check_against_cpu(&mut view, &loaded, &format!("narrow view at yaw {yaw}"));
            assert!(
                straddling > 0,
                "the narrow view at yaw {yaw} cuts through horses"
            );
        }
    }
}

#[test]
fn each_cascade_keeps_the_casters_the_cpu_rule_keeps() {
    let Some((mut view, loaded)) = view(ModelChoice::Horse, 700, 160, false) else {
        return;
    };
    let opening = view.camera;
    view.draw_frame(&settings(3.0)).expect("frame");
    let all = check_cascades(&mut view, &loaded, "opening view");
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
        view.draw_frame(&settings(3.0)).expect("frame");
        let kept = check_cascades(&mut view, &loaded, &format!("narrow view at yaw {yaw}"));
        view.renderer.set_shadow_settings(ShadowSettings {
            cull_to_view: false,
            ..ShadowSettings::default()
        });
        view.draw_frame(&settings(3.0)).expect("frame");
        let boxes = check_cascades(&mut view, &loaded, &format!("yaw {yaw}, boxes only"));
        let (kept, boxes) = (kept.iter().sum::<usize>(), boxes.iter().sum::<usize>());
        assert!(
            kept > 0 && kept < boxes,
            "yaw {yaw}: the view's receivers keep {kept} casters, the boxes alone {boxes}"
        );
        view.renderer.set_shadow_settings(ShadowSettings::default());
    }
}

fn image(view: &mut Headless, s: &FrameSettings) -> RgbaImage {
    view.render(s).expect("render")
}

#[test]
fn culling_on_draws_the_same_image_as_culling_off() {
    for (choice, behaviour) in [
        (ModelChoice::Horse, false),
        (ModelChoice::Horse, true),
        (ModelChoice::Bird, false),
        (ModelChoice::Bird, true),
    ] {
        let Some((mut view, _)) = view(choice.clone(), 300, 192, behaviour) else {
            return;
        };
        // A narrower view than the opening one, turned a little, so that
        // some are out.
        view.camera.fov_y *= 0.3;
        view.camera.yaw += 0.4;
        let s = settings(2.5);
        let off = CullSettings {
            culling: false,
            lod: false,
            ..CullSettings::default()
        };
        let on = CullSettings {
            lod: false,
            ..CullSettings::default()
        };
        // Warm the behaviour to the same state, then draw each way.
        view.renderer.set_cull_settings(off);
        let reference = image(&mut view, &s);
        assert_eq!(view.renderer.last_frame.map(|f| f.culled), Some(0));
        view.renderer.set_cull_settings(on);
        let multi = image(&mut view, &s);
        assert_eq!(view.renderer.last_frame.map(|f| f.culled), Some(1));
        let stats = view.renderer.wait_for_cull_stats();
        assert!(
            stats.visible_total() < 300,
            "{choice:?}: some culled ({stats:?})"
        );
        view.renderer.culler_mut().multi_draw = false;
        view.renderer.culler_mut().reset_lists();
        let per_level = image(&mut view, &s);
        let what = format!("{choice:?} behaviour {behaviour}");
        for (name, img) in [("multi-draw", &multi), ("per-level draws", &per_level)] {
            let d = common::diff(&reference, img, 0);
            assert!(
                d.failed == 0,
                "{what}: culling on ({name}) changed {} pixels",
                d.failed
            );
        }
    }
}

#[test]
fn one_and_a_million_instances_cull_without_errors() {
    let Some((mut view, loaded)) = view(ModelChoice::Horse, 1, 64, false) else {
        return;
    };
    view.renderer.set_cull_settings(CullSettings {
        lod: false,
        ..CullSettings::default()
    });
    let (n, _) = check_against_cpu(&mut view, &loaded, "one horse");
    assert_eq!(n, 1, "the opening view shows its one horse");
    // First the camera's pass alone.
    view.renderer.set_shadow_settings(ShadowSettings {
        enabled: false,
        ..ShadowSettings::default()
    });
    view.renderer.set_count(1_000_000).expect("a million fit");
    // A narrow look at part of the opening view: the pass runs over a
    // million, the draw takes what it keeps.
    view.camera = view.renderer.default_camera();
    view.camera.fov_y = 3f32.to_radians();
    let (n, _) = check_against_cpu(&mut view, &loaded, "a million");
    assert!(n > 0, "some of a million are in view");
    // Then the sun's: the cascades' boxes around this long, narrow view
    // take in hundreds of thousands of horses; only those whose shadow can
    // reach the view are drawn. (Without the shadow distance, which
    // would end the shadows before these far horses.)
    view.renderer.set_shadow_settings(ShadowSettings {
        distance: ShadowDistance::Off,
        ..ShadowSettings::default()
    });
    view.renderer.set_cull_settings(CullSettings::default());
    view.draw_frame(&settings(3.0)).expect("frame");
    let kept = check_cascades(&mut view, &loaded, "a million, shadows");
    // The same cascades by the boxes alone, on the CPU (drawing them takes
    // a CPU rasterizer about 20 s): 583,856 casters against 69,329.
    let boxes: usize = view
        .renderer
        .shadows()
        .cascade_targets()
        .iter()
        .map(|t| {
            let mut u = t.last_uniform().expect("culled");
            u.flags &= !FLAG_RECEIVERS;
            cpu_visible_for(&view, &loaded, &u, 1e-4).0.len()
        })
        .sum();
    let kept: usize = kept.iter().sum();
    eprintln!("a million, shadows: {kept} casters kept, {boxes} in the boxes");
    assert!(
        kept > 0 && kept * 4 < boxes,
        "the view's receivers should drop most of the boxes' casters ({kept} of {boxes})"
    );
    view.renderer.gpu.check().expect("no validation error");
}

#[test]
fn frozen_culling_keeps_the_frozen_views_set() {
    let Some((mut view, loaded)) = view(ModelChoice::Horse, 500, 128, false) else {
        return;
    };
    let s = settings(1.0);
    view.renderer.set_cull_settings(CullSettings {
        lod: false,
        freeze: true,
        ..CullSettings::default()
    });
    view.draw_frame(&s).expect("frame");
    let frozen = gpu_visible(&view);
    let frozen_planes = view.renderer.culler().last_uniform().expect("ran").planes;
    // Turn right round: the frozen set is still what is drawn.
    view.camera.yaw += std::f32::consts::PI;
    view.draw_frame(&s).expect("frame");
    assert_eq!(gpu_visible(&view), frozen, "frozen culling keeps its set");
    assert_eq!(
        view.renderer.culler().last_uniform().expect("ran").planes,
        frozen_planes
    );
    // Unfrozen, the new view culls for itself and agrees with the CPU.
    view.renderer.set_cull_settings(CullSettings {
        lod: false,
        ..CullSettings::default()
    });
    let (n, _) = check_against_cpu(&mut view, &loaded, "turned round");
    assert_ne!(gpu_visible(&view), frozen);
    assert!(n > 0);
}
