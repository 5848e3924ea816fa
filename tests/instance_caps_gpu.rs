//! A capped technique in a scene of several models (compute skinning, whose
//! cap with the deer on lavapipe is two or three thousand): the cap is
//! shared out over the models in proportion to their counts, each model
//! drawing its first instances, instead of the first models whole and the
//! last not at all, and it is what the skinned vertices hold with each
//! instance taking its own model's vertices. The cull pass lists exactly
//! the instances the CPU twin lists from the written table, and what the
//! draws read of the last model's instances (whose slots are shifted past
//! the first model's undrawn ones) is CPU skinning of those instances.

mod gpu_common;
mod mixed_common;
use gpu_common as common;
use mixed_common::*;
#[path = "common/mod.rs"]
mod shared;

use stampede::crowd::scene::CrowdModelGpu;
use stampede::crowd::setup::{ModelChoice, load};
use stampede::crowd::{FrameSettings, instance_clip_time, pose_time};
use stampede::render::TechniqueKind;
use stampede::render::data::crowd_buffer::scene_seed;
use stampede::skin;
use stampede::vat::Precision;
use std::collections::BTreeMap;

#[test]
fn a_capped_scene_draws_every_model_its_share() {
    let Some(gpu) = common::gpu_or_skip("instance_caps_gpu") else {
        return;
    };
    let Some(deer) = shared::shared_model("QuaterniusDeer.gltf") else {
        return;
    };
    let loaded = vec![
        load(&ModelChoice::Horse, 30.0, Precision::F16, None).expect("the horse bakes"),
        load(&ModelChoice::File(deer), 30.0, Precision::F16, None).expect("the deer bakes"),
    ];
    let settings = FrameSettings {
        time: 1.0 + 0.43 / 30.0,
        ..FrameSettings::default()
    };
    // About the cap of this scene on this device (it depends on the
    // models' vertex counts, their proportions and the device's limits):
    // the cap at even counts.
    let probe = {
        let mut probe = scene_with(gpu.clone(), &loaded, &[4, 4], false);
        probe
            .renderer
            .set_technique(TechniqueKind::ComputeSkinning)
            .expect("builds for a scene");
        probe.draw_frame(&settings).expect("draws");
        probe
            .renderer
            .costs()
            .cap
            .expect("compute skinning is capped")
    };
    assert!(probe < 20_000, "a cap this test can exceed: {probe}");
    // More than the cap, the deer last.
    let counts = [probe * 3 / 4, probe / 2];
    let requested: u32 = counts.iter().sum();
    let mut view = scene_with(gpu.clone(), &loaded, &counts, false);
    let mut cull = view.renderer.cull_settings();
    cull.impostors = false;
    view.renderer.set_cull_settings(cull);
    view.renderer
        .set_technique(TechniqueKind::ComputeSkinning)
        .expect("builds for a scene");
    view.camera.distance *= 0.5;
    view.draw_frame(&settings).expect("draws");
    let costs = view.renderer.costs();
    let cap = costs.cap.expect("capped");
    eprintln!("cap {cap} (at even counts {probe}), counts {counts:?}");
    assert!(cap < requested, "the scene is over its cap");
    assert_eq!((costs.drawn, costs.requested), (cap, requested));

    // Each model its share, in proportion, the first ones first.
    let written = view.renderer.crowd().models_written().to_vec();
    let drawn: Vec<u32> = written.iter().map(CrowdModelGpu::drawn).collect();
    eprintln!("drawn per model {drawn:?}");
    assert_eq!(drawn.iter().sum::<u32>(), cap);
    for (m, (&d, &c)) in drawn.iter().zip(&counts).enumerate() {
        let share = cap as f64 * c as f64 / requested as f64;
        assert!(
            (d as f64 - share).abs() <= 1.0,
            "model {m} draws {d} of {c}, its share {share:.1}"
        );
    }
    assert_eq!(written[1].first_slot(), drawn[0], "the deer's slots follow");
    // The cap is what one binding holds of skinned vertices, each drawn
    // instance its own model's: one more would not fit (so it is more
    // than every slot at the deer's size would hold).
    let caps = view.renderer.gpu.caps;
    let limit = caps
        .max_storage_buffer_binding_size
        .min(caps.max_buffer_size);
    let vertices: Vec<u64> = loaded
        .iter()
        .map(|l| l.model.vertex_count() as u64)
        .collect();
    let bytes = |d: &[u32]| {
        d.iter()
            .zip(&vertices)
            .map(|(&d, &v)| d as u64 * v * 16)
            .sum::<u64>()
    };
    assert!(bytes(&drawn) <= limit);
    let mut more = written.clone();
    CrowdModelGpu::share_cap(&mut more, cap + 1);
    let more: Vec<u32> = more.iter().map(CrowdModelGpu::drawn).collect();
    assert!(bytes(&more) > limit, "{more:?} would fit too");
    let deer_slots = limit / (vertices[1] * 16);
    eprintln!("every slot the deer's size: {deer_slots}");
    assert!(cap as u64 > deer_slots);

    // The cull lists exactly what the CPU twin lists from that table.
    let (lists, _, _) = assert_cull_matches(&view, &gpu, "capped", |m, entry, _, inst, f| {
        looped(&loaded, m, entry, inst, f)
    });
    let regions = view.renderer.culler().regions().clone();
    let mask = stampede::crowd::cull::INDEX_MASK;
    // Every listed instance is drawn (has a slot); each model is listed.
    let mut listed: Vec<BTreeMap<u32, usize>> = vec![BTreeMap::new(); 2];
    for (m, seen) in listed.iter_mut().enumerate() {
        for l in 0..regions.levels[m] {
            let r = (regions.first_region(m) + l) as usize;
            for &e in &lists.entries[r] {
                let i = e & mask;
                assert_eq!(CrowdModelGpu::model_of(&written, i), m);
                assert!(
                    CrowdModelGpu::slot_of(&written, i).is_some(),
                    "instance {i} is listed but not drawn"
                );
                seen.entry(i).or_insert(l as usize);
            }
        }
        assert!(!seen.is_empty(), "model {m} is in the picture");
    }

    // What the draws read of some of the deer is CPU skinning of them.
    let scene = view.renderer.scene().clone();
    let base = scene.vat.models[1].vertex_base;
    let (model, vat) = (&loaded[1].model, &loaded[1].vat);
    let frame = view.renderer.last_frame.expect("a frame");
    let f = written[1].frame_for(&frame);
    let mut queries = Vec::new();
    let mut expected = Vec::new();
    for (&i, &level) in listed[1].iter().take(12) {
        let local = i - written[1].first_instance;
        let inst = stampede::crowd::generate(scene_seed(SEED, 1), local);
        let (c, t) = instance_clip_time(&inst, &f, &vat.clips);
        let pose = model.sample_pose(vat.clips[c].source, pose_time(&vat.clips[c], t));
        let (p, n) = skin::skin(model, &pose);
        for &v in loaded[1].lod.level_indices(level).iter().step_by(2) {
            queries.push([base + v, i, base, 0]);
            expected.push((p[v as usize], n[v as usize]));
        }
    }
    let got = common::read_compute_skinned(&view.renderer, &queries);
    let size = vat.report.diagonal;
    for (k, ((gp, gn), (ep, en))) in got.iter().zip(&expected).enumerate() {
        let [v, i, ..] = queries[k];
        let dp = gp.distance(*ep);
        assert!(
            dp <= 1e-5 * size,
            "deer instance {i} vertex {v}: GPU {gp} vs CPU {ep} ({dp:.2e})"
        );
        assert!(gn.distance(en.normalize_or_zero()) <= 1e-4, "normal of {v}");
    }
    eprintln!("{} skinned deer vertices match CPU skinning", queries.len());
    view.renderer.gpu.check().expect("no device error");
}

/// A count whose visible list (one region per model and level, each as
/// large as the crowd's power of two) would pass the device's largest
/// storage binding is refused, with the reason, and the renderer goes on
/// with its count; one that fits is taken. Horses and birds have more
/// regions than a horse alone, so on a 128 MiB binding (lavapipe, a
/// browser) 2.2 million of them are refused though the instances fit.
#[test]
fn a_visible_list_past_the_binding_is_refused() {
    let Some(gpu) = common::gpu_or_skip("instance_caps_gpu") else {
        return;
    };
    let loaded = models();
    let mut view = scene_with(gpu.clone(), &loaded, &[100, 100], false);
    let limit = gpu.caps.max_storage_buffer_binding_size;
    let regions = view.renderer.culler().regions().regions() as u64;
    let counts = [2_000_000u32, 200_000];
    // Each region holds the crowd's power of two: 4,194,304 entries.
    let list = regions * 4_194_304 * 4 + 4;
    let result = view.renderer.set_counts(&counts);
    if list > limit {
        let err = result.expect_err("the list cannot be bound").to_string();
        assert!(
            err.contains("2200000 instances need a visible list of")
                && err.contains(&format!("{regions} regions")),
            "{err}"
        );
        assert_eq!(view.renderer.crowd().counts(), &[100, 100], "unchanged");
        view.render(&FrameSettings::default()).expect("still draws");
    } else {
        eprintln!("this device binds {limit} bytes: {list} fit");
        result.expect("fits");
    }
}
