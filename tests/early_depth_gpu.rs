//! The impostors' early depth test (`@early_depth_test(greater_equal)`,
//! where the device has `SHADER_EARLY_DEPTH_TEST`): each quad is drawn at
//! the nearest depth of its box (shaders/box_depth.wgsl), which the box's
//! corners bound on the CPU, and the pictures are those of a device
//! without the attribute (a browser's WebGPU), byte for byte, under MSAA,
//! TAA and neither, with shadows.

mod gpu_common;
mod mixed_common;
use gpu_common as common;
use mixed_common::*;

use glam::{Mat3, Mat4, Vec3, Vec4};
use stampede::crowd::motion::Aa;
use stampede::crowd::{BehaviourSettings, FrameSettings};
use stampede::gpu::Withheld;
use stampede::render::headless::RgbaImage;
use stampede::render::passes::targets::TargetOptions;
use stampede::render::util::shaders;

const EARLY: wgpu::Features = wgpu::Features::SHADER_EARLY_DEPTH_TEST;

/// One box under one projection: the projection's columns, the centre,
/// the three axes (unit, orthogonal) and the half-sizes.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Query {
    vp: [[f32; 4]; 4],
    centre: [f32; 4],
    axes: [[f32; 4]; 3],
    half: [f32; 4],
}

const ENTRY: &str = r#"
struct Query { vp: mat4x4<f32>, centre: vec4<f32>, axes: array<vec4<f32>, 3>, half: vec4<f32> };
@group(0) @binding(0) var<storage, read> queries: array<Query>;
@group(0) @binding(1) var<storage, read_write> results: array<vec4<f32>>;

@compute @workgroup_size(64)
fn test_main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= arrayLength(&queries) { return; }
    let q = queries[i];
    let axes = mat3x3<f32>(q.axes[0].xyz, q.axes[1].xyz, q.axes[2].xyz);
    results[2u * i] = vec4<f32>(box_front(q.vp, q.centre.xyz, axes, q.half.xyz));
    results[2u * i + 1u] = vec4<f32>(0.0);
}
"#;

/// The CPU's rule: the nearest of the box's eight corners (0 for a corner
/// at or behind the camera), clamped to the depth range.
fn nearest_corner(q: &Query) -> f32 {
    let vp = Mat4::from_cols_array_2d(&q.vp);
    let centre = Vec4::from(q.centre).truncate();
    let mut nearest = f32::INFINITY;
    for corner in 0..8 {
        let mut p = centre;
        for (a, axis) in q.axes.iter().enumerate() {
            let sign = if corner >> a & 1 == 1 { 1.0 } else { -1.0 };
            p += Vec4::from(*axis).truncate() * q.half[a] * sign;
        }
        let clip = vp * p.extend(1.0);
        let depth = if clip.w <= 0.0 { 0.0 } else { clip.z / clip.w };
        nearest = nearest.min(depth);
    }
    nearest.clamp(0.0, 1.0)
}

/// A little generator, so the boxes are the same every run.
struct Lcg(u64);
impl Lcg {
    fn unit(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
    fn direction(&mut self) -> Vec3 {
        loop {
            let v = Vec3::new(
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            );
            if v.length_squared() > 0.05 && v.length_squared() <= 1.0 {
                return v.normalize();
            }
        }
    }
}

/// Boxes around the camera, under perspectives (the camera's, jittered
/// as TAA does) and orthographic projections (a shadow cascade's), some
/// far and small, some large, some reaching behind the camera.
fn queries() -> Vec<Query> {
    let mut rng = Lcg(42);
    let mut out = Vec::new();
    for i in 0..512 {
        let eye = Vec3::new(
            rng.range(-50.0, 50.0),
            rng.range(1.0, 40.0),
            rng.range(-50.0, 50.0),
        );
        let look = eye + rng.direction() * 10.0;
        let view = glam::camera::rh::view::look_at_mat4(eye, look, Vec3::Y);
        let proj = if i % 4 == 3 {
            glam::camera::rh::proj::directx::orthographic(-60.0, 60.0, -60.0, 60.0, -200.0, 200.0)
        } else {
            let near = rng.range(0.01, 1.0);
            let mut p = glam::camera::rh::proj::directx::perspective(
                rng.range(0.4, 1.4),
                rng.range(0.5, 2.5),
                near,
                near * 6000.0,
            );
            // A TAA jitter moves x and y only.
            p.z_axis.x += rng.range(-0.002, 0.002);
            p.z_axis.y += rng.range(-0.002, 0.002);
            p
        };
        let distance = if i % 8 == 0 {
            rng.range(0.0, 2.0)
        } else {
            rng.range(5.0, 400.0)
        };
        // Mostly ahead of the camera, as the crowd it draws is.
        let ahead = ((look - eye).normalize() + rng.direction() * 0.5).normalize();
        let centre = eye + ahead * distance;
        let a = rng.direction();
        let b = a.any_orthonormal_vector();
        let c = a.cross(b);
        let basis = Mat3::from_cols(a, b, c);
        let radius = rng.range(0.2, 3.0);
        out.push(Query {
            vp: (proj * view).to_cols_array_2d(),
            centre: centre.extend(1.0).into(),
            axes: [0, 1, 2].map(|k| basis.col(k).extend(0.0).into()),
            half: [
                radius * rng.range(0.8, 1.3),
                radius * rng.range(0.8, 1.3),
                radius,
                0.0,
            ],
        });
    }
    out
}

#[test]
fn the_quads_depth_is_the_nearest_corner_of_the_box() {
    let Some(gpu) = common::gpu_or_skip("early_depth_gpu") else {
        return;
    };
    let source = format!(
        "{}\n{ENTRY}",
        shaders::file("box_depth").expect("box_depth.wgsl")
    );
    let queries = queries();
    let results = common::run_compute(&gpu, "box front", &source, "test_main", &queries, 0, &[]);
    let mut worst = 0.0f32;
    let mut reaching = 0;
    for (i, q) in queries.iter().enumerate() {
        let gpu_depth = results[2 * i][0];
        let cpu_depth = nearest_corner(q);
        if cpu_depth == 0.0 {
            reaching += 1;
        }
        // Depth near 1 steps by 6e-8 under a perspective; nearer the
        // camera it changes fast with distance, and f32 rounding there
        // moves it by more (measured: 1.2e-5 at 0.32).
        let error = (gpu_depth - cpu_depth).abs();
        worst = worst.max(error);
        assert!(
            error <= 3e-7 + 1e-4 * (1.0 - cpu_depth),
            "box {i}: the quad's depth {gpu_depth} against the nearest corner's {cpu_depth}"
        );
    }
    eprintln!(
        "{} boxes, {reaching} reach the camera, worst difference {worst:e}",
        queries.len()
    );
    assert!(
        reaching > 0 && reaching < queries.len() / 4,
        "{reaching} boxes reach the camera"
    );
}

/// The far crowd (horses and birds as impostors, casting into the
/// cascades), `aa`, drawn twice (TAA's history), by `gpu`.
fn far_picture(
    gpu: std::sync::Arc<stampede::gpu::GpuContext>,
    loaded: &[stampede::crowd::setup::Loaded],
    aa: Aa,
) -> (RgbaImage, usize) {
    let counts = [200, 200];
    let mut config = mixed_common::scene_config(loaded, &counts, true, BehaviourSettings::on());
    config.targets = TargetOptions {
        aa,
        velocity: aa == Aa::Taa,
        ..Default::default()
    };
    let mut view = mixed_common::scene_configured(gpu.clone(), loaded, &counts, &config);
    view.camera.distance *= 5.0;
    let settings = FrameSettings {
        time: 2.5,
        ..FrameSettings::default()
    };
    view.draw_frame(&settings).expect("first frame");
    let next = FrameSettings {
        time: 2.5 + 1.0 / 60.0,
        ..settings
    };
    let picture = view.render(&next).expect("second frame");
    let lists = view.renderer.culler().read_lists(&gpu).expect("reads back");
    let regions = view.renderer.culler().regions();
    let impostors = (0..regions.models())
        .map(|m| lists.entries[regions.impostor_region(m) as usize].len())
        .sum();
    (picture, impostors)
}

#[test]
fn impostors_draw_the_same_bytes_with_the_early_depth_test() {
    let Some(early) = common::gpu_or_skip("early_depth_gpu") else {
        return;
    };
    let Some(late) = common::gpu_withholding_or_skip(
        "early_depth_gpu",
        Withheld {
            features: EARLY,
            ..Withheld::default()
        },
    ) else {
        return;
    };
    if !early.device.features().contains(EARLY) {
        // Metal, DX12, GL: nothing to compare (lavapipe's Vulkan has it).
        eprintln!(
            "SKIPPED: {} ({:?}) has no SHADER_EARLY_DEPTH_TEST",
            early.info.name, early.info.backend
        );
        return;
    }
    assert!(!late.device.features().contains(EARLY));
    assert!(late.limitations.iter().any(|l| l.contains("early depth")));
    let loaded = models();
    for aa in Aa::ALL {
        let (with, impostors) = far_picture(early.clone(), &loaded, aa);
        let (without, _) = far_picture(late.clone(), &loaded, aa);
        assert!(impostors > 100, "{aa:?}: {impostors} impostors drawn");
        let differ = with
            .pixels
            .chunks_exact(4)
            .zip(without.pixels.chunks_exact(4))
            .filter(|(a, b)| a != b)
            .count();
        eprintln!("{aa:?}: {impostors} impostors, {differ} pixels differ");
        assert_eq!(
            differ, 0,
            "{aa:?}: the early depth test changed {differ} pixels"
        );
    }
}
