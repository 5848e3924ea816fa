//! The living crowd on the GPU: the crossfade (`vat_sample_blend`) against a
//! CPU blend of two skinned poses, `herd_state` against `Herd::instance`,
//! deterministic images, and behaviour on in every technique.

mod gpu_common;
use gpu_common as common;

use glam::{Vec2, Vec3};
use stampede::crowd::anim::HerdClips;
use stampede::crowd::herd::{Herd, HerdTable};
use stampede::crowd::setup::{Loaded, ModelChoice, load};
use stampede::crowd::{BehaviourSettings, FrameSettings};
use stampede::render::headless::{self, Headless, RgbaImage};
use stampede::render::util::shaders;
use stampede::render::{RendererConfig, TechniqueKind, VatResources};
use stampede::skin;
use stampede::vat::{Precision, Vat};
use wgpu::util::DeviceExt;

const SEED: u64 = 5;

const BLEND_ENTRY: &str = r#"
struct Query { vertex: u32, previous: u32, previous_time: f32, clip: u32, time: f32, weight: f32, _p0: u32, _p1: u32 };
@group(0) @binding(0) var<storage, read> queries: array<Query>;
@group(0) @binding(1) var<storage, read_write> results: array<vec4<f32>>;

@compute @workgroup_size(64)
fn test_main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= arrayLength(&queries) { return; }
    let q = queries[i];
    let s = vat_sample_blend(q.vertex, q.previous, q.previous_time, q.clip, q.time, q.weight, true);
    results[2u * i] = vec4<f32>(s.position, 1.0);
    results[2u * i + 1u] = vec4<f32>(s.normal, 0.0);
}
"#;

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct BlendQuery {
    vertex: u32,
    previous: u32,
    previous_time: f32,
    clip: u32,
    time: f32,
    weight: f32,
    _pad: [u32; 2],
}

/// CPU skinning of every vertex of VAT clip `clip` at clip time `t`.
fn cpu_pose(prepared: &Loaded, clip: u32, t: f32) -> (Vec<Vec3>, Vec<Vec3>) {
    let c = &prepared.vat.clips[clip as usize];
    let time = stampede::crowd::pose_time(c, t);
    let pose = prepared.model.sample_pose(c.source, time);
    skin::skin(&prepared.model, &pose)
}

/// The crossfade the VAT path draws (`vat_sample_blend`, the function its
/// vertex shader calls) equals the blend of two CPU-skinned poses: positions
/// lerped, at weights 0 to 1 and clip times between baked frames.
/// Fails when the blend weights the wrong clip, skips the second fetch when
/// it is needed, or samples either clip at the wrong time. Tolerance: the
/// bake's interpolation + quantization error (the blend of two values each
/// within it stays within it), plus 1e-5 of the size for float rounding.
#[test]
fn the_crossfade_matches_a_cpu_blend_of_two_skinned_poses() {
    let Some(gpu) = common::gpu_or_skip("crossfade") else {
        return;
    };
    let prepared = load(&ModelChoice::Horse, 30.0, Precision::F16, None).expect("horse");
    let vat: &Vat = &prepared.vat;
    let clips = HerdClips::find(&vat.clips, &prepared.ground_speeds).expect("walk and gallop");
    let (walk, gallop, idle) = (clips.clips[0], clips.clips[1], clips.clips[2]);
    let dt = 1.0 / vat.fps;
    // (previous, its time, current, its time): between frames, across a loop.
    let pairs = [
        (walk, 0.37 + 0.3 * dt, gallop, 0.21 + 0.6 * dt),
        (gallop, 2.9 + 0.45 * dt, idle, 1.3 + 0.2 * dt),
        (idle, 0.05, walk, 7.77),
    ];
    let n = prepared.model.vertex_count() as u32;
    let vertices: Vec<u32> = (0..n).step_by(13).chain([n - 1]).collect();
    let weights = [0.0, 0.25, 0.5, 0.75, 1.0];
    let mut queries = Vec::new();
    for &(a, ta, b, tb) in &pairs {
        for &w in &weights {
            for &v in &vertices {
                queries.push(BlendQuery {
                    vertex: v,
                    previous: a,
                    previous_time: ta,
                    clip: b,
                    time: tb,
                    weight: w,
                    _pad: [0; 2],
                });
            }
        }
    }
    let resources = VatResources::new(&gpu.device, &gpu.queue, vat, &[]);
    let source = format!(
        "{}\n{}",
        shaders::VAT.source().expect("composes"),
        BLEND_ENTRY
    );
    let out = common::run_compute(
        &gpu,
        "behaviour test",
        &source,
        "test_main",
        &queries,
        0,
        &[(1, &resources.layout, &resources.bind_group)],
    );
    let tolerance = vat.report.interpolation + vat.report.quantization + 1e-5 * vat.report.diagonal;
    let mut k = 0;
    let mut worst = 0.0f32;
    for &(a, ta, b, tb) in &pairs {
        let (pa, na) = cpu_pose(&prepared, a, ta);
        let (pb, nb) = cpu_pose(&prepared, b, tb);
        for &w in &weights {
            for &v in &vertices {
                let (p, nrm) = (
                    Vec3::from_slice(&out[2 * k][..3]),
                    Vec3::from_slice(&out[2 * k + 1][..3]),
                );
                k += 1;
                let expected = pa[v as usize].lerp(pb[v as usize], w);
                let e = p.distance(expected);
                worst = worst.max(e);
                assert!(
                    e <= tolerance,
                    "clips {a}→{b} weight {w} vertex {v}: GPU {p} vs CPU {expected} (error {e}, allowed {tolerance})"
                );
                // A blend renormalizes (weight 1 is one clip, as `vat_sample`).
                if w < 1.0 {
                    assert!(
                        (nrm.length() - 1.0).abs() < 1e-3,
                        "normal not renormalized: {nrm}"
                    );
                }
                let cpu_n = na[v as usize].lerp(nb[v as usize], w).normalize_or_zero();
                assert!(
                    cpu_n == Vec3::ZERO || nrm.dot(cpu_n) > 0.8,
                    "normal {nrm} vs {cpu_n}"
                );
            }
        }
    }
    eprintln!(
        "{} crossfade queries, worst error {worst:.5} (allowed {tolerance:.5})",
        queries.len()
    );
    // The weights matter: the two clips' poses are far apart.
    let (pa, _) = cpu_pose(&prepared, pairs[0].0, pairs[0].1);
    let (pb, _) = cpu_pose(&prepared, pairs[0].2, pairs[0].3);
    let apart = pa
        .iter()
        .zip(&pb)
        .map(|(x, y)| x.distance(*y))
        .fold(0.0, f32::max);
    assert!(
        apart > 20.0 * tolerance,
        "walk and gallop poses too alike ({apart})"
    );
}

const HERD_ENTRY: &str = r#"
struct Query { index: u32, t: f32 };
@group(0) @binding(0) var<storage, read> queries: array<Query>;
@group(0) @binding(1) var<storage, read_write> results: array<vec4<f32>>;

@compute @workgroup_size(64)
fn test_main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= arrayLength(&queries) { return; }
    let q = queries[i];
    let h = herd_state(q.index, q.t);
    results[2u * i] = vec4<f32>(h.position, h.forward);
    results[2u * i + 1u] = vec4<f32>(f32(h.clip), f32(h.previous), h.weight, h.distance);
}
"#;

/// `herd_state` on the GPU is `Herd::instance` on the CPU (f64 times and
/// distances): a spiral of 300 horses and bands of up to 256 at several
/// times, in the first minutes and at day 30, including crossfades and lags
/// that put horses of one frame in different schedule segments. Positions
/// and distances within 1e-3 of the spacing, clips equal, weights within
/// 1e-4. Fails when the WGSL mirror drifts from the Rust (table layout,
/// spiral, band slots after the path, path lookup, speed ramp) or loses
/// precision at long uptimes.
#[test]
fn herd_state_on_the_gpu_equals_the_cpu_herd() {
    let Some(gpu) = common::gpu_or_skip("herd_state") else {
        return;
    };
    let prepared = load(&ModelChoice::Horse, 30.0, Precision::F16, None).expect("horse");
    let clips = HerdClips::find(&prepared.vat.clips, &prepared.ground_speeds).expect("gaits");
    let extent = prepared.vat.bounds.max - prepared.vat.bounds.min;
    let params = clips.params(
        SEED,
        &BehaviourSettings::on(),
        glam::Vec2::new(extent.x, extent.z),
    );
    let device = &gpu.device;
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("herd test layout"),
        entries: &[
            wgpu::BindGroupLayoutEntry {
                binding: 3,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            },
            stampede::gpu::compute_storage(4, true),
        ],
    });
    let (mut fading, mut segments_split, mut checked) = (0, 0, 0);
    // A large herd's spiral, bands (the largest, rows of three with a short
    // last row, a short band) and one horse.
    for count in [300, 256, 20, 7, 1] {
        let mut herd = Herd::new(params.clone(), count);
        let path = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("herd test path"),
            contents: bytemuck::cast_slice(&herd.gpu_data()),
            usage: wgpu::BufferUsages::STORAGE,
        });
        // Herd seconds from the start, and at day 30 (the table's relative
        // times and distances: an f32 herd time moves in 0.25 s steps there).
        let day_30 = 2_592_000.0;
        let times = [0.4, 5.93, 6.1, 13.7, 31.02, 60.15, 97.3];
        for t in times.into_iter().chain(times.map(|t| day_30 + t)) {
            let table: HerdTable = herd.table(t);
            let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("herd test table"),
                contents: bytemuck::bytes_of(&table),
                usage: wgpu::BufferUsages::UNIFORM,
            });
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("herd test group"),
                layout: &layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: uniform.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 4,
                        resource: path.as_entire_binding(),
                    },
                ],
            });
            // The GPU gets the time relative to the table, as `anim_state` does.
            let local = table.local_time(t);
            let queries: Vec<[u32; 2]> = (0..count).map(|i| [i, local.to_bits()]).collect();
            let source = format!(
                "{}\n{}",
                shaders::HERD.source().expect("composes"),
                HERD_ENTRY
            );
            let out = common::run_compute(
                &gpu,
                "behaviour test",
                &source,
                "test_main",
                &queries,
                0,
                &[(2, &layout, &group)],
            );
            let mut segs = std::collections::BTreeSet::new();
            for i in 0..count {
                let cpu = herd.instance(&table, i, t);
                let [px, pz, fx, fz] = out[2 * i as usize];
                let [clip, previous, weight, distance] = out[2 * i as usize + 1];
                let pos = Vec2::new(px, pz);
                let e = pos.distance(cpu.position);
                assert!(
                    e <= 1e-3 * params.spacing,
                    "{count} horses, t {t}, horse {i}: GPU {pos} vs CPU {} (distance {distance} vs {})",
                    cpu.position,
                    cpu.distance
                );
                let gpu_distance = table.base_distance() + distance as f64;
                assert!(
                    (gpu_distance - cpu.distance).abs() <= 1e-3 * params.spacing as f64,
                    "{count} horses, t {t}, horse {i}: distance {gpu_distance} vs {}",
                    cpu.distance
                );
                assert!(
                    Vec2::new(fx, fz).distance(cpu.forward) < 1e-3,
                    "{count} horses, t {t}, horse {i}: heading"
                );
                // At a segment boundary (weight ~0) rounding may pick either side.
                let boundary = cpu.weight < 1e-4 || weight < 1e-4;
                if !boundary {
                    assert_eq!(
                        clip as u32, cpu.clip,
                        "{count} horses, t {t}, horse {i}: clip"
                    );
                    assert_eq!(
                        previous as u32, cpu.previous,
                        "{count} horses, t {t}, horse {i}: previous clip"
                    );
                    assert!(
                        (weight - cpu.weight).abs() < 1e-4,
                        "{count} horses, t {t}, horse {i}: weight {weight} vs {}",
                        cpu.weight
                    );
                }
                if cpu.weight > 0.0 && cpu.weight < 1.0 && cpu.clip != cpu.previous {
                    fading += 1;
                }
                let lag = -herd.slot(i).y / params.lag_speed;
                segs.insert(((t - lag as f64) / params.segment as f64).floor() as i64);
                checked += 1;
            }
            if segs.len() > 1 {
                segments_split += 1;
            }
        }
    }
    eprintln!(
        "{checked} horses checked, {fading} mid-crossfade, {segments_split} times with the herd across segments"
    );
    assert!(fading > 0, "no horse was checked during a crossfade");
    assert!(segments_split >= 3, "lags never crossed a segment boundary");
}

fn behaviour_view(choice: ModelChoice, count: u32, size: (u32, u32)) -> Option<(Headless, Loaded)> {
    let gpu = common::gpu_or_skip("behaviour images")?;
    let prepared = load(&choice, 30.0, Precision::F16, None).expect("the model bakes");
    let mut config =
        RendererConfig::for_model(&prepared, size.0, size.1, count, SEED, headless::FORMAT);
    config.behaviour = BehaviourSettings::on();
    let view = Headless::new(gpu, &prepared.model, &prepared.vat, &config).expect("renderer");
    Some((view, prepared))
}

fn frame_at(view: &mut Headless, time: f64) -> FrameSettings {
    let s = FrameSettings {
        time,
        ..FrameSettings::default()
    };
    view.camera = view.renderer.camera_at(s.time, s.playback);
    s
}

fn render(view: &mut Headless, kind: TechniqueKind, s: &FrameSettings) -> RgbaImage {
    view.renderer.set_technique(kind).expect("technique builds");
    view.render(s).expect("render")
}

/// The same seed and time give the same image twice, from two renderers
/// (horses: the herd; birds: the flock stepped round(T × 60) times from its
/// seed). Fails on any state that depends on wall time or frame history.
#[test]
fn the_same_seed_and_time_give_the_same_image() {
    for (choice, time) in [(ModelChoice::Horse, 14.3), (ModelChoice::Bird, 3.0)] {
        let Some((mut a, _)) = behaviour_view(choice.clone(), 300, (256, 192)) else {
            return;
        };
        let (mut b, _) = behaviour_view(choice.clone(), 300, (256, 192)).expect("second renderer");
        let s = frame_at(&mut a, time);
        frame_at(&mut b, time);
        let first = a.render(&s).expect("render");
        // A frame in between must not change the result.
        let halfway = frame_at(&mut b, time * 0.5);
        b.render(&halfway).expect("render");
        frame_at(&mut b, time);
        let second = b.render(&s).expect("render");
        assert!(
            first.pixels == second.pixels,
            "{}: the two images differ",
            choice.label()
        );
        let background = &first.pixels[..4];
        assert!(
            first.pixels.chunks(4).any(|p| p != background),
            "blank image"
        );
    }
}

/// Behaviour on renders with every technique without validation errors,
/// for the horse (herd) and the bird (flock).
#[test]
fn every_technique_renders_the_living_crowd() {
    for choice in [ModelChoice::Horse, ModelChoice::Bird] {
        let Some((mut view, _)) = behaviour_view(choice.clone(), 40, (192, 128)) else {
            return;
        };
        let s = frame_at(&mut view, 7.2);
        for &kind in TechniqueKind::ALL {
            let device = view.renderer.gpu.device.clone();
            let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
            let image = render(&mut view, kind, &s);
            let error = pollster::block_on(scope.pop());
            assert!(error.is_none(), "{}: {kind}: {error:?}", choice.label());
            let first = &image.pixels[..4];
            assert!(
                image.pixels.chunks(4).any(|p| p != first),
                "{kind}: blank image"
            );
            assert!(
                view.renderer.behaviour().active(),
                "behaviour should be active"
            );
        }
    }
}

/// With behaviour on, VAT and live skinning (two palettes per horse blended
/// with the GPU's weight) draw the same herd: the limit of
/// tests/techniques_gpu.rs (mean 0.5 of 255, 0.3 % of pixels off by > 24).
/// The time is chosen so part of the herd is mid-crossfade.
#[test]
fn vat_and_live_skinning_agree_with_behaviour_on() {
    let Some((mut view, _)) = behaviour_view(ModelChoice::Horse, 60, (320, 192)) else {
        return;
    };
    let s = frame_at(&mut view, 12.1 + 0.43 / 30.0);
    let vat = render(&mut view, TechniqueKind::Vat, &s);
    let skinning = render(&mut view, TechniqueKind::Skinning, &s);
    let bone = render(&mut view, TechniqueKind::BoneTexture, &s);
    let still = render(&mut view, TechniqueKind::Static, &s);
    common::assert_images_agree(
        "behaviour on, ",
        &vat,
        &[("skinning", &skinning), ("bone texture", &bone)],
        &still,
    );
}
