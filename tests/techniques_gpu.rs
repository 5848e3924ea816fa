//! The comparison techniques on the GPU (lavapipe in CI): each technique's
//! WGSL vertex function against CPU skinning, images of VAT vs live skinning
//! vs bone texture, no validation errors on the Fox and the bird, switching
//! without touching the crowd, and the CPU-skinning cap.

mod gpu_common;
use gpu_common as common;

use glam::Vec3;
use stampede::crowd::FrameSettings;
use stampede::crowd::cull::CullSettings;
use stampede::crowd::setup::{Loaded, ModelChoice, load};
use stampede::crowd::{self, instance_clip_time, pose_time};
use stampede::render::headless::{self, Headless, RgbaImage};
use stampede::render::{RendererConfig, TechniqueKind};
use stampede::vat::Precision;
use stampede::{Model, skin};

const SEED: u64 = 3;

fn setup(choice: ModelChoice, count: u32, size: (u32, u32)) -> Option<(Headless, Loaded)> {
    let gpu = common::gpu_or_skip("techniques_gpu")?;
    let prepared = load(&choice, 30.0, Precision::F16, None).expect("the model bakes");
    let config =
        RendererConfig::for_model(&prepared, size.0, size.1, count, SEED, headless::FORMAT);
    let view = Headless::new(gpu, &prepared.model, &prepared.vat, &config).expect("renderer");
    Some((view, prepared))
}

fn horse() -> ModelChoice {
    ModelChoice::Horse
}

/// A time between baked frames for most instances (30 fps bake).
fn settings() -> FrameSettings {
    FrameSettings {
        time: 1.0 + 0.43 / 30.0,
        ..FrameSettings::default()
    }
}

fn render(view: &mut Headless, kind: TechniqueKind, s: &FrameSettings) -> RgbaImage {
    view.renderer.set_technique(kind).expect("technique builds");
    view.render(s).expect("render")
}

/// The same 16 horses at the same instant, drawn by VAT, live skinning and
/// the bone texture.
///
/// Limit: a mean channel error of 0.5 (of 255) and at most 0.3 % of pixels
/// off by more than 24. VAT and bone texture lerp between frames baked at
/// 30 fps, while live skinning samples the exact pose, so silhouettes can
/// move by the bake's interpolation error (~0.2 % of the model size, under a
/// pixel here) plus f16 rounding: a few edge pixels, never a pose change.
/// A different pose (the static floor) is far above the limit, which the
/// test checks so the limit has teeth.
#[test]
fn vat_skinning_and_bone_texture_images_agree() {
    let Some((mut view, _)) = setup(horse(), 16, (320, 192)) else {
        return;
    };
    let s = settings();
    let vat = render(&mut view, TechniqueKind::Vat, &s);
    let skinning = render(&mut view, TechniqueKind::Skinning, &s);
    let bone = render(&mut view, TechniqueKind::BoneTexture, &s);
    let still = render(&mut view, TechniqueKind::Static, &s);
    common::assert_images_agree(
        "",
        &vat,
        &[("skinning", &skinning), ("bone texture", &bone)],
        &still,
    );
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Query {
    vertex: u32,
    instance: u32,
    clip: u32,
    t: f32,
}

/// The composed module and the WGSL call of each technique's vertex function.
fn vertex_function(kind: TechniqueKind) -> (String, &'static str) {
    let call = match kind {
        TechniqueKind::Vat => "vat_sample(q.vertex, q.clip, q.t, true)",
        TechniqueKind::Skinning => "skinned_vertex(q.vertex, q.instance)",
        TechniqueKind::BoneTexture => "bone_vertex(q.vertex, q.clip, q.t, true)",
        TechniqueKind::Cpu => "cpu_vertex(q.vertex, q.instance)",
        TechniqueKind::Static => "static_vertex(q.vertex)",
        TechniqueKind::ComputeSkinning | TechniqueKind::ComputeBoneTexture => {
            "compute_skinned_vertex(q.vertex, q.instance, 0u)"
        }
    };
    let module = kind
        .crowd_module()
        .source()
        .expect("the crowd module composes");
    (module, call)
}

/// Runs the active technique's vertex function for `queries` with the
/// technique's own group 1 (as the last frame left it).
fn run_queries(view: &Headless, queries: &[Query]) -> Vec<(Vec3, Vec3)> {
    let r = &view.renderer;
    let (module_src, call) = vertex_function(r.technique_kind());
    let source = format!(
        "{module_src}\n{}",
        common::sample_entry("vertex: u32, instance: u32, clip: u32, t: f32", call)
    );
    let (layout, group) = r.technique().group().expect("the technique was prepared");
    // The model table (live skinning's palette slots) as group 2.
    let (models_layout, models) = common::models_group(r);
    let results = common::run_compute(
        &r.gpu,
        "technique test",
        &source,
        "test_main",
        queries,
        3,
        &[(1, layout, group), (2, &models_layout, &models)],
    );
    common::position_normal_pairs(&results)
}

/// Every technique's GPU vertex function, for every drawn instance of a
/// small crowd at a time between baked frames, against CPU skinning of that
/// instance at the clip time the mirror function gives: VAT and bone texture
/// within the bake's error bound, live and CPU skinning within 1e-4 of the
/// model size, the static floor against its one pose.
#[test]
fn every_technique_matches_cpu_skinning_on_the_gpu() {
    let Some((mut view, prepared)) = setup(horse(), 12, (128, 64)) else {
        return;
    };
    let (model, vat) = (&prepared.model, &prepared.vat);
    let s = settings();
    // Every instance its own clip: more clips covered.
    view.renderer.set_clip(0, None);
    let n = model.vertex_count() as u32;
    let size = vat.report.diagonal;
    let bake_bound = vat.report.interpolation + vat.report.quantization + 1e-5 * size;
    for &kind in TechniqueKind::ALL {
        // Compute skinning skins only what some view draws, at the levels
        // it is drawn at (tests/compute_skinning_gpu.rs checks that); with
        // culling and LOD off every instance is drawn whole.
        let whole = matches!(
            kind,
            TechniqueKind::ComputeSkinning | TechniqueKind::ComputeBoneTexture
        );
        view.renderer.set_cull_settings(CullSettings {
            culling: !whole,
            lod: !whole,
            ..CullSettings::default()
        });
        render(&mut view, kind, &s);
        let frame = view.renderer.last_frame.expect("a frame was drawn");
        let clips = &vat.clips;
        let mut queries = Vec::new();
        let mut expected = Vec::new();
        for i in 0..12u32 {
            let inst = crowd::generate(SEED, i);
            let (c, t) = instance_clip_time(&inst, &frame, clips);
            let pose = if kind == TechniqueKind::Static {
                model.sample_pose(clips[0].source, 0.0)
            } else {
                model.sample_pose(clips[c].source, pose_time(&clips[c], t))
            };
            let (p, nrm) = skin::skin(model, &pose);
            for v in (0..n).step_by(7).chain([n - 1]) {
                queries.push(Query {
                    vertex: v,
                    instance: i,
                    clip: c as u32,
                    t,
                });
                expected.push((p[v as usize], nrm[v as usize]));
            }
        }
        let got = run_queries(&view, &queries);
        let bound = match kind {
            TechniqueKind::Vat | TechniqueKind::BoneTexture | TechniqueKind::ComputeBoneTexture => {
                bake_bound
            }
            _ => 1e-4 * size,
        };
        let mut worst = 0.0f32;
        for (k, ((gp, gn), (ep, en))) in got.iter().zip(&expected).enumerate() {
            let e = gp.distance(*ep);
            worst = worst.max(e);
            assert!(
                e <= bound,
                "{kind}: query {k} (vertex {}, instance {}): GPU {gp} vs CPU {ep}, error {e} > {bound}",
                queries[k].vertex,
                queries[k].instance
            );
            assert!(
                gn.normalize_or_zero().dot(*en) > 0.8,
                "{kind}: query {k}: normal {gn} vs {en}"
            );
        }
        eprintln!(
            "{kind}: {} vertices, worst error {worst:.2e} (bound {bound:.2e}, size {size:.3})",
            queries.len()
        );
    }
}

/// Renders every technique with `choice` inside a validation error scope.
fn renders_without_validation_errors(choice: ModelChoice) {
    let Some((mut view, prepared)) = setup(choice, 40, (192, 128)) else {
        return;
    };
    let s = settings();
    for &kind in TechniqueKind::ALL {
        let device = view.renderer.gpu.device.clone();
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let image = render(&mut view, kind, &s);
        let error = pollster::block_on(scope.pop());
        assert!(
            error.is_none(),
            "{}: {kind} raised a validation error: {error:?}",
            prepared.model.name()
        );
        let first = &image.pixels[..4];
        assert!(
            image.pixels.chunks(4).any(|p| p != first),
            "{kind}: blank image"
        );
        let costs = view.renderer.costs();
        assert_eq!(costs.kind, kind);
        assert_eq!(costs.drawn, 40, "{kind}");
        assert!(costs.gpu_memory_bytes > 0, "{kind}: no memory reported");
    }
}

#[test]
fn every_technique_renders_the_fox() {
    let path = common::fox_path();
    if !path.exists() {
        eprintln!("SKIPPED: {} is missing", path.display());
        return;
    }
    renders_without_validation_errors(ModelChoice::File(path));
}

#[test]
fn every_technique_renders_the_bird() {
    let model = stampede::assets::load_model("bird").expect("the bird loads");
    assert!(model.vertex_count() > 0);
    renders_without_validation_errors(ModelChoice::Bird);
}

#[test]
fn switching_keeps_the_instance_buffer() {
    let Some((mut view, _)) = setup(horse(), 32, (128, 64)) else {
        return;
    };
    let s = settings();
    render(&mut view, TechniqueKind::Vat, &s);
    let crowd = &view.renderer.crowd();
    let (allocations, generation) = (crowd.allocations, crowd.generation);
    for &kind in TechniqueKind::ALL
        .iter()
        .chain(TechniqueKind::ALL.iter().rev())
    {
        render(&mut view, kind, &s);
        assert_eq!(view.renderer.technique_kind(), kind);
        assert_eq!(view.renderer.crowd().count(), 32);
        assert_eq!(
            view.renderer.crowd().allocations,
            allocations,
            "{kind} reallocated"
        );
        assert_eq!(
            view.renderer.crowd().generation,
            generation,
            "{kind} replaced"
        );
    }
    // The first VAT image and the last (back to VAT) are the same picture.
    let a = render(&mut view, TechniqueKind::Vat, &s);
    render(&mut view, TechniqueKind::Cpu, &s);
    let b = render(&mut view, TechniqueKind::Vat, &s);
    assert_eq!(a, b, "switching away and back changed the VAT image");
}

#[test]
fn cpu_skinning_cap_is_applied_and_reported() {
    let Some((mut view, _prepared)) = setup(ModelChoice::Bird, 2100, (64, 64)) else {
        return;
    };
    let s = FrameSettings::default();
    render(&mut view, TechniqueKind::Cpu, &s);
    let costs = view.renderer.costs();
    let cap = costs.cap.expect("CPU skinning has a cap");
    assert!(cap <= stampede::render::passes::techniques::cpu::MAX_CPU_INSTANCES);
    assert_eq!(costs.requested, 2100);
    assert_eq!(costs.drawn, cap.min(2100));
    assert!(costs.capped(), "2100 instances should be capped at {cap}");
    let bird: &Model = view.renderer.model_cpu();
    assert_eq!(
        costs.upload_bytes,
        costs.drawn as u64 * bird.vertex_count() as u64 * 24,
        "positions + normals of every drawn instance"
    );
    // VAT draws them all.
    render(&mut view, TechniqueKind::Vat, &s);
    assert_eq!(view.renderer.costs().drawn, 2100);
    assert!(!view.renderer.costs().capped());
}
