//! Two-phase occlusion culling on the GPU: nothing visible is lost (the
//! picture with it equals the picture without but for depth ties (`TIES`),
//! and what is drawn plus what is occluded is what the frustum keeps, for
//! horses and birds,
//! behaviour on and off, at the opening view, inside the herd, looking up,
//! along an orbit and after a camera cut); phase 2's verdicts equal the
//! CPU twin's test against the read-back pyramid; the occluded count is
//! large in a dense herd and 0 looking down on a crowd (the pyramid itself:
//! tests/occlusion_pyramid_gpu.rs).

mod gpu_common;
use gpu_common as common;

use stampede::crowd::cull::{CullSettings, INDEX_MASK};
use stampede::crowd::motion::Aa;
use stampede::crowd::setup::{Loaded, ModelChoice, load};
use stampede::crowd::{BehaviourSettings, FrameSettings};
use stampede::render::headless::{self, Headless, RgbaImage};
use stampede::render::passes::cull::VisibleLists;
use stampede::render::passes::targets::TargetOptions;
use stampede::render::{Camera, RendererConfig};
use stampede::vat::Precision;
use std::collections::BTreeSet;

const SEED: u64 = 5;

fn loaded(choice: ModelChoice) -> Loaded {
    load(&choice, 30.0, Precision::F16, None).expect("the model bakes")
}

fn view(
    gpu: &std::sync::Arc<stampede::gpu::GpuContext>,
    loaded: &Loaded,
    count: u32,
    size: (u32, u32),
    behaviour: bool,
    occlusion: bool,
) -> Headless {
    view_aa(gpu, loaded, count, size, behaviour, occlusion, Aa::Msaa)
}

fn view_aa(
    gpu: &std::sync::Arc<stampede::gpu::GpuContext>,
    loaded: &Loaded,
    count: u32,
    (w, h): (u32, u32),
    behaviour: bool,
    occlusion: bool,
    aa: Aa,
) -> Headless {
    let mut config = RendererConfig::for_model(loaded, w, h, count, SEED, headless::FORMAT);
    config.clip = None;
    config.targets = TargetOptions {
        aa,
        velocity: false,
        ..Default::default()
    };
    if behaviour {
        config.behaviour = BehaviourSettings::on();
    }
    let mut view =
        Headless::new(gpu.clone(), &loaded.model, &loaded.vat, &config).expect("renderer");
    // Occlusion culling's phases against the CPU twin: the far field as
    // impostors, which phase 2 tests (splats never reach it).
    view.renderer.set_cull_settings(CullSettings {
        occlusion,
        splats: false,
        ..CullSettings::default()
    });
    view
}

fn settings(time: f64) -> FrameSettings {
    FrameSettings {
        time,
        ..FrameSettings::default()
    }
}

/// Pixels whose colour differs at all.
fn differing(a: &RgbaImage, b: &RgbaImage) -> usize {
    a.pixels
        .chunks(4)
        .zip(b.pixels.chunks(4))
        .filter(|(x, y)| x != y)
        .count()
}

/// The views of the picture test: (name, camera) from the opening one.
fn views(opening: Camera, model_size: f32) -> Vec<(String, Camera)> {
    let mut out = vec![("opening".to_string(), opening)];
    let mut inside = opening;
    inside.distance = model_size * 1.5;
    inside.pitch = 0.02;
    inside.target.y = model_size * 0.35;
    out.push(("inside the crowd".into(), inside));
    let mut up = opening;
    up.pitch = -0.25;
    up.target.y += model_size * 4.0;
    out.push(("looking up".into(), up));
    for k in 0..4 {
        let mut orbit = opening;
        orbit.yaw += 0.15 * k as f32;
        out.push((format!("orbit {k}"), orbit));
    }
    let mut cut = opening;
    cut.yaw += std::f32::consts::PI;
    cut.distance *= 0.6;
    out.push(("after a cut".into(), cut));
    out
}

/// The pixels a frame's, and a view's three frames', pictures with and
/// without occlusion may differ by: where two instances meet at exactly
/// the same depth, the one drawn last wins (LessEqual), and the order
/// within a visible list is the order its atomics gave, which differs
/// between runs and between the one pass without occlusion and the two
/// with it. Seen once in CI: one pixel of 20,736 in a frame that occluded
/// nothing. On an NVIDIA H200 (five runs, the ground then pushed back by a
/// depth bias rather than losing ties) one or two pixels in 3 to 8 of
/// the 168 frames, every one a frame that occluded nothing, up to 2 in a
/// view and 3 in a sequence. Anything occlusion loses shows as more: a
/// pixel lost in every frame is 3 a view, and with TAA (whose history
/// carries a tie into the view's next frames, so a view counts its worst
/// frame) 8 a sequence; and the drawn and occluded counts are checked
/// exactly.
const TIES: usize = 2;

/// The most a whole sequence (8 views) may differ by.
const SEQUENCE_TIES: usize = 4;

#[test]
fn occlusion_culling_draws_the_same_image() {
    let Some(gpu) = common::gpu_or_skip("occlusion") else {
        return;
    };
    // The horses once more without impostors (every horse is then a mesh,
    // tested by its box, not its sphere), and with TAA (the picture, and
    // the depth the pyramid holds, moved by its jitter).
    let runs = [
        (ModelChoice::Horse, true, Aa::Msaa),
        (ModelChoice::Bird, true, Aa::Msaa),
        (ModelChoice::Horse, false, Aa::Msaa),
        (ModelChoice::Horse, false, Aa::Taa),
    ];
    for (choice, impostors, aa) in runs {
        let loaded = loaded(choice.clone());
        for behaviour in [false, true] {
            let size = (192, 108);
            let mut on = view_aa(&gpu, &loaded, 3000, size, behaviour, true, aa);
            let mut off = view_aa(&gpu, &loaded, 3000, size, behaviour, false, aa);
            for v in [&mut on, &mut off] {
                v.renderer.set_cull_settings(CullSettings {
                    impostors,
                    ..v.renderer.cull_settings()
                });
            }
            let opening = on.renderer.camera_at(2.0, 1.0);
            let model_size = on.renderer.layout.model_size;
            let mut occluded_any = 0;
            let mut differ = 0;
            // One sequence: each view is drawn for three frames, the first
            // with the last view's history (the orbit's carries over; the
            // cut's does not fit), the next two with its own (the third
            // leaves out what the second found hidden).
            for (name, camera) in views(opening, model_size) {
                let mut view_differ = 0;
                for frame in 0..3 {
                    let s = settings(2.0 + frame as f64 * 0.05);
                    on.camera = camera;
                    off.camera = camera;
                    let with = on.render(&s).expect("render");
                    let without = off.render(&s).expect("render");
                    let stats = on.renderer.wait_for_cull_stats();
                    let all = off.renderer.wait_for_cull_stats().visible_total();
                    let culler = on.renderer.culler();
                    assert!(
                        culler.occlusion_active(),
                        "{name}: occlusion is on ({:?})",
                        culler.occlusion_unsupported()
                    );
                    occluded_any += stats.occluded;
                    let n = differing(&with, &without);
                    eprintln!(
                        "{choice:?} {aa:?} impostors {impostors} behaviour {behaviour} {name} frame \
                         {frame}: {} occluded, {} drawn, {n} pixels differ",
                        stats.occluded,
                        stats.visible_total()
                    );
                    assert_eq!(
                        stats.visible_total() + stats.occluded,
                        all,
                        "{choice:?} behaviour {behaviour}, {name}, frame {frame}: every instance \
                         in the frustum is drawn or occluded"
                    );
                    assert!(
                        n <= TIES,
                        "{choice:?} behaviour {behaviour}, {name}, frame {frame}: {n} pixels differ"
                    );
                    // With TAA a tie stays in the history for the view's
                    // next frames: the view counts its worst frame once.
                    view_differ = match aa {
                        Aa::Taa => view_differ.max(n),
                        _ => view_differ + n,
                    };
                }
                assert!(
                    view_differ <= TIES,
                    "{choice:?} behaviour {behaviour}, {name}: {view_differ} pixels differ over \
                     its frames"
                );
                differ += view_differ;
            }
            if choice == ModelChoice::Horse {
                assert!(occluded_any > 0, "the sequence should occlude something");
            }
            assert!(
                differ <= SEQUENCE_TIES,
                "{choice:?} behaviour {behaviour}: {differ} pixels differ over the sequence"
            );
        }
    }
}

/// A dense herd seen from inside it, low: most of the crowd stands behind
/// nearer horses.
fn herd_view(
    gpu: &std::sync::Arc<stampede::gpu::GpuContext>,
    loaded: &Loaded,
    count: u32,
    size: (u32, u32),
) -> Headless {
    let mut v = view(gpu, loaded, count, size, true, true);
    v.camera = common::inside_the_herd(&mut v.renderer);
    v
}

/// With the far field's impostors (most of this small picture's horses:
/// tested by their spheres) and without (every horse a mesh: tested by
/// its box).
#[test]
fn phase_two_agrees_with_the_cpu_test_against_the_read_back_pyramid() {
    let Some(gpu) = common::gpu_or_skip("occlusion") else {
        return;
    };
    let loaded = loaded(ModelChoice::Horse);
    for impostors in [true, false] {
        phase_two_agrees(&gpu, &loaded, impostors);
    }
}

fn phase_two_agrees(
    gpu: &std::sync::Arc<stampede::gpu::GpuContext>,
    loaded: &Loaded,
    impostors: bool,
) {
    let mut v = herd_view(gpu, loaded, 3000, (191, 107));
    v.renderer.set_cull_settings(CullSettings {
        impostors,
        ..v.renderer.cull_settings()
    });
    settle(&mut v, &settings(2.0));
    let r = &v.renderer;
    let culler = r.culler();
    let occlusion = culler.occlusion().expect("occlusion ran");
    let pyramid = occlusion
        .pyramid
        .read(&r.gpu)
        .expect("read back")
        .expect("a pyramid");
    assert_eq!(pyramid.sizes[0], (191, 107));
    let history = occlusion.read_history(&r.gpu).expect("read back");
    let early = culler.read_early_lists(&r.gpu).expect("read back");
    let late = culler.read_late_lists(&r.gpu).expect("read back");
    let (in_early, in_late) = (indices(&early), indices(&late));
    let uniform = culler.last_uniform().expect("culled");
    let occ = culler.last_occlusion_uniform().expect("phase 2 ran");
    let (mut survivors, mut occluded, mut agree, mut close) = (0, 0, 0, 0);
    let model = uniform.models[0];
    let half = glam::Vec3::from_slice(&model.half[..3]);
    let mut boxed = 0;
    for i in 0..uniform.count {
        let (c, radius, scale) = common::world_sphere(r, loaded, model.sphere, SEED, i);
        let Some(bits) = uniform.cull(c, radius, scale) else {
            assert_eq!(history[i as usize], 0, "{i} is culled, not visible");
            continue;
        };
        survivors += 1;
        // A mesh by its box, an impostor by its sphere.
        let rect = if model.region_of(bits) == model.impostor_region {
            occ.sphere_rect(c, radius)
        } else {
            boxed += 1;
            let (placement, _) = common::placed(r, loaded, SEED, i);
            occ.box_rect(c, placement.box_axes(half, scale))
        };
        let cpu = occ.occluded(&pyramid, rect);
        let gpu = history[i as usize] == 0;
        occluded += gpu as u32;
        // Drawn by phase 1 or phase 2, never both; drawn iff not occluded
        // or already drawn in phase 1.
        assert!(
            !(in_early.contains(&i) && in_late.contains(&i)),
            "{i} drawn twice"
        );
        assert_eq!(
            in_late.contains(&i),
            !gpu && !in_early.contains(&i),
            "{i}: phase 2 draws what it finds visible and phase 1 did not draw"
        );
        if cpu == gpu {
            agree += 1;
        } else {
            // Rounding at a texel edge or at the depth may decide.
            close += 1;
        }
    }
    eprintln!(
        "{survivors} survivors ({boxed} meshes), {occluded} occluded, {agree} agree, {close} differ; early {}, late {}",
        in_early.len(),
        in_late.len()
    );
    if impostors {
        assert!(
            boxed < survivors / 2,
            "mostly impostors: {boxed} meshes of {survivors}"
        );
    } else {
        assert_eq!(boxed, survivors, "no impostors");
    }
    assert!(
        occluded * 4 > survivors,
        "a dense herd hides many: {occluded} of {survivors}"
    );
    assert!(close * 200 <= survivors, "{close} of {survivors} disagree");
}

/// The instances in `lists`.
fn indices(lists: &VisibleLists) -> BTreeSet<u32> {
    lists
        .entries
        .iter()
        .flatten()
        .map(|e| e & INDEX_MASK)
        .collect()
}

/// The instances the camera drew in the last frame (both phases).
fn drawn(v: &Headless) -> BTreeSet<u32> {
    indices(
        &v.renderer
            .culler()
            .read_lists(&v.renderer.gpu)
            .expect("read back"),
    )
}

/// Three frames at `s`, then what the last drew: the first draws
/// everything (no history), the second draws what the first saw and learns
/// what is hidden, the third leaves that out.
fn settle(v: &mut Headless, s: &FrameSettings) -> stampede::render::CullStats {
    for _ in 0..3 {
        v.render(s).expect("render");
    }
    v.renderer.wait_for_cull_stats()
}

#[test]
fn the_occluded_count_is_large_in_the_herd_and_zero_looking_down() {
    let Some(gpu) = common::gpu_or_skip("occlusion") else {
        return;
    };
    let loaded = loaded(ModelChoice::Horse);
    let s = settings(2.0);
    let mut v = herd_view(&gpu, &loaded, 3000, (192, 108));
    let herd = settle(&mut v, &s);
    eprintln!(
        "herd: {} occluded, {} drawn",
        herd.occluded,
        herd.visible_total()
    );
    assert!(
        herd.occluded * 4 > herd.visible_total(),
        "the dense herd hides many: {} occluded, {} drawn",
        herd.occluded,
        herd.visible_total()
    );
    // From straight above nothing stands in front of anything.
    let mut down = v.renderer.camera_at(2.0, 1.0);
    down.pitch = 1.5;
    down.distance = v.renderer.layout.model_size * 40.0;
    v.camera = down;
    let above = settle(&mut v, &s);
    eprintln!(
        "above: {} occluded, {} drawn",
        above.occluded,
        above.visible_total()
    );
    assert!(above.visible_total() > 100, "a crowd below");
    assert_eq!(above.occluded, 0, "nothing hides anything seen from above");
}

#[test]
fn freezing_culling_freezes_what_occlusion_drew() {
    let Some(gpu) = common::gpu_or_skip("occlusion") else {
        return;
    };
    let loaded = loaded(ModelChoice::Horse);
    let s = settings(2.0);
    let mut v = herd_view(&gpu, &loaded, 3000, (192, 108));
    let occluded = settle(&mut v, &s).occluded;
    let before = drawn(&v);
    assert!(occluded > 0);
    let mut frozen = v.renderer.cull_settings();
    frozen.freeze = true;
    v.renderer.set_cull_settings(frozen);
    v.render(&s).expect("render");
    // Turned away and back out: the frozen set is drawn, occluded ones
    // included in neither phase.
    v.camera.yaw += 1.0;
    v.camera.distance *= 3.0;
    v.render(&s).expect("render");
    v.render(&s).expect("render");
    assert_eq!(drawn(&v), before, "frozen: the same instances");
    frozen.freeze = false;
    v.renderer.set_cull_settings(frozen);
    v.render(&s).expect("render");
    assert_ne!(drawn(&v), before, "thawed: the new view's");
}

/// The rectangles are projected by the matrix the early pass drew the
/// pyramid's depth with: with TAA that is the jittered one, a different
/// sub-pixel offset every frame (the unjittered camera would put them up
/// to half a pixel off the pixels they are tested against).
#[test]
fn the_rectangles_use_the_jittered_projection_the_depth_was_drawn_with() {
    let Some(gpu) = common::gpu_or_skip("occlusion") else {
        return;
    };
    let loaded = loaded(ModelChoice::Horse);
    let mut v = view_aa(&gpu, &loaded, 200, (96, 54), false, true, Aa::Taa);
    let mut offsets = Vec::new();
    for frame in 0..3 {
        v.render(&settings(2.0 + frame as f64 * 0.05))
            .expect("render");
        let occ = v
            .renderer
            .culler()
            .last_occlusion_uniform()
            .expect("phase 2 ran");
        let drawn =
            glam::Mat4::from_cols_array_2d(&v.renderer.last_frame.expect("drawn").view_proj);
        // Spheres are projected by `proj` after `view`, boxes by
        // `view_proj`: both must be the drawn matrix.
        let spheres =
            glam::Mat4::from_cols_array_2d(&occ.proj) * glam::Mat4::from_cols_array_2d(&occ.view);
        let boxes = glam::Mat4::from_cols_array_2d(&occ.view_proj);
        let scale = drawn
            .abs()
            .to_cols_array()
            .iter()
            .fold(1.0, |a: f32, b| a.max(*b));
        for tested in [spheres, boxes] {
            assert!(
                drawn.abs_diff_eq(tested, 1e-5 * scale),
                "frame {frame}: drawn with {drawn}, tested with {tested}"
            );
        }
        offsets.push(drawn.col(2).x);
    }
    offsets.dedup();
    assert!(offsets.len() > 1, "the jitter moves: {offsets:?}");
}
