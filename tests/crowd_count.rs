//! The instance count changes at run time, up and down, without errors and
//! without reallocating on every change; the crowd stays the same crowd.
//! Counts past a limit are refused with the reason.

mod gpu_common;
use gpu_common as common;

use stampede::Model;
use stampede::crowd::{FrameSettings, Motion};
use stampede::render::RendererConfig;
use stampede::render::headless::Headless;
use stampede::vat::{self, BakeOptions};

#[test]
fn count_changes_live() {
    let Some(gpu) = common::gpu_or_skip("crowd_count") else {
        return;
    };
    let model = Model::load(common::fox_path()).expect("Fox loads");
    let vat = std::sync::Arc::new(
        vat::bake(
            &model,
            &BakeOptions {
                fps: 10.0,
                ..BakeOptions::default()
            },
        )
        .expect("bake"),
    );
    let config = RendererConfig {
        format: stampede::render::headless::FORMAT,
        width: 256,
        height: 192,
        count: 40,
        seed: 3,
        motion: Motion::Stand,
        ground_speeds: vec![],
        behaviour: Default::default(),
        cull: Default::default(),
        lod: Default::default(),
        clip: Some(0),
        lod_chain: None,
        impostor: None,
        shadows: Default::default(),
        targets: Default::default(),
    };
    let mut view = Headless::new(gpu.clone(), &model, &vat, &config).expect("renderer");
    let settings = FrameSettings {
        time: 0.7,
        ..FrameSettings::default()
    };
    // Freeze the camera and the field size so only the count changes the picture.
    let first = view.render(&settings).expect("render 40");
    let crowd = &view.renderer.crowd();
    let (allocations, capacity) = (crowd.allocations, crowd.capacity());
    assert_eq!(allocations, 1);

    // Many small steps up: a handful of reallocations, not one per step.
    for count in (41..=3000).step_by(7) {
        view.renderer.set_count(count).expect("grow");
    }
    let grown = view.renderer.crowd().allocations - allocations;
    assert!(
        (1..=7).contains(&grown),
        "{grown} reallocations growing 40 → 3000 in 423 steps"
    );
    assert!(view.renderer.crowd().capacity() > capacity);
    let big = view.render(&settings).expect("render 3000");

    // Down again: no reallocation, and the same first 40 instances come back.
    let before = view.renderer.crowd().allocations;
    for count in (40..3000).rev().step_by(13) {
        view.renderer.set_count(count).expect("shrink");
    }
    view.renderer.set_count(40).expect("shrink to 40");
    assert_eq!(
        view.renderer.crowd().allocations,
        before,
        "shrinking must not reallocate"
    );
    let again = view.render(&settings).expect("render 40 again");
    let same = common::diff(&first, &again, 0);
    assert_eq!(
        same.failed, 0,
        "the same count and seed must draw the same crowd"
    );
    assert!(
        common::diff(&first, &big, 8).failed > 500,
        "3000 instances should look different from 40"
    );

    // Bad counts are refused, and the renderer keeps working.
    assert!(view.renderer.set_count(0).is_err());
    assert!(view.renderer.set_count(u32::MAX).is_err());
    assert_eq!(view.renderer.crowd().count(), 40);
    view.render(&settings).expect("render after refused counts");
}

/// Each model's instances are where the layout puts them after every
/// change of any model's count: the kept ones not rewritten, the moved and
/// new ones generated from their model's seed (checked against the rule
/// itself on the CPU).
#[test]
fn each_models_instances_follow_the_counts() {
    use stampede::crowd::{Instance, generate};
    use stampede::render::data::crowd_buffer::{CrowdBuffer, scene_seed};
    let Some(gpu) = common::gpu_or_skip("crowd_count") else {
        return;
    };
    let max = gpu.caps.max_storage_buffer_binding_size;
    let seed = 11;
    let mut crowd =
        CrowdBuffer::new(&gpu.device, &gpu.queue, seed, &[5, 7, 3], max).expect("crowd");
    let steps: [&[u32]; 7] = [
        &[5, 7, 3],
        &[5, 7, 40],
        &[5, 7, 2],
        &[5, 7, 30],
        &[9, 7, 30],
        &[9, 1, 30],
        &[2000, 1, 30],
    ];
    for counts in steps {
        crowd
            .set_counts(&gpu.device, &gpu.queue, counts)
            .expect("counts");
        let total: u32 = counts.iter().sum();
        assert_eq!(crowd.count(), total);
        assert_eq!(crowd.counts(), counts);
        let size = std::mem::size_of::<Instance>() as u64;
        let len = total as u64 * size;
        let staging = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("instances read back"),
            size: len,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(&crowd.buffer, 0, &staging, 0, len);
        gpu.queue.submit([encoder.finish()]);
        let bytes = gpu.read(&staging, len).expect("read back");
        let got: &[Instance] = bytemuck::cast_slice(&bytes);
        let want: Vec<Instance> = counts
            .iter()
            .enumerate()
            .flat_map(|(m, &n)| (0..n).map(move |i| generate(scene_seed(seed, m), i)))
            .collect();
        assert!(
            got == want.as_slice(),
            "counts {counts:?}: the buffer is not each model's instances in order"
        );
    }
    assert!(
        crowd
            .set_counts(&gpu.device, &gpu.queue, &[0, 0, 0])
            .is_err()
    );
}

/// A crowd holds up to 10,000,000 instances (as far as the device's
/// binding allows), but a flock at most 1,000,000 birds: more birds are
/// refused with the reason, before anything is drawn.
#[test]
fn a_flock_over_its_limit_is_refused() {
    let dir = std::env::temp_dir().join(format!("stampede-cli-flock-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("shot.png");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_stampede"))
        .args([
            "--headless",
            "--screenshot",
            png.to_str().unwrap(),
            "--size",
            "64x36",
            "--model",
            "bird:1000001",
        ])
        .env("RUST_LOG", "warn")
        .output()
        .expect("the stampede binary runs");
    let (ok, err) = (out.status.success(), String::from_utf8_lossy(&out.stderr));
    assert!(!ok, "a flock of 1,000,001 birds must fail");
    assert!(
        err.contains("1000001 birds are more than a flock holds: at most 1000000"),
        "{err}"
    );
    assert!(!png.exists(), "nothing drawn");
    std::fs::remove_dir_all(dir).ok();
}
