//! A scene's living crowd on the GPU: its ground models run as one mixed
//! herd (each model its ranks of the formation, its own gait clips at the
//! herd's pace) and its flyers as one flock. Every instance placed on the
//! CPU by the same rule (the herd's twin at its rank, the flock's boid at
//! its rank, read back) and culled by the CPU twin lands in the (model,
//! level) region the GPU put it in; a model without gait or flap clips
//! keeps its loops.

mod gpu_common;
mod mixed_common;
use gpu_common as common;
use mixed_common::*;
#[path = "common/mod.rs"]
mod shared;

use glam::Vec3;
use stampede::crowd::anim::BehaviourView;
use stampede::crowd::placement::Placement;
use stampede::crowd::scene::{JOINS_FLOCK, JOINS_HERD, JOINS_NOTHING};
use stampede::crowd::setup::{Loaded, ModelChoice, load};
use stampede::crowd::{BehaviourSettings, FrameSettings};
use stampede::render::data::models::plan;
use stampede::render::data::models::{CrowdModel, SceneModel};
use stampede::render::headless::Headless;
use stampede::vat::Precision;

fn bake(choice: ModelChoice) -> Loaded {
    load(&choice, 30.0, Precision::F16, None).expect("bakes")
}

/// Horses, deer and birds; `None` (said why) without the shared models.
fn herd_and_flock() -> Option<Vec<Loaded>> {
    let deer = shared::shared_model("QuaterniusDeer.gltf")?;
    Some(vec![
        bake(ModelChoice::Horse),
        bake(ModelChoice::File(deer)),
        bake(ModelChoice::Bird),
    ])
}

fn living_scene(
    gpu: std::sync::Arc<stampede::gpu::GpuContext>,
    loaded: &[Loaded],
    counts: &[u32],
) -> Headless {
    scene_living(gpu, loaded, counts, true, BehaviourSettings::on())
}

/// The flock's placement of a boid: the twin of behaviour.wgsl's.
fn boid_placement(b: &stampede::crowd::flock::Boid) -> Placement {
    let vel = Vec3::from(b.vel);
    let speed = vel.length();
    let forward = if speed > 1e-6 { vel / speed } else { Vec3::Z };
    let side = Vec3::Y.cross(forward);
    let side = if side.length() > 1e-4 {
        side / side.length()
    } else {
        Vec3::X
    };
    let level_up = forward.cross(side);
    Placement {
        origin: Vec3::from(b.pos),
        forward,
        up: level_up * b.bank.cos() + side * b.bank.sin(),
    }
}

/// Culls the scene's last frame on the CPU (every instance placed by the
/// herd's twin or its boid, read back) and checks the GPU's regions hold
/// the same counts; returns (culled, regions used).
fn cull_matches(
    view: &Headless,
    gpu: &stampede::gpu::GpuContext,
    loaded: &[Loaded],
    name: &str,
) -> (u32, usize) {
    let renderer = &view.renderer;
    let frame = renderer.last_frame.expect("a frame");
    assert_eq!(frame.behaviour, 1, "{name}: behaviour is on");
    let BehaviourView::Herd { herd, table } = renderer.behaviour().view() else {
        panic!("the scene has a herd");
    };
    let boids = renderer
        .behaviour()
        .flock_sim()
        .expect("the scene has a flock")
        .read_back(&gpu.device, &gpu.queue)
        .expect("the flock reads back");
    let (mut moved, mut total) = (0, 0);
    let (_, cpu, culled) = assert_cull_matches(view, gpu, name, |m, entry, local, inst, f| {
        let p = placement(
            entry.joins,
            entry.rank_base + local,
            herd,
            table,
            &boids,
            frame.ground_y,
        );
        // Not where its loop would have it.
        moved += (looped(loaded, m, entry, inst, f).origin.distance(p.origin) > 1e-3) as u32;
        total += 1;
        p
    });
    assert!(
        moved > total * 9 / 10,
        "{name}: {moved} of {total} moved off their loops"
    );
    (culled, cpu.iter().filter(|&&c| c > 0).count())
}

/// Where the instance of `rank` in what it `joins` stands: the herd's
/// twin or its boid.
fn placement(
    joins: u32,
    rank: u32,
    herd: &stampede::crowd::herd::Herd,
    table: &stampede::crowd::herd::HerdTable,
    boids: &[stampede::crowd::flock::Boid],
    ground_y: f32,
) -> Placement {
    match joins {
        JOINS_HERD => {
            let h = herd.instance_local(table, rank, table.time);
            Placement {
                origin: Vec3::new(h.position.x, ground_y, h.position.y),
                forward: Vec3::new(h.forward.x, 0.0, h.forward.y),
                up: Vec3::Y,
            }
        }
        _ => boid_placement(&boids[rank as usize]),
    }
}

#[test]
fn the_scene_herds_and_flocks_where_the_cpu_puts_them() {
    let Some(gpu) = common::gpu_or_skip("mixed_behaviour_gpu") else {
        return;
    };
    let Some(mut loaded) = herd_and_flock() else {
        return;
    };
    // The birds first: the herd's ranks then differ from the instances'.
    loaded.rotate_right(1);
    let counts = [60, 120, 40];
    let mut view = living_scene(gpu.clone(), &loaded, &counts);
    let settings = FrameSettings {
        time: 4.0,
        ..FrameSettings::default()
    };
    // The opening view frames the herd, the flock over it.
    view.camera = view.renderer.camera_at(settings.time, settings.playback);
    view.draw_frame(&settings).expect("draws");
    let scene = view.renderer.scene().clone();
    let joins: Vec<u32> = scene.table.iter().map(|e| e.joins).collect();
    assert_eq!(joins, [JOINS_FLOCK, JOINS_HERD, JOINS_HERD]);
    let ranks: Vec<u32> = scene.table.iter().map(|e| e.rank_base).collect();
    assert_eq!(ranks, [0, 0, 120], "the deer follow the horses in the herd");
    cull_matches(&view, &gpu, &loaded, "opening view");
    let regions = view.renderer.culler().regions().clone();
    let lists = view.renderer.culler().read_lists(&gpu).expect("read back");
    for m in 0..3 {
        // Its mesh levels and its impostors (the opening view is far).
        let drawn: u32 = (0..regions.levels[m])
            .map(|l| regions.first_region(m) + l)
            .chain([regions.impostor_region(m)])
            .map(|r| lists.args[r as usize * 5 + 1])
            .sum();
        assert!(drawn > 0, "model {m} is in the opening view");
    }
    // Close to a deer in the herd, then inside the flock (the same time:
    // the flock takes no step): near ones fine, far ones coarse, some
    // behind the camera culled.
    let (deer, bird) = {
        let BehaviourView::Herd { herd, table } = view.renderer.behaviour().view() else {
            panic!("a herd");
        };
        let boids = view
            .renderer
            .behaviour()
            .flock_sim()
            .expect("a flock")
            .read_back(&gpu.device, &gpu.queue)
            .expect("reads back");
        (
            placement(JOINS_HERD, 140, herd, table, &boids, 0.0).origin,
            placement(JOINS_FLOCK, 30, herd, table, &boids, 0.0).origin,
        )
    };
    for (name, target, distance) in [
        ("by a deer", deer, scene.table[2].model_size * 3.0),
        ("in the flock", bird, scene.table[0].model_size * 4.0),
    ] {
        view.camera = stampede::render::Camera {
            target,
            yaw: 2.3,
            pitch: 0.15,
            distance,
            ..stampede::render::Camera::default()
        };
        view.draw_frame(&settings).expect("draws");
        let (culled, used) = cull_matches(&view, &gpu, &loaded, name);
        assert!(
            culled > 0 && used >= 3,
            "{name} tests something: {culled} culled, {used} regions"
        );
    }
}

/// Which models join the herd or the flock, their ranks, and their gaits'
/// time rates: 1 for the herd's lead, the lead's ground speed over its own
/// for the others; a model with no gait clips keeps its loops.
#[test]
fn the_plan_puts_each_model_in_the_herd_the_flock_or_its_loops() {
    let Some(mut loaded) = herd_and_flock() else {
        return;
    };
    let Some(rigged) = shared::shared_model("RiggedSimple.glb") else {
        return;
    };
    loaded.push(bake(ModelChoice::File(rigged)));
    let models: Vec<SceneModel<'_>> = loaded
        .iter()
        .zip([50, 20, 30, 10])
        .map(|(loaded, count)| SceneModel { loaded, count })
        .collect();
    let models: Vec<CrowdModel> = models.iter().map(CrowdModel::of).collect();
    let joining = plan(&models);
    let joins: Vec<u32> = joining.iter().map(|j| j.joins).collect();
    assert_eq!(joins, [JOINS_HERD, JOINS_HERD, JOINS_FLOCK, JOINS_NOTHING]);
    let ranks: Vec<u32> = joining.iter().map(|j| j.rank_base).collect();
    assert_eq!(ranks, [0, 50, 0, 0]);
    assert_eq!(
        joining[0].gait_rates, [1.0; 4],
        "the lead plays at its own pace"
    );
    let gaits = |l: &Loaded| {
        stampede::crowd::anim::HerdClips::find(&l.vat.clips, &l.ground_speeds).expect("gaits")
    };
    let (horse, deer) = (gaits(&loaded[0]), gaits(&loaded[1]));
    let gallop = horse.speeds[1] / deer.speeds[1];
    assert!((joining[1].gait_rates[1] - gallop).abs() < 1e-6);
    assert_eq!(&joining[1].gait_clips[..3], &deer.clips[..]);
    let (flap, glide) = stampede::crowd::anim::bird_clips(&loaded[2].vat.clips).expect("wings");
    assert_eq!(&joining[2].gait_clips[..2], &[flap, glide]);
}
