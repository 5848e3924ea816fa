//! Compute skinning on the GPU (lavapipe in CI): the skin pass's vertices
//! against CPU skinning of the same instances and times, exactly the
//! instances and levels the views draw (a caster only a cascade sees
//! included), its pictures against live skinning's with shadows on, the
//! instance cap, and the buffers a technique switch leaves.

mod gpu_common;
mod shadow_common;
use gpu_common as common;

use glam::{Mat4, Vec3};
use stampede::crowd::cull::CullSettings;
use stampede::crowd::setup::{Loaded, ModelChoice, load};
use stampede::crowd::shadow::ShadowSettings;
use stampede::crowd::{self, FrameSettings, instance_clip_time, pose_time};
use stampede::render::headless::{self, Headless};
use stampede::render::passes::techniques::compute_skinning::SKINNED_VERTEX_BYTES;
use stampede::render::{Camera, RendererConfig, TechniqueKind};
use stampede::skin;
use stampede::vat::Precision;
use std::collections::{BTreeMap, BTreeSet};

const SEED: u64 = 3;

fn setup(choice: ModelChoice, count: u32, size: (u32, u32)) -> Option<(Headless, Loaded)> {
    let gpu = common::gpu_or_skip("compute_skinning_gpu")?;
    let prepared = load(&choice, 30.0, Precision::F16, None).expect("the model bakes");
    let mut config =
        RendererConfig::for_model(&prepared, size.0, size.1, count, SEED, headless::FORMAT);
    config.clip = None;
    let view = Headless::new(gpu, &prepared.model, &prepared.vat, &config).expect("renderer");
    Some((view, prepared))
}

/// A time between baked frames, every instance its own clip.
fn settings() -> FrameSettings {
    FrameSettings {
        time: 1.0 + 0.43 / 30.0,
        ..FrameSettings::default()
    }
}

/// Every view's visible list of the last frame: per view, per level, the
/// instances (their entries' instance bits).
fn lists(view: &Headless) -> Vec<Vec<Vec<u32>>> {
    let r = &view.renderer;
    let gpu = r.gpu.clone();
    let mask = stampede::crowd::cull::INDEX_MASK;
    let of = |l: stampede::render::passes::cull::VisibleLists| {
        l.entries
            .into_iter()
            .map(|e| e.into_iter().map(|x| x & mask).collect())
            .collect()
    };
    let mut out = vec![of(r.culler().read_lists(&gpu).expect("camera list"))];
    for t in r.shadows().cascade_targets() {
        out.push(of(t.read_lists(&gpu).expect("cascade list")));
    }
    out
}

/// 60 horses seen through a narrow view, shadows on, culling and LOD on:
/// the skin pass skins exactly the instances some view draws (the
/// camera's list and the three cascades', read back), each once, and each
/// at the vertices of the levels it is drawn at: those vertices equal CPU
/// skinning (`skin::skin`) of the instance at its clip time within f32
/// rounding (normals within the 16-bit octahedral step), and the pass
/// worked through each drawn level of each instance once. Among them are
/// instances only a cascade draws (casters outside the camera's view) and
/// instances drawn only at a coarse level.
#[test]
fn skinned_vertices_are_cpu_skinning_of_what_the_views_draw() {
    let Some((mut view, prepared)) = setup(ModelChoice::Horse, 60, (256, 192)) else {
        return;
    };
    // A coarse pixel budget, so that some horses are drawn at coarse
    // levels; no impostors (an impostor needs no skinning: in the scene and
    // in the shadows it reads the atlas).
    view.renderer.set_cull_settings(CullSettings {
        lod_error_px: 6.0,
        impostors: false,
        ..CullSettings::default()
    });
    view.renderer
        .set_technique(TechniqueKind::ComputeSkinning)
        .expect("technique builds");
    let s = settings();
    // A narrow view turned from the opening one until a horse just outside
    // it casts into it (the casters' sweep ends under the ground, so only
    // a neighbour of the view's edge on the sun's side does): the first of
    // these turns that has one.
    let opening = view.camera;
    let mut views = Vec::new();
    let mut stats = None;
    for turn in [0.4f32, 0.7, 1.0, 1.3, 1.6, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0] {
        view.camera = stampede::render::Camera {
            fov_y: 25f32.to_radians(),
            yaw: opening.yaw + turn,
            ..opening
        };
        view.render(&s).expect("render");
        stats = Some(
            view.renderer
                .wait_for_pass_stats()
                .expect("the skin pass reports"),
        );
        views = lists(&view);
        let camera: BTreeSet<u32> = views[0].iter().flatten().copied().collect();
        if views[1..]
            .iter()
            .flatten()
            .flatten()
            .any(|i| !camera.contains(i))
        {
            eprintln!("turned {turn} rad from the opening view");
            break;
        }
    }
    let stats = stats.expect("a frame");
    // Each drawn instance and the levels it is drawn at, over every view.
    let mut drawn: BTreeMap<u32, BTreeSet<usize>> = BTreeMap::new();
    for v in &views {
        for (level, entries) in v.iter().enumerate() {
            for &i in entries {
                drawn.entry(i).or_default().insert(level);
            }
        }
    }
    let camera: BTreeSet<u32> = views[0].iter().flatten().copied().collect();
    let listed: usize = views.iter().flatten().map(Vec::len).sum();
    let cascade_only = drawn.keys().filter(|i| !camera.contains(i)).count();
    let coarse_only = drawn.values().filter(|l| !l.contains(&0)).count();
    eprintln!(
        "{} instances drawn ({listed} list entries over {} views, {} by the camera, {cascade_only} by a cascade only, {coarse_only} at coarse levels only); skin pass: {stats:?}",
        drawn.len(),
        views.len(),
        camera.len()
    );
    assert_eq!(views.len(), 4, "the camera and three cascades");
    assert!(drawn.len() < 60, "some instances should be culled");
    assert!(listed > drawn.len(), "some instances are in several lists");
    assert!(
        cascade_only > 0,
        "some casters are outside the camera's view"
    );
    assert!(
        coarse_only > 0,
        "some instances are drawn at coarse levels only"
    );
    assert_eq!(
        stats.instances as usize,
        drawn.len(),
        "the skin pass should skin each drawn instance once, and no other"
    );

    // Each level's vertices; the pass works through each drawn level of
    // each instance once (vertex invocations), and skins every vertex of
    // those levels.
    let chain = view.renderer.lod(0).clone();
    let level_vertices: Vec<BTreeSet<u32>> = (0..chain.levels.len())
        .map(|l| chain.level_indices(l).iter().copied().collect())
        .collect();
    let invocations: u64 = drawn
        .values()
        .flatten()
        .map(|&l| level_vertices[l].len() as u64)
        .sum();
    assert_eq!(
        stats.vertices, invocations,
        "the pass should work through each instance's drawn levels once"
    );
    let (model, vat) = (&prepared.model, &prepared.vat);
    let frame = view.renderer.last_frame.expect("a frame was drawn");
    let mut queries = Vec::new();
    let mut expected = Vec::new();
    for (&i, levels) in &drawn {
        let inst = crowd::generate(SEED, i);
        let (c, t) = instance_clip_time(&inst, &frame, &vat.clips);
        let pose = model.sample_pose(vat.clips[c].source, pose_time(&vat.clips[c], t));
        let (p, n) = skin::skin(model, &pose);
        let vertices: BTreeSet<u32> = levels
            .iter()
            .flat_map(|&l| level_vertices[l].iter().copied())
            .collect();
        for v in vertices {
            queries.push([v, i, 0, 0]);
            expected.push((p[v as usize], n[v as usize]));
        }
    }
    let got = common::read_compute_skinned(&view.renderer, &queries);
    let size = vat.report.diagonal;
    let (mut worst_p, mut worst_n) = (0.0f32, 0.0f32);
    for (k, ((gp, gn), (ep, en))) in got.iter().zip(&expected).enumerate() {
        let [v, i, ..] = queries[k];
        let (dp, dn) = (gp.distance(*ep), gn.distance(en.normalize_or_zero()));
        worst_p = worst_p.max(dp);
        worst_n = worst_n.max(dn);
        assert!(
            dp <= 1e-6 * size,
            "vertex {v} of instance {i}: GPU {gp} vs CPU {ep} ({dp:.2e} > f32 rounding)"
        );
        assert!(
            dn <= 1e-4,
            "vertex {v} of instance {i}: normal {gn} vs {en} ({dn:.2e})"
        );
    }
    eprintln!(
        "{} skinned vertices compared: worst position error {worst_p:.2e} (size {size:.3}), normal {worst_n:.2e}",
        queries.len()
    );

    // Drawn one level at a time (no multi-draw): the same lists, the same
    // instances skinned.
    view.renderer.culler_mut().multi_draw = false;
    view.renderer.culler_mut().reset_lists();
    view.render(&s).expect("render");
    let again = view.renderer.wait_for_pass_stats().expect("stats");
    assert_eq!(again.instances, stats.instances, "per-level draws");
    assert_eq!(again.vertices, stats.vertices, "per-level draws");
}

/// Compute skinning from the bone texture does no CPU work per instance:
/// what it writes to the GPU per frame does not grow with the crowd, while
/// compute skinning from the CPU's palettes uploads each instance's.
#[test]
fn bone_palettes_upload_nothing_per_instance() {
    let Some((mut view, prepared)) = setup(ModelChoice::Horse, 8, (64, 64)) else {
        return;
    };
    let s = settings();
    let mut upload = |kind, count| {
        view.renderer.set_technique(kind).expect("technique builds");
        view.renderer.set_count(count).expect("count");
        view.render(&s).expect("render");
        view.renderer.costs().upload_bytes
    };
    let bones = [8, 32].map(|n| upload(TechniqueKind::ComputeBoneTexture, n));
    let palettes = [8, 32].map(|n| upload(TechniqueKind::ComputeSkinning, n));
    let joints = prepared.model.palette.len() as u64;
    eprintln!("uploads at 8 and 32 horses: bone texture {bones:?}, CPU palettes {palettes:?}");
    assert_eq!(bones[0], bones[1], "flat with the bone texture");
    assert_eq!(
        palettes[1] - palettes[0],
        24 * joints * 48,
        "a palette per horse"
    );
}

/// The same crowd at the same instant drawn by compute skinning and by
/// live skinning, and by compute skinning from the bone texture and by the
/// bone texture, shadows on: the same pictures within the technique tests'
/// limit (the normals' 16-bit octahedral step may move a few shaded
/// pixels); the static pose exceeds it.
#[test]
fn the_picture_is_live_skinnings_with_shadows() {
    let Some((mut view, _prepared)) = setup(ModelChoice::Horse, 24, (320, 192)) else {
        return;
    };
    view.renderer.set_shadow_settings(ShadowSettings {
        enabled: true,
        ..ShadowSettings::default()
    });
    let s = settings();
    let mut render = |kind| {
        view.renderer.set_technique(kind).expect("technique builds");
        view.render(&s).expect("render")
    };
    let live = render(TechniqueKind::Skinning);
    let computed = render(TechniqueKind::ComputeSkinning);
    let bones = render(TechniqueKind::BoneTexture);
    let computed_bones = render(TechniqueKind::ComputeBoneTexture);
    let still = render(TechniqueKind::Static);
    common::assert_images_agree(
        "with shadows, live skinning as the reference: ",
        &live,
        &[("compute skinning", &computed)],
        &still,
    );
    common::assert_images_agree(
        "with shadows, the bone texture as the reference: ",
        &bones,
        &[("compute skinning from the bone texture", &computed_bones)],
        &still,
    );
}

/// A bird flying high above the camera's view casts a shadow into it: only
/// a cascade draws it, the skin pass skins it anyway, and its shadow in the
/// picture is the CPU's projection of its pose (and live skinning's).
#[test]
fn a_caster_only_a_cascade_sees_is_skinned_and_shadows() {
    use shadow_common::*;
    let Some((mut view, prepared)) = view_of(ModelChoice::Bird, 1) else {
        return;
    };
    let s = still(0.77);
    view.render(&s).expect("render");
    let frame = view.renderer.last_frame.expect("a frame was drawn");
    let bird = world_triangles(&prepared, &frame);
    // Looking down on the shadow only, from the side away from the sun.
    let sun = crowd::sun_direction();
    let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for p in bird.iter().flatten() {
        let q = onto_ground(*p, sun, frame.ground_y);
        lo = lo.min(q);
        hi = hi.max(q);
    }
    view.camera = Camera {
        target: (lo + hi) * 0.5,
        yaw: 2.4,
        pitch: 1.3,
        distance: (hi - lo).length() * 1.5,
        fov_y: 45f32.to_radians(),
    };
    view.renderer
        .set_technique(TechniqueKind::Skinning)
        .expect("technique builds");
    let live = with_shadows(&mut view, true, &s);
    view.renderer
        .set_technique(TechniqueKind::ComputeSkinning)
        .expect("technique builds");
    let off = with_shadows(&mut view, false, &s);
    let on = with_shadows(&mut view, true, &s);
    let stats = view
        .renderer
        .wait_for_pass_stats()
        .expect("skin pass stats");
    let views = lists(&view);
    let in_camera = views[0].iter().map(Vec::len).sum::<usize>();
    let in_cascades = views[1..].iter().flatten().map(Vec::len).sum::<usize>();
    let frame = view.renderer.last_frame.expect("a frame was drawn");
    let vp = Mat4::from_cols_array_2d(&frame.view_proj);
    let dark: Mask = darkening(&on, &off).iter().map(|&d| d >= 30).collect();
    let shadow = shadow_of(&bird, &frame);
    let fit = iou(&dark, &shadow);
    let visible_bird = count(&rasterize(&bird, vp));
    let d = common::diff(&live, &on, 24);
    eprintln!(
        "bird in the camera's list {in_camera}, in the cascades' {in_cascades}; skinned {}; shadow {} px, IoU with the CPU's {fit:.3}; vs live skinning: mean {:.4}, {} px off",
        stats.instances,
        count(&dark),
        d.mean,
        d.failed
    );
    assert_eq!(visible_bird, 0, "the bird itself should be out of view");
    assert_eq!(in_camera, 0, "the camera should not draw the bird");
    assert!(in_cascades > 0, "a cascade should draw the bird");
    assert_eq!(stats.instances, 1, "the bird should be skinned");
    assert!(
        count(&shadow) > 300,
        "the shadow should fill some of the view"
    );
    assert!(fit > 0.85, "the shadow should be the bird's ({fit:.3})");
    let budget = (on.width * on.height) as usize * 3 / 1000;
    assert!(
        d.mean <= 0.5 && d.failed <= budget,
        "the picture should be live skinning's (mean {:.3}, {} px)",
        d.mean,
        d.failed
    );
}

/// More horses than one storage binding holds skinned: the crowd is capped
/// at the cap (reported, as the panel's cap line shows it), the skinned
/// vertices stay within one binding and nothing raises a validation error.
/// A narrow view keeps the frame cheap: only what it draws is skinned.
#[test]
fn a_count_over_the_cap_is_capped_without_validation_errors() {
    let Some((mut view, prepared)) = setup(ModelChoice::Horse, 16, (64, 64)) else {
        return;
    };
    view.renderer
        .set_technique(TechniqueKind::ComputeSkinning)
        .expect("technique builds");
    let cap = view
        .renderer
        .costs()
        .cap
        .expect("compute skinning has a cap");
    let max_binding = view.renderer.gpu.caps.max_storage_buffer_binding_size;
    let vertices = prepared.model.vertex_count() as u64;
    assert!(cap as u64 * vertices * SKINNED_VERTEX_BYTES <= max_binding);
    assert!((cap as u64 + 1) * vertices * SKINNED_VERTEX_BYTES > max_binding);
    view.renderer.set_count(cap + 50).expect("count");
    view.camera.fov_y = 2f32.to_radians();
    let device = view.renderer.gpu.device.clone();
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    view.render(&settings()).expect("render");
    let error = pollster::block_on(scope.pop());
    assert!(error.is_none(), "validation error over the cap: {error:?}");
    let costs = view.renderer.costs();
    let stats = view
        .renderer
        .wait_for_pass_stats()
        .expect("skin pass stats");
    eprintln!(
        "cap {cap} of {} requested: drew {}, skinned {}, memory {} MiB",
        costs.requested,
        costs.drawn,
        stats.instances,
        costs.gpu_memory_bytes >> 20
    );
    assert_eq!(costs.requested, cap + 50);
    assert_eq!(costs.drawn, cap);
    assert!(costs.capped(), "the panel's cap line shows when capped");
    assert!(stats.instances <= cap);
}

/// Names of the GPU allocations (buffers and textures, by label) this
/// device holds now, when the backend reports them.
fn allocations(view: &Headless) -> Option<Vec<String>> {
    let device = &view.renderer.gpu.device;
    let _ = device.poll(wgpu::PollType::wait_indefinitely());
    let report = device.generate_allocator_report()?;
    Some(report.allocations.into_iter().map(|a| a.name).collect())
}

/// Switching to compute skinning and away leaves only the active
/// technique's buffers: after VAT, none of compute skinning's is allocated
/// (nor live skinning's palettes), and after compute skinning none of
/// VAT's textures.
#[test]
fn switching_leaves_only_the_active_techniques_buffers() {
    let Some((mut view, _prepared)) = setup(ModelChoice::Horse, 32, (128, 64)) else {
        return;
    };
    let s = settings();
    let render = |view: &mut Headless, kind| {
        view.renderer.set_technique(kind).expect("technique builds");
        view.render(&s).expect("render");
        allocations(view)
    };
    let Some(first) = render(&mut view, TechniqueKind::Vat) else {
        eprintln!("SKIPPED: this backend reports no allocations");
        return;
    };
    let ours = |names: &[String]| {
        names
            .iter()
            .filter(|n| n.starts_with("compute skinn"))
            .count()
    };
    let vat = |names: &[String]| names.iter().filter(|n| n.starts_with("vat ")).count();
    assert_eq!(ours(&first), 0);
    assert!(vat(&first) > 0, "VAT's textures: {first:?}");
    for round in 0..2 {
        let on = render(&mut view, TechniqueKind::ComputeSkinning).expect("report");
        let off = render(&mut view, TechniqueKind::Vat).expect("report");
        eprintln!(
            "round {round}: compute skinning {} of its own allocations, VAT's {}; back on VAT: {} and {}",
            ours(&on),
            vat(&on),
            ours(&off),
            vat(&off)
        );
        assert!(ours(&on) >= 5, "compute skinning's buffers: {on:?}");
        assert_eq!(vat(&on), 0, "VAT's textures stayed: {on:?}");
        assert_eq!(ours(&off), 0, "compute skinning's buffers stayed: {off:?}");
        assert!(!off.iter().any(|n| n.contains("palettes")), "{off:?}");
    }
}
