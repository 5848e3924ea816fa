// The one crowd vertex entry every technique's pipeline runs: it places the
// instance (`anim_state`: where it is, which clips at which times and
// weight) and asks the technique's pose hook for the vertex in model space.
// Each technique's file under techniques/ defines
//     fn pose(vertex: u32, instance: u32, anim: AnimState) -> VatSample
//     fn previous_pose(vertex: u32, instance: u32, before: AnimState,
//                      now: AnimState) -> VatSample
// (the vertex when the previous frame was drawn, for the velocity target),
// and the crowd module of a technique is this file plus that one.
// The state comes from the cull pass's visible list where the list keeps
// it (`entry_state`, listed.wgsl), else `anim_state` computes it.
// requires: crowd behaviour shadow listed

// The LOD tint: full detail keeps its colour, coarser levels go green,
// yellow, orange, red, purple; the impostor region (7 at most) is blue.
// `crowd::cull::LOD_TINTS` is its twin (the panel's key).
fn lod_tint(level: u32) -> vec4<f32> {
    let tints = array<vec4<f32>, 7>(
        vec4<f32>(1.0, 1.0, 1.0, 1.0),
        vec4<f32>(0.35, 1.0, 0.35, 1.0),
        vec4<f32>(1.0, 0.9, 0.2, 1.0),
        vec4<f32>(1.0, 0.55, 0.15, 1.0),
        vec4<f32>(1.0, 0.25, 0.25, 1.0),
        vec4<f32>(0.8, 0.3, 1.0, 1.0),
        vec4<f32>(0.2, 0.55, 1.0, 1.0),
    );
    return tints[min(level, 6u)];
}

// Which instance a draw's instance index stands for, at which level.
struct CrowdEntry {
    index: u32,
    level: u32,
    nearest: bool,
};

fn crowd_entry(instance: u32) -> CrowdEntry {
    var e: CrowdEntry;
    e.index = instance;
    e.level = 0u;
    e.nearest = false;
    if frame.culled != 0u {
        let entry = visible[instance];
        e.index = entry & 0x0fffffffu;
        e.level = (entry >> 28u) & 7u;
        e.nearest = (entry & 0x80000000u) != 0u;
    }
    return e;
}

// The posed, placed vertex: everything both entries share.
fn crowd_vertex(in: VertexIn, e: CrowdEntry) -> VertexOut {
    let inst = instances[e.index];
    var a = entry_state(e.index, inst);
    a.nearest = e.nearest;
    return finish_vertex(in, inst, a.place, pose(in.vertex, e.index, a));
}

// The vertex where the previous frame drew it, in that frame's unjittered
// clip space: the previous state (`entry_previous_state`), the technique's
// previous pose, the previous camera.
fn crowd_vertex_before(in: VertexIn, e: CrowdEntry, now: AnimState) -> vec4<f32> {
    let inst = instances[e.index];
    var before = entry_previous_state(e.index, inst);
    before.nearest = e.nearest;
    let s = previous_pose(in.vertex, e.index, before, now);
    return frame.previous_view_proj * vec4<f32>(placed_position(inst, before.place, s), 1.0);
}

@vertex
fn vs_main(in: VertexIn) -> VertexOut {
    let e = crowd_entry(in.instance);
    let inst = instances[e.index];
    var a = entry_state(e.index, inst);
    a.nearest = e.nearest;
    var out = finish_vertex(in, inst, a.place, pose(in.vertex, e.index, a));
    if frame.velocity != 0u {
        out.motion_before = crowd_vertex_before(in, e, a);
    }
    if frame.lod_tint != 0u {
        out.color = vec4<f32>(mix(vec3<f32>(0.85), lod_tint(e.level).rgb, 0.85), 1.0);
    }
    return out;
}

// The depth-only entry of the shadow pass: the same instance, animation and
// pose as `vs_main` (so the shadow gallops, crossfades and banks with the
// caster), seen from the sun by the cascade in `caster` (shadow.wgsl). The
// visible list is the cascade's own cull output.
@vertex
fn vs_shadow(in: VertexIn) -> @builtin(position) vec4<f32> {
    let out = crowd_vertex(in, crowd_entry(in.instance));
    return caster.view_proj * vec4<f32>(out.world_pos, 1.0);
}
