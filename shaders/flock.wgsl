// Boids on the GPU: separation, alignment, cohesion and a soft bound, with a
// uniform grid so each bird only looks at the 27 cells around it.
// requires: boid
// `FlockUniform` is mirrored by `crowd::flock::FlockUniform`
// (tests/gpu_layout.rs); the CPU reference step is in tests/flock.rs.
//
// One step is five passes: clear_cells, count_cells, scan_cells,
// scatter_boids, update_boids. Neighbour sums are accumulated in fixed point
// (integers add in any order to the same result), so a step gives the same
// bits whatever order the atomics hand out slots in.

// `Boid` is in boid.wgsl (shared with the renderer, composed before this).

struct FlockUniform {
    bounds_min: vec4<f32>,
    bounds_max: vec4<f32>,
    // xyz: grid origin, w: cell size.
    grid_origin: vec4<f32>,
    // xyz: cells per axis, w: total cells.
    grid_dims: vec4<u32>,
    count: u32,
    dt: f32,
    separation_radius: f32,
    neighbor_radius: f32,
    w_separation: f32,
    w_alignment: f32,
    w_cohesion: f32,
    max_speed: f32,
    min_speed: f32,
    margin: f32,
    w_bounds: f32,
    max_accel: f32,
    // Time constant of the flap weight (the crossfade time), seconds.
    fade: f32,
    // Lateral acceleration that gives a 45° bank.
    bank_accel: f32,
    // Pull towards the middle of the box (the roost), per unit of the box's
    // half size: gathers the whole flock into one body that circles it.
    w_roost: f32,
    _pad0: f32,
};

@group(0) @binding(0) var<uniform> params: FlockUniform;
@group(0) @binding(1) var<storage, read> boids_in: array<Boid>;
@group(0) @binding(2) var<storage, read_write> boids_out: array<Boid>;
@group(0) @binding(3) var<storage, read_write> cell_count: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> cell_start: array<u32>;
@group(0) @binding(5) var<storage, read_write> boid_cell: array<u32>;
@group(0) @binding(6) var<storage, read_write> boid_slot: array<u32>;
@group(0) @binding(7) var<storage, read_write> sorted: array<u32>;

const SCAN_THREADS: u32 = 256u;
// Fixed-point scale: unit vectors and normalized offsets become ±2^16.
const FIXED: f32 = 65536.0;

fn cell_coord(p: vec3<f32>) -> vec3<i32> {
    let dims = vec3<i32>(params.grid_dims.xyz);
    let c = vec3<i32>(floor((p - params.grid_origin.xyz) / params.grid_origin.w));
    return clamp(c, vec3<i32>(0), dims - vec3<i32>(1));
}

fn cell_index(c: vec3<i32>) -> u32 {
    let d = params.grid_dims;
    return (u32(c.z) * d.y + u32(c.y)) * d.x + u32(c.x);
}

@compute @workgroup_size(64)
fn clear_cells(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < params.grid_dims.w {
        atomicStore(&cell_count[id.x], 0u);
    }
}

@compute @workgroup_size(64)
fn count_cells(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= params.count {
        return;
    }
    let cell = cell_index(cell_coord(boids_in[i].pos));
    boid_cell[i] = cell;
    boid_slot[i] = atomicAdd(&cell_count[cell], 1u);
}

var<workgroup> partial: array<u32, SCAN_THREADS>;

// Exclusive prefix sum of the cell counts, in one workgroup: each thread sums
// a run of cells, thread 0 scans the run totals, then each run is written.
@compute @workgroup_size(256)
fn scan_cells(@builtin(local_invocation_id) lid: vec3<u32>) {
    let cells = params.grid_dims.w;
    let per = (cells + SCAN_THREADS - 1u) / SCAN_THREADS;
    let first = lid.x * per;
    let last = min(first + per, cells);
    var sum = 0u;
    for (var c = first; c < last; c++) {
        sum += atomicLoad(&cell_count[c]);
    }
    partial[lid.x] = sum;
    workgroupBarrier();
    if lid.x == 0u {
        var running = 0u;
        for (var t = 0u; t < SCAN_THREADS; t++) {
            let v = partial[t];
            partial[t] = running;
            running += v;
        }
    }
    workgroupBarrier();
    var running = partial[lid.x];
    for (var c = first; c < last; c++) {
        cell_start[c] = running;
        running += atomicLoad(&cell_count[c]);
    }
}

@compute @workgroup_size(64)
fn scatter_boids(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= params.count {
        return;
    }
    sorted[cell_start[boid_cell[i]] + boid_slot[i]] = i;
}

fn to_fixed(v: vec3<f32>) -> vec3<i32> {
    return vec3<i32>(round(clamp(v, vec3<f32>(-1.0), vec3<f32>(1.0)) * FIXED));
}

fn from_fixed(v: vec3<i32>) -> vec3<f32> {
    return vec3<f32>(v) / FIXED;
}

// How far inside the soft margin a coordinate is, per axis (0 outside it).
fn bound_push(p: vec3<f32>) -> vec3<f32> {
    let lo = params.bounds_min.xyz + vec3<f32>(params.margin);
    let hi = params.bounds_max.xyz - vec3<f32>(params.margin);
    let m = max(params.margin, 1e-6);
    return (max(lo - p, vec3<f32>(0.0)) - max(p - hi, vec3<f32>(0.0))) / m;
}

// From a point to the middle of the box, per axis as a fraction of the
// box's half size (1 at a wall).
fn roost_pull(p: vec3<f32>) -> vec3<f32> {
    let centre = (params.bounds_min.xyz + params.bounds_max.xyz) * 0.5;
    let half = max((params.bounds_max.xyz - params.bounds_min.xyz) * 0.5, vec3<f32>(1e-6));
    return (centre - p) / half;
}

@compute @workgroup_size(64)
fn update_boids(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= params.count {
        return;
    }
    let me = boids_in[i];
    let home = cell_coord(me.pos);
    let dims = vec3<i32>(params.grid_dims.xyz);
    let r = params.neighbor_radius;
    let rs = params.separation_radius;
    var separation = vec3<i32>(0);
    var heading = vec3<i32>(0);
    var offset = vec3<i32>(0);
    var neighbours = 0;
    for (var dz = -1; dz <= 1; dz++) {
        for (var dy = -1; dy <= 1; dy++) {
            for (var dx = -1; dx <= 1; dx++) {
                let c = home + vec3<i32>(dx, dy, dz);
                if any(c < vec3<i32>(0)) || any(c >= dims) {
                    continue;
                }
                let cell = cell_index(c);
                let start = cell_start[cell];
                let n = atomicLoad(&cell_count[cell]);
                for (var k = 0u; k < n; k++) {
                    let j = sorted[start + k];
                    if j == i {
                        continue;
                    }
                    let other = boids_in[j];
                    let d = other.pos - me.pos;
                    let dist = length(d);
                    if dist >= r {
                        continue;
                    }
                    neighbours += 1;
                    offset += to_fixed(d / r);
                    heading += to_fixed(other.vel / max(params.max_speed, 1e-6));
                    if dist < rs {
                        // Away from the neighbour, stronger the closer it is.
                        var away = vec3<f32>(0.0, 1.0, 0.0);
                        if dist > 1e-6 {
                            away = -d / dist;
                        }
                        separation += to_fixed(away * (1.0 - dist / rs));
                    }
                }
            }
        }
    }
    var accel = vec3<f32>(0.0);
    let speed = params.max_speed;
    if neighbours > 0 {
        let inv = 1.0 / f32(neighbours);
        let avg_heading = from_fixed(heading) * inv * speed;
        let centre = from_fixed(offset) * inv * r;
        accel += params.w_alignment * (avg_heading - me.vel);
        accel += params.w_cohesion * centre * (speed / max(r, 1e-6));
        accel += params.w_separation * from_fixed(separation) * speed;
    }
    accel += params.w_bounds * bound_push(me.pos) * speed;
    accel += params.w_roost * roost_pull(me.pos) * speed;
    let a = length(accel);
    if a > params.max_accel {
        accel *= params.max_accel / a;
    }
    let dt = params.dt;
    var vel = me.vel + accel * dt;
    let s = length(vel);
    if s > params.max_speed {
        vel *= params.max_speed / s;
    } else if s < params.min_speed {
        if s > 1e-6 {
            vel *= params.min_speed / s;
        } else {
            vel = vec3<f32>(params.min_speed, 0.0, 0.0);
        }
    }
    var pos = me.pos + vel * dt;
    // The hard wall behind the soft margin: clamp and bounce.
    let lo = params.bounds_min.xyz;
    let hi = params.bounds_max.xyz;
    let outside = (pos < lo) | (pos > hi);
    vel = select(vel, -vel, outside);
    pos = clamp(pos, lo, hi);
    var out: Boid;
    out.pos = pos;
    out.vel = vel;
    out.phase = me.phase;
    // Smoothed climb rate (about a quarter-second time constant).
    let k = clamp(dt * 4.0, 0.0, 1.0);
    out.climb = mix(me.climb, vel.y, k);
    // Flap while climbing, glide while descending: the weight follows the
    // climb with the crossfade's time constant, so the blend is continuous.
    let target_flap = select(0.0, 1.0, out.climb > 0.0);
    let kf = 1.0 - exp(-dt / max(params.fade, 1e-3));
    out.flap = mix(me.flap, target_flap, kf);
    // Bank into the turn: the turn rate about +Y times the speed is the
    // lateral acceleration; atan of its ratio to `bank_accel` is the roll.
    let h0 = me.vel.xz;
    let h1 = vel.xz;
    let hl = max(length(h0) * length(h1), 1e-6);
    let turn = (h0.y * h1.x - h0.x * h1.y) / hl / max(dt, 1e-6);
    let lateral = turn * length(h1);
    let target_bank = clamp(atan(lateral / max(params.bank_accel, 1e-6)), -1.0, 1.0);
    out.bank = mix(me.bank, target_bank, k);
    boids_out[i] = out;
}
