// The crowd: one instanced draw. Each instance's placement and clips come
// from the frame time on the GPU (`anim_state` in behaviour.wgsl); its pose
// comes from the technique's pose hook, called by `vs_main` in
// crowd_vertex.wgsl, which places it here with `finish_vertex`.
// `Instance` is mirrored by `crowd::Instance` (tests/gpu_layout.rs), and
// `instance_clip` / `instance_clip_time` are the twins of
// `crowd::instance_clip_time`.
// requires: common pose scene_time shadow

struct Instance {
    // 0..1 across the track (or the flock's radius).
    lane: f32,
    // Start angle on the track, radians.
    phase: f32,
    scale: f32,
    // 0..1 fraction of the clip, scaled by the time-offset spread.
    time_offset: f32,
    // Playback (and so ground speed) multiplier.
    speed: f32,
    clip: u32,
    // RGBA8 tint.
    tint: u32,
    // 0..1 altitude for flyers.
    height: f32,
};

@group(2) @binding(0) var<storage, read> instances: array<Instance>;
@group(2) @binding(1) var base_color_tex: texture_2d_array<f32>;
@group(2) @binding(2) var base_color_sampler: sampler;

// One model of the scene: its instances, its clips in the scene's clip
// table, how its crowd moves and where its field is. Mirrored by
// `crowd::scene::CrowdModelGpu` (tests/gpu_layout.rs); a scene of one
// model has one entry holding the frame's own fields.
struct CrowdModel {
    first_instance: u32,
    count: u32,
    first_clip: u32,
    clip_count: u32,
    // The clip all its instances play (its own, from 0), or 0xffffffff.
    clip: u32,
    // 0 = gallop around a track, 1 = fly in circles, 2 = stand still.
    motion: u32,
    field_radius: f32,
    model_size: f32,
    // Its field's centre on the ground (x, z).
    offset: vec2<f32>,
    // With behaviour on: 0 its loops, 1 the herd, 2 the flock.
    joins: u32,
    // Its first instance's rank in the herd or flock it joins.
    rank_base: u32,
    // Its own clips for the herd's walk, gallop, idle (or the flock's
    // flap, glide).
    gait_clips: vec4<u32>,
    // The herd's ground speed over its own, per gait.
    gait_rates: vec4<f32>,
    // Its last `undrawn` instances are not drawn this frame (a technique's
    // cap shared out over the models), and its drawn instances' slots are
    // their indices less `slot_shift`.
    undrawn: u32,
    slot_shift: u32,
    _pad0: u32,
    _pad1: u32,
};

const MAX_SCENE_MODELS: u32 = 8u;

@group(2) @binding(7) var<storage, read> crowd_models: array<CrowdModel, MAX_SCENE_MODELS>;

// The model instance `index` belongs to (entries in instance order; an
// empty entry ends the table). The twin of `CrowdModelGpu::model_of`.
fn model_of(index: u32) -> u32 {
    var m = 0u;
    for (var k = 1u; k < MAX_SCENE_MODELS; k++) {
        let e = crowd_models[k];
        if e.count == 0u || index < e.first_instance {
            break;
        }
        m = k;
    }
    return m;
}

// Whether instance `index` is drawn this frame. The twin of
// `CrowdModelGpu::slot_of` (with `palette_slot`).
fn instance_drawn(index: u32) -> bool {
    let e = crowd_models[model_of(index)];
    return index - e.first_instance < e.count - min(e.undrawn, e.count);
}

// The slot of drawn instance `index` in the per-instance data of a capped
// technique (palettes, skinned vertices): the drawn instances of every
// model, one after another.
fn palette_slot(index: u32) -> u32 {
    return index - crowd_models[model_of(index)].slot_shift;
}

// The instance in slot `slot` (the inverse of `palette_slot`).
fn slot_instance(slot: u32) -> u32 {
    var m = 0u;
    for (var k = 1u; k < MAX_SCENE_MODELS; k++) {
        let e = crowd_models[k];
        if e.count == 0u || slot < e.first_instance - e.slot_shift {
            break;
        }
        m = k;
    }
    return slot + crowd_models[m].slot_shift;
}

struct VertexIn {
    @builtin(vertex_index) vertex: u32,
    @builtin(instance_index) instance: u32,
    @location(0) uv: vec2<f32>,
    @location(1) color: vec4<f32>,
    @location(2) texture_layer: i32,
};

struct VertexOut {
    // Invariant: the same vertex lands at the same depth in every pipeline
    // that draws it (the exact visibility count's probes test against the
    // frame's depth with LessEqual).
    @invariant @builtin(position) clip_pos: vec4<f32>,
    @location(0) world_pos: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) color: vec4<f32>,
    @location(4) @interpolate(flat) texture_layer: i32,
    // Where the point is this frame and was last frame, in the unjittered
    // clip spaces of both cameras (the velocity target, `screen_motion`);
    // zero when `frame.velocity` is 0.
    @location(5) motion_now: vec4<f32>,
    @location(6) motion_before: vec4<f32>,
};

struct Placement {
    origin: vec3<f32>,
    forward: vec3<f32>,
    up: vec3<f32>,
};

// The clip (in the scene's table) an instance of model `m` plays with
// behaviour off.
fn instance_clip(m: CrowdModel, inst: Instance) -> u32 {
    let count = max(m.clip_count, 1u);
    if m.clip == 0xffffffffu {
        return m.first_clip + inst.clip % count;
    }
    return m.first_clip + min(m.clip, count - 1u);
}

// The radius of an instance's loop (behaviour off): its flock circle or
// its lane of the ring track.
fn loop_radius(m: CrowdModel, inst: Instance) -> f32 {
    let big_r = max(m.field_radius, 1e-3);
    if m.motion == 1u {
        return big_r * (0.35 + 0.65 * inst.lane);
    }
    return big_r * (0.62 + 0.38 * inst.lane);
}

// Where an instance of model `m` is, having covered `dist` model units.
fn place(m: CrowdModel, inst: Instance, dist: f32) -> Placement {
    var p = place_at_origin(m, inst, dist);
    p.origin += vec3<f32>(m.offset.x, 0.0, m.offset.y);
    return p;
}

// `place` for a field centred on the origin.
fn place_at_origin(m: CrowdModel, inst: Instance, dist: f32) -> Placement {
    var p: Placement;
    p.up = vec3<f32>(0.0, 1.0, 0.0);
    let big_r = max(m.field_radius, 1e-3);
    if m.motion == 1u {
        // A flock: circles at different radii and heights, undulating.
        let r = loop_radius(m, inst);
        let a = inst.phase + dist / r;
        let size = m.model_size;
        let wave = 3.0 * a + inst.phase * 5.0;
        let amp = size * 0.9;
        let y = frame.ground_y + size * (3.0 + 9.0 * inst.height) + amp * sin(wave);
        p.origin = vec3<f32>(cos(a) * r, y, sin(a) * r);
        // d(y)/d(dist) gives the pitch.
        let dy = amp * cos(wave) * 3.0 / r;
        let tangent = vec3<f32>(-sin(a), 0.0, cos(a));
        p.forward = normalize(tangent + vec3<f32>(0.0, dy, 0.0));
        // Bank into the turn.
        let inward = vec3<f32>(-cos(a), 0.0, -sin(a));
        p.up = normalize(vec3<f32>(0.0, 1.0, 0.0) + inward * 0.35);
    } else if m.motion == 0u {
        // A herd galloping counter-clockwise around a wide ring track.
        let r = loop_radius(m, inst);
        let a = inst.phase + dist / r;
        p.origin = vec3<f32>(cos(a) * r, frame.ground_y, sin(a) * r);
        p.forward = vec3<f32>(-sin(a), 0.0, cos(a));
    } else {
        // Standing in a field.
        let r = big_r * sqrt(inst.lane);
        p.origin = vec3<f32>(cos(inst.phase) * r, frame.ground_y, sin(inst.phase) * r);
        let h = inst.phase * 7.0 + inst.height * 6.2831853;
        p.forward = vec3<f32>(sin(h), 0.0, cos(h));
    }
    return p;
}

// A scene time, split as the frame carries it (`time_hi + time_lo`): this
// frame's, or the previous frame's for the velocity target.
struct SceneClock {
    hi: f32,
    lo: f32,
};

fn frame_clock() -> SceneClock {
    return SceneClock(frame.time_hi, frame.time_lo);
}

fn previous_clock() -> SceneClock {
    return SceneClock(frame.previous_time_hi, frame.previous_time_lo);
}

// Clip time of an instance (seconds, before wrapping) at `at`. Clip time
// and ground distance scale together, so feet do not slide.
fn instance_clip_time(inst: Instance, clip: VatClip, at: SceneClock) -> f32 {
    return clip_time(inst, clip.duration, frame.playback * inst.speed, 1.0, at);
}

// The one clip-time formula: `num / den` seconds of clip per second of
// scene time, plus the instance's offset into a clip `duration` long (the
// twin of `crowd::clip_time::clip_time`), at scene time `at`. From 256 s on
// (hi > 0) the time's part is reduced modulo the clip by `scene_cycles`,
// keeping one duration past the end (or before the start) so clips that
// clamp still do.
fn clip_time(inst: Instance, duration: f32, num: f32, den: f32, at: SceneClock) -> f32 {
    let rate = num / den;
    let offset = inst.time_offset * frame.spread * duration;
    if at.hi == 0.0 || !(duration > 0.0) {
        return at.lo * rate + offset;
    }
    let whole = at.hi * rate + at.lo * rate;
    let laps = clamp(floor(whole / duration), -1.0, 1.0);
    let cycles = scene_cycles(at.hi, at.lo, num, den * duration);
    return cycles * duration + laps * duration + offset;
}

// Where an instance is with behaviour off: on its loop, having covered the
// distance its clip's ground speed gives (from 256 s on, reduced modulo
// the loop's length by `scene_cycles`), at scene time `at`.
fn loop_placement(m: CrowdModel, inst: Instance, clip: VatClip, at: SceneClock) -> Placement {
    let rate = frame.playback * inst.speed;
    if at.hi == 0.0 {
        return place(m, inst, at.lo * rate * clip.ground_speed * frame.stride * inst.scale);
    }
    let lap = 6.2831855 * loop_radius(m, inst);
    let speed = rate * clip.ground_speed * frame.stride * inst.scale;
    return place(m, inst, scene_cycles(at.hi, at.lo, speed, lap) * lap);
}

// The placement's rotation (model axes in the world).
fn placement_basis(p: Placement) -> mat3x3<f32> {
    let right = normalize(cross(p.up, p.forward));
    let up = cross(p.forward, right);
    return mat3x3<f32>(right, up, p.forward);
}

// A posed vertex (model space) placed in the world.
fn placed_position(inst: Instance, p: Placement, s: VatSample) -> vec3<f32> {
    return p.origin + placement_basis(p) * (s.position * inst.scale);
}

// Places a posed vertex (model space) in the world and fills the outputs
// (the motion ones with this frame's position: `vs_main` sets the
// previous one when the frame writes velocity).
fn finish_vertex(in: VertexIn, inst: Instance, p: Placement, s: VatSample) -> VertexOut {
    let m = placement_basis(p);
    let world = p.origin + m * (s.position * inst.scale);
    var out: VertexOut;
    out.clip_pos = frame.view_proj * vec4<f32>(world, 1.0);
    out.world_pos = world;
    out.normal = m * s.normal;
    out.uv = in.uv;
    out.color = in.color * unpack_tint(inst.tint);
    out.texture_layer = in.texture_layer;
    out.motion_now = frame.motion_view_proj * vec4<f32>(world, 1.0);
    out.motion_before = out.motion_now;
    return out;
}

@fragment
fn fs_main(in: VertexOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    return crowd_color(in, front);
}

// With the velocity target (`render::Targets::velocity`).
@fragment
fn fs_velocity(in: VertexOut, @builtin(front_facing) front: bool) -> SceneOut {
    return SceneOut(crowd_color(in, front), screen_motion(in.motion_now, in.motion_before));
}

fn crowd_color(in: VertexOut, front: bool) -> vec4<f32> {
    let layer = max(in.texture_layer, 0);
    let texel = textureSample(base_color_tex, base_color_sampler, in.uv, layer);
    var albedo = in.color.rgb;
    if in.texture_layer >= 0 {
        albedo *= texel.rgb;
    }
    var n = normalize(in.normal);
    if !front {
        n = -n;
    }
    let sun = sun_shadow(in.world_pos, n);
    let lit = shadow_tint(shade(albedo, n, in.world_pos, sun.visibility), sun);
    return vec4<f32>(apply_fog(lit, in.world_pos), 1.0);
}
