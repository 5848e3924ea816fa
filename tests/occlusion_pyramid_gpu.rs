//! Occlusion culling's depth pyramid on the GPU: drawn from a depth whose
//! every sample is known, it holds, in every texel of every mip, the
//! farthest depth of what it covers, at odd sizes and with MSAA, as its CPU
//! twin (`crowd::occlusion::Pyramid::reduce`) says.

mod gpu_common;
use gpu_common as common;

/// A depth every sample of which is known: `hash(x, y, sample)` as a
/// 24-bit fraction (exact in f32 and in the depth buffer).
fn sample_depth(x: u32, y: u32, s: u32) -> f32 {
    let mut h =
        x.wrapping_mul(73_856_093) ^ y.wrapping_mul(19_349_663) ^ s.wrapping_mul(83_492_791);
    h ^= h >> 13;
    h = h.wrapping_mul(0x5bd1_e995);
    h ^= h >> 15;
    (h >> 8) as f32 / 16_777_216.0
}

const DEPTH_WRITER: &str = r#"
@vertex
fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(uv * 2.0 - 1.0, 0.5, 1.0);
}

@fragment
fn fs(@builtin(position) p: vec4<f32>, @builtin(sample_index) s: u32) -> @builtin(frag_depth) f32 {
    let x = u32(p.x);
    let y = u32(p.y);
    var h = (x * 73856093u) ^ (y * 19349663u) ^ (s * 83492791u);
    h ^= h >> 13u;
    h *= 0x5bd1e995u;
    h ^= h >> 15u;
    return f32(h >> 8u) / 16777216.0;
}
"#;

/// Draws the known depth into a `w × h` target of `samples`, reduces it
/// with the renderer's pyramid, and reads the pyramid back.
fn gpu_pyramid(
    gpu: &stampede::gpu::GpuContext,
    (w, h): (u32, u32),
    samples: u32,
) -> stampede::crowd::occlusion::Pyramid {
    let device = &gpu.device;
    let format = stampede::render::DEPTH_FORMAT;
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("known depth"),
        size: wgpu::Extent3d {
            width: w,
            height: h,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: samples,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
        view_formats: &[],
    });
    let view = texture.create_view(&Default::default());
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("depth writer"),
        source: wgpu::ShaderSource::Wgsl(DEPTH_WRITER.into()),
    });
    let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("depth writer"),
        layout: None,
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs"),
            compilation_options: Default::default(),
            buffers: &[],
        },
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fs"),
            compilation_options: Default::default(),
            targets: &[],
        }),
        primitive: Default::default(),
        depth_stencil: Some(wgpu::DepthStencilState {
            format,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::Always),
            stencil: Default::default(),
            bias: Default::default(),
        }),
        multisample: wgpu::MultisampleState {
            count: samples,
            ..Default::default()
        },
        multiview_mask: None,
        cache: None,
    });
    let mut pyramid = stampede::render::passes::cull::pyramid::DepthPyramid::new(device);
    pyramid.ensure(device, &view, (w, h), samples, 0);
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("known depth"),
            color_attachments: &[],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &view,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(&pipeline);
        pass.draw(0..3, 0..1);
    }
    pyramid.encode(&mut encoder);
    gpu.queue.submit([encoder.finish()]);
    pyramid.read(gpu).expect("read back").expect("made")
}

#[test]
fn the_pyramid_holds_the_farthest_depth_at_odd_sizes_and_with_msaa() {
    let Some(gpu) = common::gpu_or_skip("occlusion") else {
        return;
    };
    for (size, samples) in [
        ((1279, 719), 4),
        ((1279, 719), 1),
        ((3, 5), 4),
        ((1, 1), 1),
        ((64, 32), 1),
    ] {
        let got = gpu_pyramid(&gpu, size, samples);
        let (w, h) = size;
        let depth: Vec<f32> = (0..h)
            .flat_map(|y| {
                (0..w).flat_map(move |x| (0..samples).map(move |s| sample_depth(x, y, s)))
            })
            .collect();
        let want = stampede::crowd::occlusion::Pyramid::reduce(&depth, w, h, samples);
        assert_eq!(got.sizes, want.sizes, "{size:?}: mip sizes");
        assert_eq!(got.sizes.last(), Some(&(1, 1)));
        for (m, (g, e)) in got.mips.iter().zip(&want.mips).enumerate() {
            let wrong = g.iter().zip(e).filter(|(a, b)| a != b).count();
            assert_eq!(
                wrong, 0,
                "{size:?} x{samples}: mip {m} has {wrong} texels off the farthest depth"
            );
        }
        // The reduction is not a copy: with MSAA mip 0 is each pixel's
        // farthest sample, never less than any.
        if samples > 1 {
            let s0: Vec<f32> = (0..w).map(|x| sample_depth(x, 0, 0)).collect();
            assert!(s0.iter().zip(&got.mips[0]).all(|(a, b)| a <= b));
            assert!(
                s0.iter().zip(&got.mips[0]).any(|(a, b)| a < b),
                "samples reduced"
            );
        }
    }
}
