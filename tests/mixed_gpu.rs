//! A scene of several models as one crowd: each model's picture is the
//! scene's where the other models are absent; the cull pass's counts per
//! (model, level) are the CPU rule's; one multi-draw covers every model;
//! what a scene cannot do yet is refused with the reason.

mod gpu_common;
mod mixed_common;
use gpu_common as common;
use mixed_common::*;
#[path = "common/mod.rs"]
mod shared;

use stampede::crowd::scene::CrowdModelGpu;
use stampede::crowd::setup::{ModelChoice, load};
use stampede::crowd::{BehaviourSettings, FrameSettings};
use stampede::render::data::crowd_buffer::scene_seed;
use stampede::render::headless::{Headless, RgbaImage};
use stampede::render::{CrowdDraw, RendererConfig, TechniqueKind};
use stampede::vat::Precision;

/// Horses and birds in one scene: where the birds leave the picture as it
/// is without either (no bird, no bird's shadow), the scene's pixel is the
/// horses' alone, exactly; and the other way round. From the opening view
/// and a closer one, at two times. With shadows, a model's shadow falls on
/// the other model too (the pixel then shows the other model, not the
/// ground the lone model's shadow would be judged on): those pixels differ
/// only by being darker, and are few.
#[test]
fn each_model_is_its_own_picture_where_the_other_is_absent() {
    let Some(gpu) = common::gpu_or_skip("mixed_gpu") else {
        return;
    };
    let loaded = models();
    let out = std::env::temp_dir().join(format!("stampede-mixed-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    for shadows in [false, true] {
        let mut view = scene_with(gpu.clone(), &loaded, &[60, 80], shadows);
        let opening = view.camera;
        let mut closer = opening;
        closer.distance *= 0.45;
        for (v, camera) in [opening, closer].into_iter().enumerate() {
            for time in [2.0, 3.7] {
                view.camera = camera;
                let settings = FrameSettings {
                    time,
                    ..FrameSettings::default()
                };
                let both = picture(&mut view, 0, &settings);
                let horses = picture(&mut view, 0b10, &settings);
                let birds = picture(&mut view, 0b01, &settings);
                let none = picture(&mut view, 0b11, &settings);
                both.save_png(&out.join(format!("scene-{shadows}-{v}-{time}.png")))
                    .unwrap();
                let n = (SIZE.0 * SIZE.1) as usize;
                let (mut checked, mut covered, mut differ) =
                    ([0usize; 2], [0usize; 2], [0usize; 2]);
                let brightness = |img: &RgbaImage, i: usize| -> u32 {
                    img.pixels[i * 4..i * 4 + 3].iter().map(|&c| c as u32).sum()
                };
                for i in 0..n {
                    // Where one model changes nothing, the scene is the
                    // other's alone.
                    for (k, (alone, other)) in [(&horses, &birds), (&birds, &horses)]
                        .into_iter()
                        .enumerate()
                    {
                        if !same_pixel(other, &none, i) {
                            continue;
                        }
                        checked[k] += 1;
                        if !same_pixel(&both, alone, i) {
                            differ[k] += 1;
                            assert!(
                                shadows && brightness(&both, i) <= brightness(alone, i),
                                "shadows {shadows} view {v} t {time}: pixel {i} differs from the model alone"
                            );
                        }
                    }
                    covered[0] += !same_pixel(&horses, &none, i) as usize;
                    covered[1] += !same_pixel(&birds, &none, i) as usize;
                }
                eprintln!(
                    "shadows {shadows} view {v} t {time}: horses cover {} px, birds {} px; checked {checked:?} of {n}, darker by the other's shadow {differ:?}",
                    covered[0], covered[1]
                );
                // Both models are in the picture (else the test checks
                // nothing), and the other's shadow touches few pixels.
                assert!(covered[0] > 50 && covered[1] > 5, "covered {covered:?}");
                assert!(checked[0] > n / 2 && checked[1] > n / 2);
                assert!(differ[0] + differ[1] <= n / 200, "{differ:?}");
            }
        }
    }
}

/// The cull pass over a scene: every instance placed and culled on the CPU
/// by the same rule (its model's field, clips, sphere and levels) lands in
/// the same (model, level) region the GPU put it in, counted alike; and
/// the crowd's draw is one multi-draw over every model's regions.
#[test]
fn visible_counts_per_model_and_level_equal_the_cpu_cull() {
    let Some(gpu) = common::gpu_or_skip("mixed_gpu") else {
        return;
    };
    let loaded = models();
    let mut view = scene(gpu.clone(), &loaded, &[300, 200]);
    // Low over the horses' track: near horses at fine levels, far ones
    // coarse, some behind the camera culled.
    let horses = view.renderer.scene().table[0];
    view.camera = stampede::render::Camera {
        target: horses.offset() + glam::Vec3::new(horses.field_radius * 0.8, 0.0, 0.0),
        yaw: 2.3,
        pitch: 0.2,
        distance: horses.model_size * 6.0,
        ..stampede::render::Camera::default()
    };
    let settings = FrameSettings {
        time: 2.5,
        ..FrameSettings::default()
    };
    view.draw_frame(&settings).expect("draws");
    let renderer = &view.renderer;
    let scene = renderer.scene();
    let regions = renderer.culler().regions().clone();
    assert_eq!(regions.levels.len(), 2);
    let (lists, cpu, culled) =
        assert_cull_matches(&view, &gpu, "two models", |m, entry, _, inst, f| {
            looped(&loaded, m, entry, inst, f)
        });
    // Each model's entries are its own instances.
    for (m, entry) in scene.table.iter().enumerate() {
        for l in 0..regions.levels[m] {
            let r = (regions.first_region(m) + l) as usize;
            for e in &lists.entries[r] {
                let i = e & stampede::crowd::cull::INDEX_MASK;
                assert!(i >= entry.first_instance && i < entry.first_instance + entry.count);
                assert_eq!(CrowdModelGpu::model_of(&scene.table, i), m);
            }
        }
    }
    assert!(
        culled > 0 && cpu.iter().filter(|&&c| c > 0).count() >= 3,
        "the view tests something: {cpu:?}"
    );
    // One multi-draw of every model's levels where the adapter has it.
    let draw = renderer.culler().draw(renderer.crowd().count());
    match draw {
        CrowdDraw::Indirect { levels, .. } => assert_eq!(levels, regions.mesh_regions()),
        CrowdDraw::Direct { .. } | CrowdDraw::Single { .. } => {
            panic!("a culled scene draws from the cull pass")
        }
    }
    if renderer.culler().multi_draw {
        assert_eq!(draw.calls(), 1, "one draw call for every model");
    } else {
        assert_eq!(draw.calls(), regions.mesh_regions());
    }
    // And one draw of every model's impostors.
    let impostors = renderer
        .culler()
        .impostor_draw()
        .expect("the far field's impostors are on by default");
    assert_eq!(impostors.regions, 2);
    if renderer.culler().multi_draw {
        assert_eq!(impostors.calls(), 1, "one impostor draw for every model");
    } else {
        assert_eq!(impostors.calls(), 2);
    }
    // The frame's draw calls as counted while recording: those draws in
    // the scene pass and in each shadow cascade, and the splats' one
    // full-screen draw when the cull pass wrote splats.
    let cascades = renderer.shadow_stats().len() as u32;
    assert!(cascades > 0, "shadows are on by default");
    let splats = u32::from(renderer.culler().splats_drawn());
    assert_eq!(
        renderer.costs().draw_calls,
        (draw.calls() + impostors.calls()) * (1 + cascades) + splats
    );
}

/// What a scene of several models cannot do is refused with the reason,
/// and the scene keeps drawing: the CPU technique, a total smaller than
/// one instance per model. A new total is shared out live.
#[test]
fn a_scene_refuses_what_it_cannot_do_yet() {
    let Some(gpu) = common::gpu_or_skip("mixed_gpu") else {
        return;
    };
    let loaded = models();
    let mut view = scene(gpu, &loaded, &[20, 20]);
    let err = view
        .renderer
        .set_technique(TechniqueKind::Cpu)
        .unwrap_err()
        .to_string();
    assert!(err.contains("CPU") && err.contains("one model"), "{err}");
    assert_eq!(view.renderer.technique_kind(), TechniqueKind::Vat);
    let err = view.renderer.set_count(1).unwrap_err().to_string();
    assert!(err.contains("at least one instance of each"), "{err}");
    assert_eq!(view.renderer.scene().counts(), vec![20, 20]);
    view.renderer
        .set_count(100)
        .expect("a new total is shared out");
    assert_eq!(view.renderer.scene().counts().iter().sum::<u32>(), 100);
    view.render(&FrameSettings::default()).expect("still draws");
}

/// Each model of a scene covers exactly the pixels it covers drawn alone
/// by a renderer of that model only (the same instances, field and
/// camera): the scene's shared vertex stream, VAT array, clip table and
/// regions give every model its own mesh, poses and places. (Only the
/// coverage is compared: the scene's fog and ground reach over every
/// model's field, so colours differ a little.)
#[test]
fn each_model_covers_what_it_covers_alone() {
    covers_what_it_covers_alone(false);
}

/// The same with the far field's impostors, from far enough that many
/// instances of each model are impostors: the scene's shared atlas gives
/// each model the impostors of its own atlas.
#[test]
fn each_models_impostors_cover_what_they_cover_alone() {
    covers_what_it_covers_alone(true);
}

/// Instances of model `m` the last frame of `view` drew as impostors.
fn impostor_count(view: &Headless, gpu: &stampede::gpu::GpuContext, m: usize) -> u32 {
    let culler = view.renderer.culler();
    let lists = culler.read_lists(gpu).expect("read back");
    lists.args[culler.regions().impostor_region(m) as usize * 5 + 1]
}

fn covers_what_it_covers_alone(impostors: bool) {
    let Some(gpu) = common::gpu_or_skip("mixed_gpu") else {
        return;
    };
    let loaded = models();
    let counts = [60, 80];
    let mut view = scene_with(gpu.clone(), &loaded, &counts, false);
    let mut cull = view.renderer.cull_settings();
    cull.impostors = impostors;
    view.renderer.set_cull_settings(cull);
    view.camera.distance *= if impostors { 1.6 } else { 0.45 };
    let camera = view.camera;
    let settings = FrameSettings {
        time: 2.0,
        ..FrameSettings::default()
    };
    for m in 0..2 {
        let others = 0b11 & !(1 << m);
        let alone_in_scene = picture(&mut view, others, &settings);
        let scene_far = impostor_count(&view, &gpu, m);
        let empty_scene = picture(&mut view, 0b11, &settings);
        let entry = view.renderer.scene().table[m];
        // The model by itself, with the scene's instances of it.
        let mut config = RendererConfig::for_model(
            &loaded[m],
            SIZE.0,
            SIZE.1,
            counts[m],
            scene_seed(SEED, m),
            stampede::render::headless::FORMAT,
        );
        config.behaviour = BehaviourSettings {
            enabled: false,
            ..Default::default()
        };
        config.shadows.enabled = false;
        config.cull.impostors = impostors;
        // As the scene (mixed_common): impostors, not splats.
        config.cull.splats = false;
        let mut single = Headless::new(gpu.clone(), &loaded[m].model, &loaded[m].vat, &config)
            .expect("renderer");
        // Its field where the scene put it.
        single.camera = camera;
        single.camera.target -= entry.offset();
        // Its clip is the loaded model's (`for_model`).
        let own = settings;
        let alone = single.render(&own).expect("renders");
        let far = impostor_count(&single, &gpu, 0);
        if impostors {
            // The scene drew as many of this model's instances as
            // impostors as the model alone did.
            eprintln!("model {m}: {far} impostors alone, {scene_far} in the scene");
            assert!(far > 5, "model {m}: {far} impostors: the view tests them");
            assert_eq!(scene_far, far);
        } else {
            assert_eq!((far, scene_far), (0, 0));
        }
        single.renderer.hide_crowd = true;
        let empty = single.render(&own).expect("renders");
        let n = (SIZE.0 * SIZE.1) as usize;
        let mut covered = 0;
        for i in 0..n {
            let in_scene = !same_pixel(&alone_in_scene, &empty_scene, i);
            let by_itself = !same_pixel(&alone, &empty, i);
            assert_eq!(
                in_scene, by_itself,
                "model {m}: pixel {i} covered {in_scene} in the scene, {by_itself} alone"
            );
            covered += in_scene as usize;
        }
        eprintln!("model {m}: {covered} px covered, the same in the scene and alone");
        assert!(covered > 20, "model {m} is in view");
    }
}

/// Three models of different vertex counts, clip counts and VAT widths
/// (horse, bird, the deer) draw as one scene with culling and LOD on, off
/// (the cull pass still sorts them into their regions), and with
/// occlusion culling and TAA: every model is in the picture, and nothing
/// fails on the device.
#[test]
fn three_different_models_draw_with_every_cull_setting() {
    let Some(gpu) = common::gpu_or_skip("mixed_gpu") else {
        return;
    };
    let Some(deer) = shared::shared_model("QuaterniusDeer.gltf") else {
        return;
    };
    let mut loaded = models();
    loaded
        .push(load(&ModelChoice::File(deer), 30.0, Precision::F16, None).expect("the deer bakes"));
    let widths: Vec<u32> = loaded.iter().map(|l| l.vat.layout.width).collect();
    assert!(
        widths[0] != widths[1] && widths[1] != widths[2],
        "{widths:?}"
    );
    let mut view = scene(gpu.clone(), &loaded, &[40, 30, 20]);
    let settings = FrameSettings {
        time: 1.5,
        ..FrameSettings::default()
    };
    let base = view.renderer.cull_settings();
    let variants = [
        base,
        stampede::crowd::cull::CullSettings {
            culling: false,
            lod: false,
            ..base
        },
        stampede::crowd::cull::CullSettings {
            occlusion: true,
            ..base
        },
    ];
    for (k, cull) in variants.into_iter().enumerate() {
        view.renderer.set_cull_settings(cull);
        let none = picture(&mut view, 0b111, &settings);
        for m in 0..3 {
            let alone = picture(&mut view, 0b111 & !(1 << m), &settings);
            let covered = (0..(SIZE.0 * SIZE.1) as usize)
                .filter(|&i| !same_pixel(&alone, &none, i))
                .count();
            assert!(covered > 3, "settings {k}: model {m} covers {covered} px");
        }
        view.renderer.gpu.check().expect("no device error");
    }
}

/// Occlusion culling in a scene tests each model by its own box: the
/// pictures with it and without are the same (horses and birds, no
/// impostors, so every hidden instance is a mesh), from views low in the
/// herd where it hides some of each, and each model's box is its own.
#[test]
fn occlusion_culling_hides_each_model_by_its_own_box() {
    let Some(gpu) = common::gpu_or_skip("mixed_gpu") else {
        return;
    };
    let loaded = models();
    let counts = [600, 600];
    let living = BehaviourSettings::on();
    let mut on = scene_living(gpu.clone(), &loaded, &counts, true, living);
    let mut off = scene_living(gpu.clone(), &loaded, &counts, true, living);
    for (v, occlusion) in [(&mut on, true), (&mut off, false)] {
        v.renderer
            .set_cull_settings(stampede::crowd::cull::CullSettings {
                occlusion,
                impostors: false,
                ..v.renderer.cull_settings()
            });
    }
    // Low among the horses, looking across them, and round towards the
    // birds.
    let size = on.renderer.layout.model_size;
    let opening = on.renderer.camera_at(2.0, 1.0);
    let mut views = Vec::new();
    for yaw in [0.8, 0.95, 1.1, 1.25, 1.4] {
        let mut c = opening;
        c.pitch = 0.02;
        c.distance = size * 1.5;
        c.target.y = size * 0.35;
        c.yaw += yaw;
        views.push(c);
    }
    let mut occluded = [0u32; 2];
    for (v, camera) in views.into_iter().enumerate() {
        on.camera = camera;
        off.camera = camera;
        for frame in 0..3 {
            let s = FrameSettings {
                time: 2.0 + frame as f64 * 0.05,
                ..FrameSettings::default()
            };
            let with = on.render(&s).expect("renders");
            let without = off.render(&s).expect("renders");
            let n = (SIZE.0 * SIZE.1) as usize;
            let differ = (0..n).filter(|&i| !same_pixel(&with, &without, i)).count();
            // Each model's hidden: in view without occlusion culling, not
            // drawn by either phase with it.
            let drawn = on.renderer.wait_for_cull_stats().model_visible;
            let all = off.renderer.wait_for_cull_stats().model_visible;
            let hidden: Vec<u32> = (0..2)
                .map(|m| {
                    all[m].checked_sub(drawn[m]).unwrap_or_else(|| {
                        panic!(
                            "view {v} frame {frame}: model {m} drawn {} times with occlusion \
                             culling, {} in view without",
                            drawn[m], all[m]
                        )
                    })
                })
                .collect();
            eprintln!(
                "view {v} frame {frame}: hidden {hidden:?} of {all:?}, {differ} pixels differ"
            );
            assert!(
                differ <= 2,
                "view {v} frame {frame}: {differ} pixels differ"
            );
            if frame == 2 {
                occluded[0] += hidden[0];
                occluded[1] += hidden[1];
            }
        }
    }
    assert!(
        occluded[0] > 0 && occluded[1] > 0,
        "the views hide some of each model: {occluded:?}"
    );
    // Each model's own box reached the cull pass (which instances a box
    // hides is checked against the CPU rule in tests/occlusion_gpu.rs;
    // these small pictures show a box too small only rarely).
    let uniform = on.renderer.culler().last_uniform().expect("culled");
    for (m, l) in loaded.iter().enumerate() {
        let half = l.vat.pose_bounds().half;
        assert_eq!(uniform.models[m].half[..3], half.to_array(), "model {m}");
    }
    assert_ne!(uniform.models[0].half, uniform.models[1].half);
}
