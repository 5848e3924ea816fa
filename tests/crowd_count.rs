//! The instance count changes at run time, up and down, without errors and
//! without reallocating on every change; the crowd stays the same crowd.

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
    let crowd = &view.renderer.crowd;
    let (allocations, capacity) = (crowd.allocations, crowd.capacity());
    assert_eq!(allocations, 1);

    // Many small steps up: a handful of reallocations, not one per step.
    for count in (41..=3000).step_by(7) {
        view.renderer.set_count(count).expect("grow");
    }
    let grown = view.renderer.crowd.allocations - allocations;
    assert!(
        (1..=7).contains(&grown),
        "{grown} reallocations growing 40 → 3000 in 423 steps"
    );
    assert!(view.renderer.crowd.capacity() > capacity);
    let big = view.render(&settings).expect("render 3000");

    // Down again: no reallocation, and the same first 40 instances come back.
    let before = view.renderer.crowd.allocations;
    for count in (40..3000).rev().step_by(13) {
        view.renderer.set_count(count).expect("shrink");
    }
    view.renderer.set_count(40).expect("shrink to 40");
    assert_eq!(
        view.renderer.crowd.allocations, before,
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
    assert_eq!(view.renderer.crowd.count(), 40);
    view.render(&settings).expect("render after refused counts");
}
