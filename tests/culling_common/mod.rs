//! What the cull tests share: a small crowd's view, and the CPU twin of
//! the cull pass's rule for any pass's parameters (the camera's or a
//! shadow cascade's), with the instances where f32 rounding may decide.
#![allow(dead_code)]

use crate::gpu_common as common;
use glam::Vec3;
use stampede::crowd::cull::{
    CullUniform, FLAG_CAMERA_LOD, FLAG_GROUND, FLAG_IMPOSTOR, FLAG_MIN_SIZE, FLAG_RECEIVERS,
    INDEX_MASK, entry_region,
};
use stampede::crowd::setup::{Loaded, ModelChoice, load};
use stampede::crowd::{BehaviourSettings, FrameSettings};
use stampede::render::RendererConfig;
use stampede::render::headless::{self, Headless};
use stampede::render::passes::cull::VisibleLists;
use stampede::vat::Precision;
use std::collections::BTreeMap;

pub const SEED: u64 = 11;

/// A small crowd of `choice` at `size` × 9/16 pixels.
pub fn view(
    choice: ModelChoice,
    count: u32,
    size: u32,
    behaviour: bool,
) -> Option<(Headless, Loaded)> {
    let gpu = common::gpu_or_skip("culling")?;
    let loaded = load(&choice, 30.0, Precision::F16, None).expect("the model bakes");
    let mut config =
        RendererConfig::for_model(&loaded, size, size * 9 / 16, count, SEED, headless::FORMAT);
    config.clip = None;
    if behaviour {
        config.behaviour = BehaviourSettings::on();
    }
    let view = Headless::new(gpu, &loaded.model, &loaded.vat, &config).expect("renderer");
    Some((view, loaded))
}

/// A frame at `time` with every instance on its own clip.
pub fn settings(time: f64) -> FrameSettings {
    FrameSettings {
        time,
        ..FrameSettings::default()
    }
}

/// The CPU's visible set for a pass's parameters (the camera's or a
/// cascade's): index → entry bits, the indices within `eps` of a plane or
/// a budget (where f32 rounding may decide), and how many straddle a plane.
pub fn cpu_visible_for(
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

/// Index → entry bits of read-back lists.
pub fn entries(lists: &VisibleLists) -> BTreeMap<u32, u32> {
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
pub fn differ(gpu: &BTreeMap<u32, u32>, cpu: &BTreeMap<u32, u32>, close: &[u32]) -> Vec<u32> {
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
pub fn check_cascades(view: &mut Headless, loaded: &Loaded, what: &str) -> Vec<usize> {
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
                r.lod(0)
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
