//! Helpers shared by the GPU tests.
#![allow(dead_code)]

use stampede::gpu::GpuContext;
use std::path::PathBuf;
use std::sync::Arc;

/// A headless device, or `None` (with the reason printed) when this machine
/// has none. On CI (`CI=true`) a missing adapter fails the test instead.
pub fn gpu_or_skip(test: &str) -> Option<Arc<GpuContext>> {
    or_skip(test, GpuContext::headless())
}

/// [`gpu_or_skip`] on `backends` only (`WGPU_BACKEND` aside).
pub fn backend_or_skip(test: &str, backends: wgpu::Backends) -> Option<Arc<GpuContext>> {
    or_skip(test, GpuContext::headless_on(backends))
}

/// [`gpu_or_skip`] with `withheld` left out even where the adapter has
/// them (what a browser's WebGPU lacks).
pub fn gpu_withholding_or_skip(
    test: &str,
    withheld: stampede::gpu::Withheld,
) -> Option<Arc<GpuContext>> {
    or_skip(test, GpuContext::headless_withholding(withheld))
}

fn or_skip(
    test: &str,
    device: Result<Arc<GpuContext>, stampede::gpu::GpuError>,
) -> Option<Arc<GpuContext>> {
    match device {
        Ok(gpu) => Some(gpu),
        Err(e) => {
            if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") {
                panic!("{test}: no GPU on CI: {e}");
            }
            eprintln!("SKIPPED {test}: {e}");
            None
        }
    }
}

/// The model the GPU tests draw: the project's horse when it exists, else the Fox.
pub fn test_model_path() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let horse = root.join("assets/horse.glb");
    if horse.exists() { horse } else { fox_path() }
}

pub fn fox_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/models/Fox.glb")
}

use stampede::render::headless::RgbaImage;

/// How two images differ.
#[derive(Debug)]
pub struct Diff {
    /// Mean absolute channel difference, 0..255.
    pub mean: f64,
    /// Pixels whose largest channel difference exceeds the threshold.
    pub failed: usize,
    pub image: RgbaImage,
}

/// The parity limit of the technique image tests: against the VAT image,
/// a mean channel error of at most 0.5 (of 255) and at most 0.3 % of pixels
/// off by more than 24. VAT and bone texture lerp between baked frames while
/// live skinning samples the exact pose, so silhouette edges may move by the
/// bake's interpolation error; a wrong pose moves whole limbs. `still` (the
/// static technique) must exceed the limit, so the limit has teeth.
pub fn assert_images_agree(
    context: &str,
    vat: &RgbaImage,
    others: &[(&str, &RgbaImage)],
    still: &RgbaImage,
) {
    let budget = (vat.width * vat.height) as usize * 3 / 1000;
    for (name, img) in others {
        let d = diff(vat, img, 24);
        eprintln!(
            "{context}VAT vs {name}: mean {:.4}, {} failed pixels",
            d.mean, d.failed
        );
        assert!(
            d.mean <= 0.5 && d.failed <= budget,
            "{context}VAT vs {name}: mean error {:.3} (limit 0.5), {} pixels off (budget {budget})",
            d.mean,
            d.failed
        );
    }
    let d = diff(vat, still, 24);
    eprintln!(
        "{context}VAT vs static: mean {:.4}, {} failed pixels",
        d.mean, d.failed
    );
    assert!(
        d.mean > 0.5 || d.failed > budget,
        "{context}a different pose should exceed the limit (mean {:.3}, {} pixels)",
        d.mean,
        d.failed
    );
}

pub fn diff(a: &RgbaImage, b: &RgbaImage, threshold: u8) -> Diff {
    assert_eq!(
        (a.width, a.height),
        (b.width, b.height),
        "image sizes differ"
    );
    let mut sum = 0u64;
    let mut failed = 0;
    let mut pixels = Vec::with_capacity(a.pixels.len());
    for (pa, pb) in a.pixels.chunks(4).zip(b.pixels.chunks(4)) {
        let d: Vec<u8> = pa
            .iter()
            .zip(pb)
            .take(3)
            .map(|(x, y)| x.abs_diff(*y))
            .collect();
        sum += d.iter().map(|&x| x as u64).sum::<u64>();
        let worst = d.iter().copied().max().unwrap_or(0);
        if worst > threshold {
            failed += 1;
        }
        pixels.extend([
            worst.saturating_mul(4),
            worst.saturating_mul(4),
            worst.saturating_mul(4),
            255,
        ]);
    }
    Diff {
        mean: sum as f64 / (a.pixels.len() / 4 * 3) as f64,
        failed,
        image: RgbaImage {
            width: a.width,
            height: a.height,
            pixels,
        },
    }
}

/// Compares `actual` with `tests/snapshots/{name}.png` (style.md): a mean
/// error limit plus a failed-pixel budget. On failure writes `-actual` and
/// `-difference` PNGs next to it. `UPDATE_SNAPSHOTS=1` rewrites the reference.
pub fn check_snapshot(name: &str, actual: &RgbaImage, mean_limit: f64, failed_budget: f64) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let reference = dir.join(format!("{name}.png"));
    let update = std::env::var("UPDATE_SNAPSHOTS").is_ok_and(|v| !v.is_empty() && v != "0");
    if update {
        std::fs::create_dir_all(&dir).expect("create tests/snapshots");
        actual.save_png(&reference).expect("write the reference");
        eprintln!("updated {}", reference.display());
        return;
    }
    let expected = match RgbaImage::load_png(&reference) {
        Ok(img) => img,
        Err(e) => {
            let out = dir.join(format!("{name}-actual.png"));
            let _ = actual.save_png(&out);
            panic!(
                "no reference image ({e}); wrote {}; run with UPDATE_SNAPSHOTS=1 to accept it",
                out.display()
            );
        }
    };
    let size_ok = (expected.width, expected.height) == (actual.width, actual.height);
    let d = size_ok.then(|| diff(&expected, actual, 24));
    let budget = (failed_budget * (actual.width * actual.height) as f64) as usize;
    let ok = d
        .as_ref()
        .is_some_and(|d| d.mean <= mean_limit && d.failed <= budget);
    if !ok {
        let actual_path = dir.join(format!("{name}-actual.png"));
        let diff_path = dir.join(format!("{name}-difference.png"));
        let _ = actual.save_png(&actual_path);
        if let Some(d) = &d {
            let _ = d.image.save_png(&diff_path);
        }
        panic!(
            "{name} differs from {}: {} (limits: mean {mean_limit}, {budget} failed pixels); wrote {} and {}",
            reference.display(),
            d.map_or("size differs".to_string(), |d| format!(
                "mean error {:.3}, {} failed pixels",
                d.mean, d.failed
            )),
            actual_path.display(),
            diff_path.display()
        );
    }
}

/// Runs `entry` of the WGSL `source` once per query in workgroups of 64.
/// Bind group `io_at` holds the queries (binding 0) and two vec4 results
/// per query (binding 1); `groups` are bound at their indices; any
/// other index below the highest gets an empty group. Objects are labelled
/// `"{label} …"`. Returns the results, read back.
pub fn run_compute<Q: bytemuck::Pod>(
    gpu: &GpuContext,
    label: &str,
    source: &str,
    entry: &str,
    queries: &[Q],
    io_at: usize,
    groups: &[(usize, &wgpu::BindGroupLayout, &wgpu::BindGroup)],
) -> Vec<[f32; 4]> {
    use stampede::gpu::compute_storage;
    use wgpu::util::DeviceExt;
    let device = &gpu.device;
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    let io_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(&format!("{label} io")),
        entries: &[compute_storage(0, true), compute_storage(1, false)],
    });
    let query_buf = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(&format!("{label} queries")),
        contents: bytemuck::cast_slice(queries),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let size = (queries.len() * 2 * 16) as u64;
    let out = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(&format!("{label} results")),
        size,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(&format!("{label} readback")),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let io = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(&format!("{label} io")),
        layout: &io_layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: query_buf.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: out.as_entire_binding(),
            },
        ],
    });
    // Every index up to the highest: io, a given group, or an empty one.
    let count = groups.iter().map(|g| g.0).chain([io_at]).max().unwrap_or(0) + 1;
    let mut slots: Vec<Option<(&wgpu::BindGroupLayout, &wgpu::BindGroup)>> = vec![None; count];
    slots[io_at] = Some((&io_layout, &io));
    for &(at, layout, group) in groups {
        slots[at] = Some((layout, group));
    }
    let empty = slots.iter().any(Option::is_none).then(|| {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(&format!("{label} empty")),
            entries: &[],
        });
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(&format!("{label} empty")),
            layout: &layout,
            entries: &[],
        });
        (layout, group)
    });
    let slots: Vec<(&wgpu::BindGroupLayout, &wgpu::BindGroup)> = slots
        .into_iter()
        .map(|s| s.unwrap_or_else(|| empty.as_ref().map(|(l, g)| (l, g)).expect("empty group")))
        .collect();
    let layouts: Vec<Option<&wgpu::BindGroupLayout>> = slots.iter().map(|s| Some(s.0)).collect();
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(&format!("{label} pipeline")),
        layout: Some(
            &device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(&format!("{label} layout")),
                bind_group_layouts: &layouts,
                immediate_size: 0,
            }),
        ),
        module: &module,
        entry_point: Some(entry),
        compilation_options: Default::default(),
        cache: None,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        for (i, (_, group)) in slots.iter().enumerate() {
            pass.set_bind_group(i as u32, *group, &[]);
        }
        pass.dispatch_workgroups((queries.len() as u32).div_ceil(64), 1, 1);
    }
    encoder.copy_buffer_to_buffer(&out, 0, &readback, 0, size);
    gpu.queue.submit([encoder.finish()]);
    let bytes = stampede::gpu::read_buffer(device, &readback, size).expect("read back the results");
    bytemuck::pod_collect_to_vec(&bytes)
}

/// Results written as (position, normal) vec4 pairs, as Vec3 pairs.
pub fn position_normal_pairs(results: &[[f32; 4]]) -> Vec<(glam::Vec3, glam::Vec3)> {
    results
        .chunks(2)
        .map(|c| {
            (
                glam::Vec3::from_slice(&c[0][..3]),
                glam::Vec3::from_slice(&c[1][..3]),
            )
        })
        .collect()
}

/// Where the CPU places instance `i` of the last frame drawn (crowd seed
/// `seed`), with the instance.
pub fn placed(
    renderer: &stampede::render::Renderer,
    loaded: &stampede::crowd::setup::Loaded,
    seed: u64,
    i: u32,
) -> (
    stampede::crowd::placement::Placement,
    stampede::crowd::Instance,
) {
    let frame = renderer.last_frame.expect("a frame was drawn");
    let inst = stampede::crowd::generate(seed, i);
    let p = stampede::crowd::placement::instance_placement(
        &inst,
        i,
        &frame,
        &loaded.vat.clips,
        &loaded.ground_speeds,
        renderer.behaviour().view(),
    )
    .expect("instances are placed on the CPU");
    (p, inst)
}

/// Where the CPU places instance `i` of the last frame drawn (crowd seed
/// `seed`): its bounding sphere in the world (centre, radius) and its
/// scale, from the cull pass's model-space sphere `sphere`.
pub fn world_sphere(
    renderer: &stampede::render::Renderer,
    loaded: &stampede::crowd::setup::Loaded,
    sphere: [f32; 4],
    seed: u64,
    i: u32,
) -> (glam::Vec3, f32, f32) {
    let (p, inst) = placed(renderer, loaded, seed, i);
    let centre = p.to_world(glam::Vec3::from_slice(&sphere[..3]), inst.scale);
    (centre, sphere[3] * inst.scale, inst.scale)
}

/// A compute entry `test_main` for [`run_compute`] with the queries at
/// group 3: `Query` has the WGSL `fields`, and each query `q` writes the
/// position and normal of the `VatSample` that `call` (a WGSL expression
/// over `q`) returns.
pub fn sample_entry(fields: &str, call: &str) -> String {
    format!(
        r#"
struct Query {{ {fields} }};
@group(3) @binding(0) var<storage, read> queries: array<Query>;
@group(3) @binding(1) var<storage, read_write> results: array<vec4<f32>>;

@compute @workgroup_size(64)
fn test_main(@builtin(global_invocation_id) id: vec3<u32>) {{
    let i = id.x;
    if i >= arrayLength(&queries) {{ return; }}
    let q = queries[i];
    let s = {call};
    results[2u * i] = vec4<f32>(s.position, 1.0);
    results[2u * i + 1u] = vec4<f32>(s.normal, 0.0);
}}
"#
    )
}

/// The crowd's model table (each instance's model and slot) as a group 2
/// at binding 7, as the crowd shaders read it.
pub fn models_group(r: &stampede::render::Renderer) -> (wgpu::BindGroupLayout, wgpu::BindGroup) {
    let device = &r.gpu.device;
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("test model table"),
        entries: &[stampede::gpu::compute_storage(7, true)],
    });
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("test model table"),
        layout: &layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 7,
            resource: r.crowd().models.as_entire_binding(),
        }],
    });
    (layout, group)
}

/// The skinned vertices `[vertex, instance, base, 0]` (the vertex in the
/// scene's vertex stream, its model's first vertex there) the draws of
/// `r`'s last frame read, through compute skinning's own WGSL read
/// (`compute_skinned_vertex`).
pub fn read_compute_skinned(
    r: &stampede::render::Renderer,
    queries: &[[u32; 4]],
) -> Vec<(glam::Vec3, glam::Vec3)> {
    let module = stampede::render::TechniqueKind::ComputeSkinning
        .crowd_module()
        .source()
        .expect("the crowd module composes");
    let (layout, group) = r.technique().group().expect("the technique was prepared");
    let (models_layout, models) = models_group(r);
    let results = run_compute(
        &r.gpu,
        "compute skinning test",
        &format!(
            "{module}\n{}",
            sample_entry(
                "vertex: u32, instance: u32, base: u32, pad: u32",
                "compute_skinned_vertex(q.vertex, q.instance, q.base)"
            )
        ),
        "test_main",
        queries,
        3,
        &[(1, layout, group), (2, &models_layout, &models)],
    );
    position_normal_pairs(&results)
}

/// At eye level inside the herd, from the opening view's target: the
/// nearest horses hide many behind them.
pub fn inside_the_herd(renderer: &mut stampede::render::Renderer) -> stampede::render::Camera {
    let mut camera = renderer.camera_at(2.0, 1.0);
    let size = renderer.layout.model_size;
    camera.pitch = 0.02;
    camera.distance = size * 1.5;
    camera.target.y = size * 0.35;
    camera
}
