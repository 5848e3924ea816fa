//! The exact visibility count (`Renderer::exact_visibility`): every
//! instance the frame drew, drawn alone against the frame's depth and
//! against nothing. Checked against occlusion culling, whose verdicts the
//! CPU twin checks (tests/occlusion_gpu.rs): every instance phase 2 hides
//! is, drawn alone against the final depth, wholly behind it, and the
//! instances that show are the same with occlusion culling on and off (the
//! same picture); seen from straight above hardly anything hides
//! anything; an
//! instance that shows covers a sample.

mod gpu_common;
use gpu_common as common;

use stampede::crowd::cull::CullSettings;
use stampede::crowd::motion::Aa;
use stampede::crowd::setup::{Loaded, ModelChoice, load};
use stampede::crowd::{BehaviourSettings, FrameSettings};
use stampede::render::headless::{self, Headless};
use stampede::render::passes::targets::TargetOptions;
use stampede::render::probes::exact_visibility::ExactVisibility;
use stampede::render::{RenderError, RendererConfig};
use stampede::vat::Precision;
use std::collections::BTreeSet;

const SEED: u64 = 5;
const COUNT: u32 = 3000;
const SIZE: (u32, u32) = (192, 108);

fn view(loaded: &Loaded, occlusion: bool, impostors: bool, keep_depth: bool) -> Option<Headless> {
    let gpu = common::gpu_or_skip("exact visibility")?;
    let mut config =
        RendererConfig::for_model(loaded, SIZE.0, SIZE.1, COUNT, SEED, headless::FORMAT);
    config.clip = None;
    config.targets = TargetOptions {
        aa: Aa::Msaa,
        keep_depth,
        ..Default::default()
    };
    config.behaviour = BehaviourSettings::on();
    let mut v = Headless::new(gpu, &loaded.model, &loaded.vat, &config).expect("renderer");
    // The probe draws what the lists hold; splats are in none (at this
    // size most of the herd would be), so they are off.
    v.renderer.set_cull_settings(CullSettings {
        occlusion,
        impostors,
        splats: false,
        ..CullSettings::default()
    });
    v.camera = common::inside_the_herd(&mut v.renderer);
    Some(v)
}

/// Three frames (occlusion culling's history settles), then which of the
/// last frame's instances show.
fn settle(v: &mut Headless) -> ExactVisibility {
    let s = FrameSettings {
        time: 2.0,
        ..FrameSettings::default()
    };
    for _ in 0..3 {
        v.render(&s).expect("render");
    }
    v.exact_visibility().expect("the exact visibility count")
}

fn showing(e: &ExactVisibility) -> BTreeSet<u32> {
    e.entries
        .iter()
        .filter(|e| e.shows)
        .map(|e| e.instance)
        .collect()
}

#[test]
fn what_occlusion_culling_hides_shows_nowhere_and_the_rest_is_the_same() {
    let loaded = load(&ModelChoice::Horse, 30.0, Precision::F16, None).expect("bake");
    // With impostors (the far horses: tested by their spheres) and without
    // (every horse a mesh, tested by its box).
    for impostors in [true, false] {
        let Some(mut off) = view(&loaded, false, impostors, true) else {
            return;
        };
        let mut on = view(&loaded, true, impostors, true).expect("renderer");
        let all = settle(&mut off);
        let culled = settle(&mut on);
        let stats = on.renderer.wait_for_cull_stats();
        eprintln!(
            "impostors {impostors}: {} drawn, {} show, {} hidden behind others, {} cover no sample; occlusion culling hid {}",
            all.drawn(),
            all.visible(),
            all.occluded(),
            all.covering_none(),
            stats.occluded
        );
        assert_eq!(
            all.drawn(),
            off.renderer.wait_for_cull_stats().visible_total(),
            "every drawn instance is probed"
        );
        assert!(
            all.entries.iter().all(|e| e.covers || !e.shows),
            "what shows covers a sample"
        );
        assert!(
            all.occluded() * 4 > all.drawn(),
            "inside the herd many are hidden: {} of {}",
            all.occluded(),
            all.drawn()
        );
        assert!(all.visible() > 20, "and many show: {}", all.visible());
        // Counting leaves the frame's depth as it was: the same count again.
        assert_eq!(off.exact_visibility().expect("again"), all, "counted twice");
        // What occlusion culling hid, drawn alone against the final depth,
        // is wholly behind it: everything that shows was drawn.
        let drawn: BTreeSet<u32> = culled.entries.iter().map(|e| e.instance).collect();
        let lost: Vec<u32> = showing(&all).difference(&drawn).copied().collect();
        assert!(
            lost.is_empty(),
            "occlusion culling hid instances that show: {lost:?}"
        );
        assert!(stats.occluded > 0, "occlusion culling hid some");
        // The picture is the same, so the same instances show.
        assert_eq!(showing(&culled), showing(&all), "the same instances show");
    }
}

#[test]
fn seen_from_straight_above_hardly_anything_hides_anything() {
    let loaded = load(&ModelChoice::Horse, 30.0, Precision::F16, None).expect("bake");
    let Some(mut v) = view(&loaded, false, true, true) else {
        return;
    };
    let mut down = v.renderer.camera_at(2.0, 1.0);
    down.pitch = 1.5;
    down.distance = v.renderer.layout.model_size * 40.0;
    v.camera = down;
    let e = settle(&mut v);
    eprintln!(
        "above: {} drawn, {} show, {} cover no sample",
        e.drawn(),
        e.visible(),
        e.covering_none()
    );
    assert!(e.drawn() > 100, "a crowd below");
    // The herd walks close: here and there a head reaches over a
    // neighbour (seen: 1 of 693).
    assert!(
        e.occluded() * 100 <= e.drawn(),
        "hardly anything hides anything seen from above: {} of {}",
        e.occluded(),
        e.drawn()
    );
    assert!(e.visible() * 10 > e.drawn() * 9, "nearly all show");
}

/// More instances than one query set holds (4,096): the entries past the
/// first set's are counted too, as often shown as the first's.
#[test]
fn the_entries_past_one_query_set_are_counted() {
    let loaded = load(&ModelChoice::Horse, 30.0, Precision::F16, None).expect("bake");
    let Some(gpu) = common::gpu_or_skip("exact visibility") else {
        return;
    };
    let mut config = RendererConfig::for_model(&loaded, 384, 216, 12_000, SEED, headless::FORMAT);
    config.clip = None;
    // The probe counts what the lists hold: no splats (see `view`).
    config.cull.splats = false;
    config.targets = TargetOptions {
        aa: Aa::Msaa,
        keep_depth: true,
        ..Default::default()
    };
    let mut v = Headless::new(gpu, &loaded.model, &loaded.vat, &config).expect("renderer");
    let mut down = v.renderer.camera_at(2.0, 1.0);
    down.pitch = 1.5;
    down.distance = v.renderer.layout.model_size * 120.0;
    v.camera = down;
    let e = settle(&mut v);
    let share = |part: &[stampede::render::probes::exact_visibility::Shown]| {
        part.iter().filter(|s| s.shows).count() as f32 / part.len().max(1) as f32
    };
    let (first, rest) = e.entries.split_at(e.entries.len().min(4096));
    eprintln!(
        "{} drawn, {} show, {} cover none: {:.2} of the first 4,096, {:.2} of the rest",
        e.drawn(),
        e.visible(),
        e.covering_none(),
        share(first),
        share(rest)
    );
    assert!(rest.len() >= 100, "past one query set: {}", e.drawn());
    assert!(share(first) > 0.5 && share(rest) > share(first) * 0.8);
}

#[test]
fn without_the_depth_kept_or_msaa_it_says_so() {
    let loaded = load(&ModelChoice::Horse, 30.0, Precision::F16, None).expect("bake");
    let Some(mut v) = view(&loaded, false, true, false) else {
        return;
    };
    v.render(&FrameSettings::default()).expect("render");
    let err = v.exact_visibility().expect_err("no depth kept");
    assert!(matches!(err, RenderError::ExactVisibility(_)), "{err}");
    assert!(err.to_string().contains("keep_depth"), "{err}");
    v.renderer
        .set_target_options(TargetOptions {
            aa: Aa::Taa,
            keep_depth: true,
            ..Default::default()
        })
        .expect("TAA");
    v.render(&FrameSettings::default()).expect("render");
    let err = v.exact_visibility().expect_err("one sample a pixel");
    assert!(err.to_string().contains("--aa msaa"), "{err}");
}
