//! The flock simulated on the GPU, read back and checked on the CPU.

mod gpu_common;

use glam::Vec3;
use stampede::Aabb;
use stampede::crowd::flock::{Boid, FlockParams};
use stampede::crowd::spec::CrowdSpec;
use stampede::crowd::{FlockPreset, Motion};
use stampede::render::data::flock_sim::FlockSim;

/// No two birds end closer than this fraction of the separation radius.
/// Birds start at random (some overlapping); separation is a steering force
/// limited by the acceleration cap, not a hard constraint, so a pair may
/// still be inside the radius after the run, but well apart.
const MIN_DISTANCE_FACTOR: f32 = 0.25;

/// The least share of the flock in its largest group with the murmuration
/// preset.
const MURMURATION_GROUP: f32 = 0.8;

fn params() -> FlockParams {
    let bounds = Aabb {
        min: Vec3::new(-40.0, 5.0, -40.0),
        max: Vec3::new(40.0, 35.0, 40.0),
    };
    FlockParams::for_size(1.0, bounds)
}

fn run(gpu: &stampede::gpu::GpuContext, count: u32, steps: u32) -> Vec<Boid> {
    let mut sim = FlockSim::new(&gpu.device, &gpu.queue, count, 42, params());
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    sim.step(&gpu.queue, &mut encoder, 1.0 / 30.0, steps);
    gpu.queue.submit([encoder.finish()]);
    sim.read_back(&gpu.device, &gpu.queue).unwrap()
}

#[test]
fn birds_keep_apart_and_inside_the_bounds() {
    let Some(gpu) = gpu_common::gpu_or_skip("flock") else {
        return;
    };
    let p = params();
    let count = 1500;
    let before = {
        let sim = FlockSim::new(&gpu.device, &gpu.queue, count, 42, p);
        sim.read_back(&gpu.device, &gpu.queue).unwrap()
    };
    let after = run(&gpu, count, 300);
    assert_eq!(after.len(), count as usize);
    let min_pair = |boids: &[Boid]| {
        let mut best = f32::INFINITY;
        for (i, a) in boids.iter().enumerate() {
            for b in &boids[i + 1..] {
                best = best.min(Vec3::from(a.pos).distance(Vec3::from(b.pos)));
            }
        }
        best
    };
    let start = min_pair(&before);
    let end = min_pair(&after);
    eprintln!(
        "closest pair: {start:.3} at the start, {end:.3} after 300 steps (separation radius {})",
        p.separation_radius
    );
    assert!(
        start < MIN_DISTANCE_FACTOR * p.separation_radius,
        "the start must be crowded for this test to mean anything"
    );
    assert!(
        end >= MIN_DISTANCE_FACTOR * p.separation_radius,
        "closest pair {end}"
    );
    for b in &after {
        let pos = Vec3::from(b.pos);
        assert!(
            pos.cmpge(p.bounds.min).all() && pos.cmple(p.bounds.max).all(),
            "{pos} outside"
        );
        let speed = Vec3::from(b.vel).length();
        assert!(speed <= p.max_speed * 1.001 && speed.is_finite());
    }
    // They moved, and flock: neighbours head roughly the same way.
    let moved = before
        .iter()
        .zip(&after)
        .filter(|(a, b)| Vec3::from(a.pos).distance(Vec3::from(b.pos)) > 1.0)
        .count();
    assert!(moved > count as usize * 9 / 10);
    let mut agreement = 0.0;
    let mut pairs = 0;
    for (i, a) in after.iter().enumerate().step_by(7) {
        for b in &after[i + 1..] {
            if Vec3::from(a.pos).distance(Vec3::from(b.pos)) < p.neighbor_radius {
                agreement += Vec3::from(a.vel)
                    .normalize()
                    .dot(Vec3::from(b.vel).normalize());
                pairs += 1;
            }
        }
    }
    let mean = agreement / pairs.max(1) as f32;
    eprintln!("mean heading agreement between neighbours: {mean:.2} over {pairs} pairs");
    assert!(
        mean > 0.5,
        "alignment: neighbours should fly alike, got {mean}"
    );
}

#[test]
fn the_simulation_is_deterministic() {
    let Some(gpu) = gpu_common::gpu_or_skip("flock determinism") else {
        return;
    };
    let a = run(&gpu, 700, 40);
    let b = run(&gpu, 700, 40);
    assert_eq!(a, b, "same seed, same steps, same bits");
}

/// One step on the CPU with brute-force neighbours (no grid), following the
/// rules of shaders/flock.wgsl in plain floats.
fn cpu_step(boids: &[Boid], u: &stampede::crowd::flock::FlockUniform) -> Vec<Boid> {
    let (r, rs, speed) = (u.neighbor_radius, u.separation_radius, u.max_speed);
    let lo = Vec3::from_slice(&u.bounds_min[..3]);
    let hi = Vec3::from_slice(&u.bounds_max[..3]);
    boids
        .iter()
        .enumerate()
        .map(|(i, me)| {
            let p = Vec3::from(me.pos);
            let v = Vec3::from(me.vel);
            let (mut sep, mut heading, mut offset, mut n) = (Vec3::ZERO, Vec3::ZERO, Vec3::ZERO, 0);
            for (j, o) in boids.iter().enumerate() {
                let d = Vec3::from(o.pos) - p;
                let dist = d.length();
                if i == j || dist >= r {
                    continue;
                }
                n += 1;
                offset += d / r;
                heading += Vec3::from(o.vel) / speed;
                if dist < rs {
                    let away = if dist > 1e-6 { -d / dist } else { Vec3::Y };
                    sep += away * (1.0 - dist / rs);
                }
            }
            let mut accel = Vec3::ZERO;
            if n > 0 {
                let inv = 1.0 / n as f32;
                accel += u.w_alignment * (heading * inv * speed - v);
                accel += u.w_cohesion * offset * inv * r * (speed / r);
                accel += u.w_separation * sep * speed;
            }
            let m = u.margin;
            let push = ((lo + Vec3::splat(m) - p).max(Vec3::ZERO)
                - (p - (hi - Vec3::splat(m))).max(Vec3::ZERO))
                / m;
            accel += u.w_bounds * push * speed;
            let half = ((hi - lo) * 0.5).max(Vec3::splat(1e-6));
            accel += u.w_roost * ((lo + hi) * 0.5 - p) / half * speed;
            if accel.length() > u.max_accel {
                accel *= u.max_accel / accel.length();
            }
            let mut vel = v + accel * u.dt;
            let s = vel.length();
            if s > u.max_speed {
                vel *= u.max_speed / s;
            } else if s < u.min_speed {
                vel *= u.min_speed / s;
            }
            let pos = p + vel * u.dt;
            let outside = pos.cmplt(lo) | pos.cmpgt(hi);
            let vel = Vec3::select(outside, -vel, vel);
            let climb = me.climb + (vel.y - me.climb) * (u.dt * 4.0).clamp(0.0, 1.0);
            let target = if climb > 0.0 { 1.0 } else { 0.0 };
            let kf = 1.0 - (-u.dt / u.fade.max(1e-3)).exp();
            Boid {
                pos: pos.clamp(lo, hi).to_array(),
                phase: me.phase,
                vel: vel.to_array(),
                climb,
                flap: me.flap + (target - me.flap) * kf,
                // Not compared (atan of a difference quotient).
                bank: me.bank,
                _pad: [0.0; 2],
            }
        })
        .collect()
}

/// The grid finds exactly the neighbours brute force finds: one GPU step
/// equals one CPU step up to the fixed-point rounding of the sums.
#[test]
fn one_gpu_step_equals_a_brute_force_cpu_step() {
    let Some(gpu) = gpu_common::gpu_or_skip("flock vs cpu") else {
        return;
    };
    // With the roost's pull, so the CPU twin checks that term too.
    let p = FlockParams {
        w_roost: 0.6,
        ..params()
    };
    let count = 900;
    let dt = 1.0 / 30.0;
    // Let the flock form first, so neighbourhoods are dense.
    let mut sim = FlockSim::new(&gpu.device, &gpu.queue, count, 5, p);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    sim.step(&gpu.queue, &mut encoder, dt, 60);
    gpu.queue.submit([encoder.finish()]);
    let before = sim.read_back(&gpu.device, &gpu.queue).unwrap();
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    sim.step(&gpu.queue, &mut encoder, dt, 1);
    gpu.queue.submit([encoder.finish()]);
    let gpu_after = sim.read_back(&gpu.device, &gpu.queue).unwrap();
    let cpu_after = cpu_step(&before, &p.uniform(count, dt));
    let mut worst = 0.0f32;
    let mut worst_flap = 0.0f32;
    for (g, c) in gpu_after.iter().zip(&cpu_after) {
        worst = worst.max(Vec3::from(g.vel).distance(Vec3::from(c.vel)));
        // The flap weight follows the climb continuously (a first-order lag
        // with the crossfade time): same rule on both sides. A bird whose
        // climb sits at 0 within rounding may pick the other target.
        if c.climb.abs() > 1e-4 * p.max_speed {
            worst_flap = worst_flap.max((g.flap - c.flap).abs());
        }
        assert!((0.0..=1.0).contains(&g.flap), "flap weight {}", g.flap);
        assert!(g.bank.abs() <= 1.0 + 1e-6, "bank {}", g.bank);
    }
    assert!(worst_flap < 1e-4, "flap weight GPU vs CPU: {worst_flap}");
    eprintln!(
        "worst velocity difference GPU vs CPU: {worst:e} (max speed {})",
        p.max_speed
    );
    assert!(worst < 1e-3 * p.max_speed, "{worst}");
}

/// The share of the birds in the largest group whose members are linked by
/// chains of birds less than `link` apart.
fn largest_group(boids: &[Boid], link: f32) -> f32 {
    let n = boids.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for i in 0..n {
        for j in i + 1..n {
            if Vec3::from(boids[i].pos).distance(Vec3::from(boids[j].pos)) < link {
                let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                parent[a] = b;
            }
        }
    }
    let mut sizes = vec![0u32; n];
    for i in 0..n {
        sizes[root(&mut parent, i)] += 1;
    }
    *sizes.iter().max().unwrap_or(&0) as f32 / n.max(1) as f32
}

/// Simulated seconds before the flock's groups are counted.
const SECONDS: f32 = 20.0;

/// The murmuration preset gathers a flock into one body: after
/// [`SECONDS`] simulated seconds most birds are in one linked group (chains of
/// birds within the clumps preset's sight, 3 sizes, of each other), while
/// the clumps preset leaves them in separate groups.
#[test]
fn the_murmuration_is_one_body_and_the_clumps_are_not() {
    let Some(gpu) = gpu_common::gpu_or_skip("flock presets") else {
        return;
    };
    let spec = CrowdSpec {
        motion: Motion::Flock,
        model_size: 1.0,
        ground_y: 0.0,
        clip_count: 2,
    };
    // The viewer's default count: the flock a user sees first.
    let count = stampede::crowd::scene_spec::DEFAULT_COUNT;
    let dt = 1.0 / 60.0;
    let share = |preset: FlockPreset| {
        let p = FlockParams::for_crowd(&spec, count, &preset.tuning(), 0.25);
        let mut sim = FlockSim::new(&gpu.device, &gpu.queue, count, 1, p);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        sim.step(&gpu.queue, &mut encoder, dt, (SECONDS / dt) as u32);
        gpu.queue.submit([encoder.finish()]);
        let boids = sim.read_back(&gpu.device, &gpu.queue).unwrap();
        largest_group(&boids, 3.0)
    };
    let murmuration = share(FlockPreset::Murmuration);
    let clumps = share(FlockPreset::Clumps);
    eprintln!(
        "largest linked group after {SECONDS} s: murmuration {:.1} %, clumps {:.1} %",
        murmuration * 100.0,
        clumps * 100.0
    );
    assert!(
        murmuration >= MURMURATION_GROUP,
        "murmuration: only {:.1} % of the birds in the largest group",
        murmuration * 100.0
    );
    assert!(
        clumps < murmuration * 0.6,
        "clumps {:.1} % vs murmuration {:.1} %: the presets should differ",
        clumps * 100.0,
        murmuration * 100.0
    );
}
