// The one crowd vertex entry every technique's pipeline runs: it places the
// instance (`anim_state`: where it is, which clips at which times and
// weight) and asks the technique's pose hook for the vertex in model space.
// Each technique's file under techniques/ defines
//     fn pose(vertex: u32, instance: u32, anim: AnimState) -> VatSample
// and the crowd module of a technique is this file plus that one.
// requires: crowd behaviour

// The cull pass's visible list (render::cull), read when `frame.culled` is
// 1: each entry is an instance index (low 28 bits), its LOD level (bits 28
// and 29) and the nearest-frame flag (bit 31). Bound with the level's
// region offset, or whole with the region's start as the first instance.
@group(3) @binding(0) var<storage, read> visible: array<u32>;

// The LOD tint: full detail keeps its colour, coarser levels go green,
// yellow, red.
fn lod_tint(level: u32) -> vec4<f32> {
    let tints = array<vec4<f32>, 4>(
        vec4<f32>(1.0, 1.0, 1.0, 1.0),
        vec4<f32>(0.35, 1.0, 0.35, 1.0),
        vec4<f32>(1.0, 0.9, 0.2, 1.0),
        vec4<f32>(1.0, 0.3, 0.25, 1.0),
    );
    return tints[min(level, 3u)];
}

@vertex
fn vs_main(in: VertexIn) -> VertexOut {
    var index = in.instance;
    var level = 0u;
    var nearest = false;
    if frame.culled != 0u {
        let entry = visible[in.instance];
        index = entry & 0x0fffffffu;
        level = entry >> 28u & 3u;
        nearest = (entry & 0x80000000u) != 0u;
    }
    let inst = instances[index];
    var a = anim_state(index, inst);
    a.nearest = nearest;
    var out = finish_vertex(in, inst, a.place, pose(in.vertex, index, a));
    if frame.lod_tint != 0u {
        out.color = vec4<f32>(mix(vec3<f32>(0.85), lod_tint(level).rgb, 0.85), 1.0);
    }
    return out;
}
