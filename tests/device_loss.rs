//! A lost device and oversized requests, headless: a destroyed device makes
//! the next frame an error (no panic, no hang), and requests beyond the
//! device's limits are capped or refused before wgpu sees them.

mod gpu_common;
use gpu_common as common;

use stampede::Model;
use stampede::crowd::{BehaviourSettings, FrameSettings, Motion};
use stampede::gpu::GpuContext;
use stampede::render::headless::{FORMAT, Headless, HeadlessError};
use stampede::render::{RenderError, Renderer, RendererConfig, TechniqueKind};
use stampede::vat::{self, BakeOptions, Vat};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn model_and_vat() -> (Model, std::sync::Arc<Vat>) {
    let path = common::test_model_path();
    let model = Model::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let vat = vat::bake(&model, &BakeOptions::default()).expect("the test model bakes");
    (model, std::sync::Arc::new(vat))
}

fn config(count: u32, behaviour: bool) -> RendererConfig {
    RendererConfig {
        format: FORMAT,
        width: 160,
        height: 90,
        count,
        seed: 3,
        motion: Motion::Track,
        ground_speeds: Vec::new(),
        behaviour: BehaviourSettings {
            enabled: behaviour,
            ..Default::default()
        },
        cull: Default::default(),
        lod: Default::default(),
        clip: Some(0),
        lod_chain: None,
        impostor: None,
        shadows: Default::default(),
        targets: Default::default(),
    }
}

#[test]
fn a_destroyed_device_gives_an_error_not_a_panic() {
    let Some(gpu) = common::gpu_or_skip("device_loss") else {
        return;
    };
    let (model, vat) = model_and_vat();
    let mut view = Headless::new(gpu.clone(), &model, &vat, &config(16, true)).expect("builds");
    let settings = FrameSettings::default();
    view.render(&settings).expect("the first frame renders");
    assert_eq!(gpu.lost(), None, "a working device reports no loss");

    gpu.device.destroy();
    let started = Instant::now();
    let result = view.render(&settings);
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(10),
        "render after loss took {took:?}"
    );
    match result {
        Err(HeadlessError::Render(RenderError::Gpu(e))) | Err(HeadlessError::Gpu(e)) => {
            let text = e.to_string();
            assert!(
                text.contains("device was lost"),
                "the error names the loss: {text}"
            );
        }
        other => panic!(
            "expected a lost-device error, got {:?}",
            other.map(|i| i.width)
        ),
    }
    assert!(gpu.lost().is_some(), "the context remembers the loss");
    // Still an error, still no panic, on every later frame.
    assert!(view.render(&settings).is_err());
}

/// Records one frame without submitting it (no GPU time), inside a
/// validation scope; returns the scope's error.
fn record_frame(gpu: &Arc<GpuContext>, renderer: &mut Renderer) -> Option<wgpu::Error> {
    let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let target = gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("target"),
        size: wgpu::Extent3d {
            width: 160,
            height: 90,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: FORMAT,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
        view_formats: &[],
    });
    let view = target.create_view(&Default::default());
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let camera = renderer.camera_at(0.0, 1.0);
    renderer
        .encode(&mut encoder, &view, &camera, &FrameSettings::default())
        .expect("the frame records");
    drop(encoder.finish());
    pollster::block_on(scope.pop())
}

#[test]
fn a_million_skinned_instances_are_capped_to_one_storage_binding() {
    let Some(gpu) = common::gpu_or_skip("device_loss") else {
        return;
    };
    let (model, vat) = model_and_vat();
    let joints = model.palette.len().max(1) as u64;
    let binding = gpu.caps.max_storage_buffer_binding_size;
    let palette_bytes = 48 * joints;
    assert!(
        1_000_000 * palette_bytes > binding,
        "the test needs palettes beyond the limit"
    );
    let mut renderer = Renderer::new(gpu.clone(), &model, &vat, &config(1_000_000, false))
        .expect("a million instances fit the instance buffer");
    renderer
        .set_technique(TechniqueKind::Skinning)
        .expect("live skinning builds");
    let error = record_frame(&gpu, &mut renderer);
    assert!(error.is_none(), "no validation error: {error:?}");
    let costs = renderer.costs();
    let cap = (binding / palette_bytes) as u32;
    assert_eq!(costs.cap, Some(cap), "the documented cap");
    assert_eq!(costs.requested, 1_000_000);
    assert_eq!(costs.drawn, cap, "only the cap is drawn");
    assert!(costs.gpu_memory_bytes <= binding + (1 << 20));
    assert_eq!(gpu.lost(), None);
}

#[test]
fn a_vat_beyond_the_texture_limits_is_refused() {
    let Some(gpu) = common::gpu_or_skip("device_loss") else {
        return;
    };
    let (model, vat) = model_and_vat();
    let mut vat = std::sync::Arc::unwrap_or_clone(vat);
    vat.layout.width = gpu.caps.max_texture_dimension_2d + 1;
    let vat = std::sync::Arc::new(vat);
    let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let result = Renderer::new(gpu.clone(), &model, &vat, &config(16, false));
    assert!(
        matches!(result, Err(RenderError::VatTooLarge { .. })),
        "expected VatTooLarge, got {:?}",
        result.err()
    );
    let error = pollster::block_on(scope.pop());
    assert!(error.is_none(), "refused before wgpu: {error:?}");
}
