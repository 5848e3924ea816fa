//! Every GPU technique draws a scene of several models: each model's
//! picture is the scene's where the others are absent (as VAT's is), and
//! three different models (horse, bird, the deer) come out as VAT draws
//! them, with no validation error; the CPU technique, which draws one
//! model per scene, says so.

mod gpu_common;
mod mixed_common;
use gpu_common as common;
use mixed_common::*;
#[path = "common/mod.rs"]
mod shared;

use stampede::crowd::FrameSettings;
use stampede::crowd::setup::{ModelChoice, load};
use stampede::render::TechniqueKind;
use stampede::render::headless::RgbaImage;
use stampede::vat::Precision;

/// Horses and birds without shadows, drawn by live skinning and by compute
/// skinning: where one model leaves the picture as it is without either,
/// the scene's pixel is the other model's alone, exactly.
#[test]
fn skinning_draws_each_model_as_alone_where_the_other_is_absent() {
    let Some(gpu) = common::gpu_or_skip("mixed_techniques_gpu") else {
        return;
    };
    let loaded = models();
    let mut view = scene_with(gpu.clone(), &loaded, &[60, 80], false);
    view.camera.distance *= 0.45;
    let settings = FrameSettings {
        time: 2.0,
        ..FrameSettings::default()
    };
    for kind in [TechniqueKind::Skinning, TechniqueKind::ComputeSkinning] {
        view.renderer
            .set_technique(kind)
            .expect("builds for a scene");
        let both = picture(&mut view, 0, &settings);
        let horses = picture(&mut view, 0b10, &settings);
        let birds = picture(&mut view, 0b01, &settings);
        let none = picture(&mut view, 0b11, &settings);
        let n = (SIZE.0 * SIZE.1) as usize;
        let mut checked = [0usize; 2];
        let mut covered = [0usize; 2];
        for i in 0..n {
            for (k, (alone, other)) in [(&horses, &birds), (&birds, &horses)]
                .into_iter()
                .enumerate()
            {
                if !same_pixel(other, &none, i) {
                    continue;
                }
                checked[k] += 1;
                assert!(
                    same_pixel(&both, alone, i),
                    "{kind}: pixel {i} differs from the model alone"
                );
            }
            covered[0] += !same_pixel(&horses, &none, i) as usize;
            covered[1] += !same_pixel(&birds, &none, i) as usize;
        }
        eprintln!(
            "{kind}: horses cover {} px, birds {} px",
            covered[0], covered[1]
        );
        assert!(
            covered[0] > 50 && covered[1] > 5,
            "{kind}: covered {covered:?}"
        );
        assert!(checked[0] > n / 2 && checked[1] > n / 2);
    }
}

/// Renders `kind` inside a validation error scope.
fn render_checked(
    view: &mut stampede::render::headless::Headless,
    kind: TechniqueKind,
    s: &FrameSettings,
) -> RgbaImage {
    let device = view.renderer.gpu.device.clone();
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    view.renderer
        .set_technique(kind)
        .expect("builds for a scene");
    let image = view.render(s).expect("renders");
    let error = pollster::block_on(scope.pop());
    assert!(error.is_none(), "{kind}: a validation error: {error:?}");
    image
}

/// Horse, bird and the deer (different vertex counts, joint counts, clip
/// counts and VAT widths) in one scene: every GPU technique draws it with
/// no validation error, every instance counted, and the picture VAT's
/// within the bound the single-model techniques test holds them to
/// (`assert_images_agree`; the static pose must be outside it); each
/// model is in the picture. The CPU technique refuses, saying why, and VAT
/// draws on.
#[test]
fn three_models_render_with_every_technique() {
    let Some(gpu) = common::gpu_or_skip("mixed_techniques_gpu") else {
        return;
    };
    let Some(deer) = shared::shared_model("QuaterniusDeer.gltf") else {
        return;
    };
    let mut loaded = models();
    loaded
        .push(load(&ModelChoice::File(deer), 30.0, Precision::F16, None).expect("the deer bakes"));
    let joints: Vec<usize> = loaded.iter().map(|l| l.model.palette.len()).collect();
    assert!(joints[0] != joints[2], "different skeletons: {joints:?}");
    let counts = [40, 30, 20];
    let mut view = scene_with(gpu.clone(), &loaded, &counts, true);
    view.camera.distance *= 0.6;
    // Meshes only: an impostor is the same for every technique (most of
    // this small picture's instances would be impostors).
    let mut cull = view.renderer.cull_settings();
    cull.impostors = false;
    view.renderer.set_cull_settings(cull);
    let settings = FrameSettings {
        time: 1.5,
        ..FrameSettings::default()
    };
    let vat = render_checked(&mut view, TechniqueKind::Vat, &settings);
    let none = picture(&mut view, 0b111, &settings);
    for m in 0..3 {
        let alone = picture(&mut view, 0b111 & !(1 << m), &settings);
        let covered = (0..(SIZE.0 * SIZE.1) as usize)
            .filter(|&i| !same_pixel(&alone, &none, i))
            .count();
        assert!(covered > 3, "model {m} covers {covered} px");
    }
    view.renderer.culler_mut().hidden_models = 0;
    let mut others = Vec::new();
    for &kind in TechniqueKind::ALL {
        if matches!(kind, TechniqueKind::Vat | TechniqueKind::Cpu) {
            continue;
        }
        let image = render_checked(&mut view, kind, &settings);
        let costs = view.renderer.costs();
        assert_eq!(costs.kind, kind);
        assert_eq!(costs.drawn, counts.iter().sum::<u32>(), "{kind}");
        assert!(costs.gpu_memory_bytes > 0, "{kind}: no memory reported");
        others.push((kind, image));
    }
    let still = others
        .iter()
        .position(|(k, _)| *k == TechniqueKind::Static)
        .map(|i| others.remove(i).1)
        .expect("static drew");
    let named: Vec<(&str, &RgbaImage)> = others.iter().map(|(k, i)| (k.name(), i)).collect();
    common::assert_images_agree("a scene of three models: ", &vat, &named, &still);
    let err = view
        .renderer
        .set_technique(TechniqueKind::Cpu)
        .unwrap_err()
        .to_string();
    assert!(err.contains("one model per scene"), "{err}");
    assert_eq!(view.renderer.technique_kind(), TechniqueKind::Vat);
    view.render(&settings).expect("VAT draws on");
    view.renderer.gpu.check().expect("no device error");
}

/// A scene whose second model has morph targets (the horse first, then
/// the Khronos morph cube): the bone-matrix techniques, which ignore
/// morphs, say so for the scene, not only when its first model has them;
/// VAT, which bakes them, does not.
#[test]
fn a_later_models_ignored_morphs_are_reported() {
    let Some(gpu) = common::gpu_or_skip("mixed_techniques_gpu") else {
        return;
    };
    let Some(cube) = shared::shared_model("AnimatedMorphCube.gltf") else {
        return;
    };
    let mut loaded = models();
    loaded.truncate(1);
    loaded
        .push(load(&ModelChoice::File(cube), 30.0, Precision::F16, None).expect("the cube bakes"));
    assert!(loaded[0].model.morphs.is_empty() && !loaded[1].model.morphs.is_empty());
    let mut view = scene_with(gpu, &loaded, &[6, 4], false);
    assert!(
        !view.renderer.costs().morphs_ignored,
        "VAT bakes the morphs"
    );
    for kind in [TechniqueKind::Skinning, TechniqueKind::ComputeSkinning] {
        view.renderer
            .set_technique(kind)
            .expect("builds for a scene");
        assert!(view.renderer.costs().morphs_ignored, "{kind}");
    }
}

/// With culling and LOD off a scene is drawn directly, one instanced draw
/// per model, and the compute techniques skin each model's instances at
/// that model's own full-detail level (not the first model's): every
/// bone-matrix technique's picture is VAT's within the techniques' bound,
/// one draw call per model.
#[test]
fn an_unculled_scene_draws_each_model_with_its_own_mesh() {
    let Some(gpu) = common::gpu_or_skip("mixed_techniques_gpu") else {
        return;
    };
    let loaded = models();
    let mut view = scene_with(gpu, &loaded, &[60, 80], false);
    view.camera.distance *= 0.45;
    let mut cull = view.renderer.cull_settings();
    cull.culling = false;
    cull.lod = false;
    view.renderer.set_cull_settings(cull);
    let settings = FrameSettings {
        time: 2.0,
        ..FrameSettings::default()
    };
    let vat = render_checked(&mut view, TechniqueKind::Vat, &settings);
    assert_eq!(view.renderer.last_frame.map(|f| f.culled), Some(0));
    let still = render_checked(&mut view, TechniqueKind::Static, &settings);
    let mut others = Vec::new();
    for kind in [
        TechniqueKind::BoneTexture,
        TechniqueKind::Skinning,
        TechniqueKind::ComputeSkinning,
        TechniqueKind::ComputeBoneTexture,
    ] {
        others.push((kind.name(), render_checked(&mut view, kind, &settings)));
        let costs = view.renderer.costs();
        assert_eq!(costs.drawn, 140, "{kind}");
        assert_eq!(costs.draw_calls, 2, "{kind}: one direct draw per model");
    }
    let named: Vec<(&str, &RgbaImage)> = others.iter().map(|(k, i)| (*k, i)).collect();
    common::assert_images_agree("an unculled scene: ", &vat, &named, &still);
}
