//! The WGSL `vat_sample` the renderer uses, run on the GPU for many
//! (vertex, clip, time) pairs, against CPU skinning at the same times.

mod gpu_common;
use gpu_common as common;

use glam::Vec3;
use stampede::render::VatResources;
use stampede::render::util::shaders;
use stampede::vat::{self, BakeOptions, Precision, Vat};
use stampede::{Model, skin};

const TEST_SHADER: &str = r#"
struct Query { vertex: u32, clip: u32, t: f32, interpolate: u32 };
@group(0) @binding(0) var<storage, read> queries: array<Query>;
@group(0) @binding(1) var<storage, read_write> results: array<vec4<f32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= arrayLength(&queries) { return; }
    let q = queries[i];
    let s = vat_sample(q.vertex, q.clip, q.t, q.interpolate != 0u);
    results[2u * i] = vec4<f32>(s.position, 1.0);
    results[2u * i + 1u] = vec4<f32>(s.normal, 0.0);
}
"#;

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Query {
    vertex: u32,
    clip: u32,
    t: f32,
    interpolate: u32,
}

/// Runs the queries through `vat_sample` on the GPU: (position, normal) each.
fn run_gpu(gpu: &stampede::gpu::GpuContext, vat: &Vat, queries: &[Query]) -> Vec<(Vec3, Vec3)> {
    let resources = VatResources::new(&gpu.device, &gpu.queue, vat, &[]);
    run_on(gpu, &resources, vat.precision, queries)
}

/// Runs the queries through `vat_sample` on uploaded `resources`.
fn run_on(
    gpu: &stampede::gpu::GpuContext,
    resources: &VatResources,
    precision: Precision,
    queries: &[Query],
) -> Vec<(Vec3, Vec3)> {
    let module = match precision {
        Precision::Packed => shaders::VAT_PACKED,
        _ => shaders::VAT,
    };
    let source = format!("{}\n{}", module.source().expect("composes"), TEST_SHADER);
    let results = common::run_compute(
        gpu,
        "vat test",
        &source,
        "main",
        queries,
        0,
        &[(1, &resources.layout, &resources.bind_group)],
    );
    common::position_normal_pairs(&results)
}

/// CPU skinning of every vertex at clip time `t` (wrapped or clamped like the bake).
fn cpu_pose(model: &Model, vat: &Vat, clip: usize, t: f32) -> (Vec<Vec3>, Vec<Vec3>) {
    let c = &vat.clips[clip];
    let time = if c.segments() == 0 {
        0.0
    } else {
        c.frame_at(t) / c.segments() as f32 * c.duration
    };
    let pose = model.sample_pose(c.source, time);
    skin::skin(model, &pose)
}

fn check(precision: Precision) {
    let Some(gpu) = common::gpu_or_skip("vat_gpu") else {
        return;
    };
    let model = Model::load(common::fox_path()).expect("Fox.glb loads");
    let options = BakeOptions {
        fps: 15.0,
        precision,
        max_width: 256,
        ..BakeOptions::default()
    };
    let vat = vat::bake(&model, &options).expect("Fox bakes");
    assert_eq!(vat.layout.rows_per_frame, 7, "the test wants a row wrap");
    assert!(
        vat.clips.iter().any(|c| c.looping),
        "the test wants a looping clip"
    );

    // Vertices on every row of a frame, including the last texel.
    let n = model.vertex_count() as u32;
    let vertices: Vec<u32> = (0..n).step_by(37).chain([255, 256, 257, n - 1]).collect();
    let mut times: Vec<(usize, f32)> = Vec::new();
    for (ci, c) in vat.clips.iter().enumerate() {
        let d = c.duration;
        let dt = d / c.segments().max(1) as f32;
        let mut ts = vec![
            0.0,
            dt,
            2.5 * dt,
            0.37 * d,
            0.5 * d + 0.31 * dt,
            d - 0.5 * dt,
            d - 0.01 * dt,
        ];
        if c.looping {
            // Across the seam and a few loops later.
            ts.extend([d + 0.25 * dt, 3.0 * d + 1.5 * dt, -0.5 * dt]);
        } else {
            ts.extend([d + 1.0, -1.0]);
        }
        times.extend(ts.into_iter().map(|t| (ci, t)));
    }
    let mut queries = Vec::new();
    for &(clip, t) in &times {
        for &v in &vertices {
            for interpolate in [1, 0] {
                queries.push(Query {
                    vertex: v,
                    clip: clip as u32,
                    t,
                    interpolate,
                });
            }
        }
    }
    let results = run_gpu(&gpu, &vat, &queries);
    let tolerance = vat.report.interpolation + vat.report.quantization + 1e-5 * vat.report.diagonal;
    let mut worst = 0.0f32;
    let (mut err_lerp, mut err_nearest) = (0.0f64, 0.0f64);
    let mut k = 0;
    for &(clip, t) in &times {
        let (cpu_p, cpu_n) = cpu_pose(&model, &vat, clip, t);
        for &v in &vertices {
            let (p, nrm) = results[k];
            let (p_nearest, _) = results[k + 1];
            k += 2;
            let e = (p - cpu_p[v as usize]).length();
            worst = worst.max(e);
            // On a stored frame only the texel rounding remains.
            let frame = vat.clips[clip].frame_at(t);
            if frame.fract() == 0.0 {
                let exact = vat.report.quantization + 1e-4 * vat.report.diagonal;
                assert!(
                    e <= exact,
                    "{precision:?} clip '{}' t = {t} (stored frame {frame}) vertex {v}: error {e} > {exact}",
                    vat.clips[clip].name
                );
            }
            err_lerp += e as f64;
            err_nearest += (p_nearest - cpu_p[v as usize]).length() as f64;
            assert!(
                e <= tolerance,
                "{precision:?} clip '{}' t = {t} vertex {v}: GPU {p} vs CPU {} (error {e}, allowed {tolerance})",
                vat.clips[clip].name,
                cpu_p[v as usize]
            );
            let cos = nrm.normalize_or_zero().dot(cpu_n[v as usize]);
            assert!(
                cos > 0.8,
                "clip '{}' t = {t} vertex {v}: normal {nrm} vs {}",
                vat.clips[clip].name,
                cpu_n[v as usize]
            );
        }
    }
    eprintln!(
        "{precision:?}: {} queries, worst position error {worst:.5} (allowed {tolerance:.5}); mean error lerp {:.5} vs nearest {:.5}",
        queries.len(),
        err_lerp / (queries.len() / 2) as f64,
        err_nearest / (queries.len() / 2) as f64
    );
    // Interpolation must actually help between frames.
    assert!(
        err_lerp < err_nearest * 0.8,
        "lerp error {err_lerp} is not below nearest-frame error {err_nearest}"
    );
}

#[test]
fn vat_sample_matches_cpu_skinning_f16() {
    check(Precision::F16);
}

#[test]
fn vat_sample_matches_cpu_skinning_f32() {
    check(Precision::F32);
}

#[test]
fn vat_sample_matches_cpu_skinning_packed() {
    check(Precision::Packed);
}

/// The WGSL packed fetch is the twin of `vat::packed::decode`: every vertex
/// of every stored frame of the horse, nearest frame, against the Rust
/// decode of the same texel.
#[test]
fn packed_fetch_equals_the_rust_decode() {
    let Some(gpu) = common::gpu_or_skip("packed decode") else {
        return;
    };
    let model = stampede::assets::load_model("horse").expect("horse");
    let options = BakeOptions {
        fps: 10.0,
        precision: Precision::Packed,
        ..BakeOptions::default()
    };
    let vat = vat::bake(&model, &options).expect("horse bakes");
    let n = model.vertex_count() as u32;
    let mut queries = Vec::new();
    let mut expected = Vec::new();
    for (ci, c) in vat.clips.iter().enumerate() {
        for f in 0..c.frame_count {
            let t = if c.segments() == 0 {
                0.0
            } else {
                f as f32 * c.duration / c.segments() as f32
            };
            for v in (0..n).step_by(3) {
                queries.push(Query {
                    vertex: v,
                    clip: ci as u32,
                    t,
                    interpolate: 0,
                });
                let texel = vat.layout.frame_start(c, f) + v as usize;
                expected.push((vat.position(texel), vat.normal(texel)));
            }
        }
    }
    let results = run_gpu(&gpu, &vat, &queries);
    let diagonal = vat.report.diagonal;
    let (mut worst_p, mut worst_n) = (0.0f32, 0.0f32);
    for (k, ((p, nrm), (ep, en))) in results.iter().zip(&expected).enumerate() {
        worst_p = worst_p.max(p.distance(*ep));
        worst_n = worst_n.max(nrm.distance(*en));
        assert!(
            p.distance(*ep) <= 1e-6 * diagonal && nrm.distance(*en) <= 1e-6,
            "query {k}: GPU ({p}, {nrm}) vs Rust decode ({ep}, {en})"
        );
    }
    eprintln!(
        "packed: {} texels, worst GPU-vs-Rust decode difference {worst_p:.2e} units, {worst_n:.2e} normal",
        queries.len()
    );
}

/// A scene's VAT array (`vat::VatSet`, with the clip table's vertex bases):
/// every model's vertices sampled through the array, by their index in the
/// scene's vertex stream and their clip in the scene's table, equal bit for
/// bit what the model's own VAT gives (checked against CPU skinning above).
/// Three models of different widths and clip counts, one wrapping rows.
#[test]
fn a_scene_array_samples_each_model_as_its_own_vat() {
    let Some(gpu) = common::gpu_or_skip("vat_gpu") else {
        return;
    };
    let bake = |model: &Model, max_width| {
        let options = BakeOptions {
            fps: 15.0,
            max_width,
            ..BakeOptions::default()
        };
        vat::bake(model, &options).expect("bakes")
    };
    let models = [
        stampede::assets::load_model("horse").expect("horse"),
        Model::load(common::fox_path()).expect("Fox.glb loads"),
        stampede::assets::load_model("bird").expect("bird"),
    ];
    let vats = [
        bake(&models[0], vat::DEFAULT_MAX_WIDTH),
        bake(&models[1], 256),
        bake(&models[2], vat::DEFAULT_MAX_WIDTH),
    ];
    assert!(
        vats[1].layout.rows_per_frame > 1,
        "the test wants a row wrap"
    );
    let refs: Vec<&Vat> = vats.iter().collect();
    let named: Vec<(&str, &Vat)> = ["horse", "fox", "bird"]
        .into_iter()
        .zip(refs.iter().copied())
        .collect();
    let set = vat::VatSet::plan(&named, 8192, 256).expect("fits");
    let combined = set.combined(&refs).expect("f16");
    let table =
        stampede::render::passes::techniques::vat::set_clip_table(&set, &refs, &[&[], &[], &[]]);
    assert_eq!(
        table.len(),
        vats.iter().map(|v| v.clips.len()).sum::<usize>()
    );
    let clips =
        stampede::render::passes::techniques::clip_buffer(&gpu.device, "scene clips", &table);
    // The renderer's upload: the header alone (no texels) and each
    // model's own bake written to its place; and the CPU twin, the array
    // combined on the CPU and uploaded whole.
    let header = set.header(&refs).expect("f16");
    assert_eq!(header.total_bytes(), 0, "the header keeps no texels");
    let bakes: Vec<std::sync::Arc<Vat>> = vats.iter().cloned().map(std::sync::Arc::new).collect();
    let source = stampede::render::passes::techniques::vat::TexelSource::Set(&set, &bakes);
    let scenes = [
        VatResources::with_source(&gpu.device, &gpu.queue, &header, source, clips.clone()),
        VatResources::with_clips(&gpu.device, &gpu.queue, &combined, clips),
    ];
    let mut checked = 0;
    for (m, vat) in vats.iter().enumerate() {
        let own = VatResources::new(&gpu.device, &gpu.queue, vat, &[]);
        let n = vat.layout.vertex_count;
        let vertices: Vec<u32> = (0..n).step_by(29).chain([n - 1]).collect();
        let (mut alone, mut shared) = (Vec::new(), Vec::new());
        for (c, clip) in vat.clips.iter().enumerate() {
            for t in [0.0, 0.37 * clip.duration, clip.duration * 0.93] {
                for &v in &vertices {
                    for interpolate in [1, 0] {
                        alone.push(Query {
                            vertex: v,
                            clip: c as u32,
                            t,
                            interpolate,
                        });
                        shared.push(Query {
                            vertex: set.models[m].vertex_base + v,
                            clip: set.models[m].first_clip + c as u32,
                            t,
                            interpolate,
                        });
                    }
                }
            }
        }
        let a = run_on(&gpu, &own, vat.precision, &alone);
        for (scene, how) in scenes.iter().zip(["uploaded per model", "combined"]) {
            let b = run_on(&gpu, scene, combined.precision, &shared);
            for (k, (x, y)) in a.iter().zip(&b).enumerate() {
                assert_eq!(
                    x, y,
                    "model {m}, query {k}: alone {x:?}, in the scene ({how}) {y:?}"
                );
            }
            checked += a.len();
        }
    }
    eprintln!("{checked} samples of 3 models equal through the scene's array");
}
