// One animation state per instance, computed on the GPU from the frame time:
// where it is, which two clips it blends, at which clip times and weight.
// Behaviour off: the synchronized loops (`place`, weight 1). Horses with
// behaviour on: the herd (`herd_state`). Birds with behaviour on: the flock
// simulated by flock.wgsl (position, heading and bank from the boid, flap
// and glide blended by its smoothed flap weight).
// The CPU twin is `crowd::anim::instance_anim`.
// requires: crowd boid herd

// The flock's current state (a one-bird placeholder when there is none).
@group(2) @binding(5) var<storage, read> boids: array<Boid>;
// The flock as it was when the previous frame was drawn (the velocity
// target's previous pose; `render::behaviour` copies it before stepping).
@group(2) @binding(6) var<storage, read> previous_boids: array<Boid>;

struct AnimState {
    place: Placement,
    // Current clip, its clip time, and its weight against `previous`.
    clip: u32,
    time: f32,
    previous: u32,
    previous_time: f32,
    weight: f32,
    // Sample the nearest baked frame instead of lerping two (animation LOD,
    // set by the vertex entry from the cull pass's choice).
    nearest: bool,
};

// Clip time of clip `clip_index` for an instance, at `num / den` seconds of
// clip per second of scene time.
fn behaviour_clip_time(inst: Instance, clip_index: u32, num: f32, den: f32, at: SceneClock) -> f32 {
    return clip_time(inst, vat_clips[clip_index].duration, num, den, at);
}

// This frame's state.
fn anim_state(index: u32, inst: Instance) -> AnimState {
    return anim_state_at(index, inst, frame_clock(), herd.time, false);
}

// The state when the previous frame was drawn: the same functions at its
// time (the herd at its herd time, counted in this frame's table), the
// flock's previous boid. Exact, not an estimate; equal to `anim_state`
// after a time jump (the renderer then sends this frame's time).
fn previous_anim_state(index: u32, inst: Instance) -> AnimState {
    return anim_state_at(index, inst, previous_clock(), herd.previous_time, true);
}

// The state at scene time `at` (herd time `herd_time`), from the previous
// boids when `before`.
fn anim_state_at(index: u32, inst: Instance, at: SceneClock, herd_time: f32, before: bool) -> AnimState {
    var a: AnimState;
    let m = crowd_models[model_of(index)];
    // Its own clips from 0 as the scene's (the last of its own at most).
    let own_last = max(m.clip_count, 1u) - 1u;
    // Its rank among the instances of the herd or flock it joins.
    let rank = m.rank_base + (index - m.first_instance);
    if frame.behaviour != 0u && m.joins == 1u {
        // The herd. A horse of scale s strides 1/s as often: the same ground
        // speed with planted feet whatever its size; a scene's model plays
        // each gait at the herd's pace (`gait_rates`).
        let h = herd_state(rank, herd_time);
        a.place.origin = vec3<f32>(h.position.x, frame.ground_y, h.position.y);
        a.place.forward = vec3<f32>(h.forward.x, 0.0, h.forward.y);
        a.place.up = vec3<f32>(0.0, 1.0, 0.0);
        a.clip = m.first_clip + min(m.gait_clips[h.gait], own_last);
        a.previous = m.first_clip + min(m.gait_clips[h.previous_gait], own_last);
        a.weight = h.weight;
        let scale = max(inst.scale, 1e-3);
        a.time = behaviour_clip_time(inst, a.clip, frame.playback * m.gait_rates[h.gait], scale, at);
        a.previous_time = behaviour_clip_time(
            inst,
            a.previous,
            frame.playback * m.gait_rates[h.previous_gait],
            scale,
            at,
        );
        return a;
    }
    if frame.behaviour != 0u && m.joins == 2u {
        // The flock.
        var b = boids[min(rank, arrayLength(&boids) - 1u)];
        if before {
            b = previous_boids[min(rank, arrayLength(&previous_boids) - 1u)];
        }
        let speed = length(b.vel);
        let fwd = select(vec3<f32>(0.0, 0.0, 1.0), b.vel / speed, speed > 1e-6);
        var side = cross(vec3<f32>(0.0, 1.0, 0.0), fwd);
        let sl = length(side);
        side = select(vec3<f32>(1.0, 0.0, 0.0), side / sl, sl > 1e-4);
        let level_up = cross(fwd, side);
        a.place.origin = b.pos;
        a.place.forward = fwd;
        a.place.up = level_up * cos(b.bank) + side * sin(b.bank);
        a.clip = m.first_clip + min(m.gait_clips.x, own_last);
        a.previous = m.first_clip + min(m.gait_clips.y, own_last);
        a.weight = clamp(b.flap, 0.0, 1.0);
        a.time = behaviour_clip_time(inst, a.clip, frame.playback, 1.0, at);
        a.previous_time = behaviour_clip_time(inst, a.previous, frame.playback, 1.0, at);
        return a;
    }
    let clip_index = instance_clip(m, inst);
    let clip = vat_clips[clip_index];
    a.place = loop_placement(m, inst, clip, at);
    a.clip = clip_index;
    a.previous = clip_index;
    a.time = instance_clip_time(inst, clip, at);
    a.previous_time = a.time;
    a.weight = 1.0;
    return a;
}
