// The herd on the GPU: every horse's gait, crossfade weight, distance and
// place from the frame's schedule table and the path. This mirrors
// `crowd::herd::Herd::instance` (and `HerdPath::at`, `formation_slot`)
// exactly; tests/behaviour_gpu.rs compares them. `HerdTable` is mirrored by
// `crowd::herd::HerdTable` (tests/gpu_layout.rs).
// requires: rng

struct HerdTable {
    // Gait (0 walk, 1 gallop, 2 idle) of segment first + j, four per vec4.
    gaits: array<vec4<u32>, 4>,
    // Herd distance at the start of segment first + j, after `laps` whole
    // laps of the path.
    starts: array<vec4<f32>, 4>,
    first: i32,
    segment: f32,
    fade: f32,
    lag_speed: f32,
    // Ground speed per gait, and the largest lag in w.
    speeds: vec4<f32>,
    // Clip per gait.
    clips: vec3<u32>,
    // How many horses run as a band (their slots follow the path in
    // `herd_static`); 0 for the spiral.
    band: u32,
    path_length: f32,
    spacing: f32,
    // This frame's herd time, seconds after segment `first` starts: the
    // GPU only sees times and distances relative to the table.
    time: f32,
    laps: u32,
    // The previous frame's herd time, counted as `time` is (the velocity
    // target's previous pose).
    previous_time: f32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
};

@group(2) @binding(3) var<uniform> herd: HerdTable;
// What changes only when the herd is rebuilt (`Herd::gpu_data`): the path
// as [x, z, tangent x, tangent z] at HERD_PATH_SAMPLES equal steps of arc
// length, then a small herd's band slots, two (x across, y along) to an
// entry.
@group(2) @binding(4) var<storage, read> herd_static: array<vec4<f32>>;
// `crowd::herd::PATH_SAMPLES` and `BAND_MAX` (tests/gpu_layout.rs).
const HERD_PATH_SAMPLES: u32 = 512u;
const HERD_BAND_MAX: u32 = 256u;

const HERD_SEGMENTS: i32 = 16;
const FORMATION_ASPECT: vec2<f32> = vec2<f32>(0.75, 1.7);
const FORMATION_SCALE: f32 = 0.75;
const GOLDEN_ANGLE: f32 = 2.3999633;
const HERD_TAU: f32 = 6.2831855;
const FORMATION_JITTER: vec2<f32> = vec2<f32>(0.4, 0.5);

struct HerdState {
    // Ground position (x, z) and unit heading (x, z).
    position: vec2<f32>,
    forward: vec2<f32>,
    clip: u32,
    previous: u32,
    // The gaits (0 walk, 1 gallop, 2 idle) `clip` and `previous` play: a
    // scene's models each map them to clips of their own.
    gait: u32,
    previous_gait: u32,
    // Weight of `clip` (1 = fully the current clip).
    weight: f32,
    // Distance after the table's whole laps.
    distance: f32,
};

// Slot of horse `index` relative to the herd's centre: x across, y along.
fn formation_slot(index: u32, spacing: f32) -> vec2<f32> {
    let r = FORMATION_SCALE * spacing * sqrt(f32(index) + 0.5);
    let turns = f32(index) * (GOLDEN_ANGLE / HERD_TAU);
    let a = (turns - floor(turns) - 0.5) * HERD_TAU;
    let h = pcg_hash(index);
    let jitter = vec2<f32>(f32(h & 0xffffu), f32(h >> 16u)) / 65535.0 - 0.5;
    return vec2<f32>(cos(a), sin(a)) * r * FORMATION_ASPECT + jitter * FORMATION_JITTER * spacing;
}

// Where horse `index` runs relative to the herd's centre: its band slot
// from `herd_static`, or its place in the spiral (a select, not a branch
// on the uniform's band count). The twin of `Herd::slot`.
fn herd_slot(index: u32) -> vec2<f32> {
    let k = min(index, HERD_BAND_MAX - 1u);
    let v = herd_static[HERD_PATH_SAMPLES + k / 2u];
    let band = select(v.xy, v.zw, (k & 1u) == 1u);
    return select(formation_slot(index, herd.spacing), band, index < herd.band);
}

// Position (xy) and heading (zw) at distance `s` along the path, `lateral`
// to the right.
fn herd_path_at(s: f32, lateral: f32) -> vec4<f32> {
    let n = HERD_PATH_SAMPLES;
    let w = s / herd.path_length;
    var fr = w - trunc(w);
    if fr < 0.0 {
        fr += 1.0;
    }
    let u = fr * f32(n);
    let i0 = min(u32(floor(u)), n - 1u);
    let i1 = (i0 + 1u) % n;
    let f = u - f32(i0);
    let a = herd_static[i0];
    let b = herd_static[i1];
    let p = mix(a.xy, b.xy, f);
    let tl = mix(a.zw, b.zw, f);
    let len = length(tl);
    let t = select(vec2<f32>(1.0, 0.0), tl / len, len > 0.0);
    let right = vec2<f32>(-t.y, t.x);
    return vec4<f32>(p + right * lateral, t);
}

fn herd_gait(j: u32) -> u32 {
    return herd.gaits[j / 4u][j % 4u];
}

fn herd_start(j: u32) -> f32 {
    return herd.starts[j / 4u][j % 4u];
}

// Horse `index` at herd time `t`, seconds after the start of the table's
// segment `first` (the frame's is `herd.time`; the CPU twin is
// `Herd::instance_local`).
fn herd_state(index: u32, t: f32) -> HerdState {
    let slot = herd_slot(index);
    let lag = clamp(-slot.y / max(herd.lag_speed, 1e-6), -herd.speeds.w, herd.speeds.w);
    let tau = t - lag;
    let k = floor(tau / herd.segment);
    let j = u32(clamp(i32(k), 1, HERD_SEGMENTS - 1));
    let local = tau - k * herd.segment;
    let g0 = min(herd_gait(j - 1u), 2u);
    let g1 = min(herd_gait(j), 2u);
    let v0 = herd.speeds[g0];
    let v1 = herd.speeds[g1];
    let f = max(herd.fade, 1e-4);
    let r = clamp(local, 0.0, f);
    let distance = herd_start(j) + v0 * r + (v1 - v0) * r * r / (2.0 * f) + v1 * max(local - f, 0.0);
    let at = herd_path_at(distance + slot.y, slot.x);
    var h: HerdState;
    h.position = at.xy;
    h.forward = at.zw;
    h.clip = herd.clips[g1];
    h.previous = herd.clips[g0];
    h.gait = g1;
    h.previous_gait = g0;
    h.weight = clamp(local / f, 0.0, 1.0);
    h.distance = distance;
    return h;
}
