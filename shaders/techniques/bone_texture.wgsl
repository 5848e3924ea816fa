// Baked bone texture ("animation instancing"): every frame's palette stored
// once (bones.wgsl); the vertex shader fetches the two neighbouring frames'
// four joint matrices, lerps and blends them.
// requires: skin bones behaviour

// The blended joint matrix of vertex `sv` for clip `clip_index` at clip
// time `t`: the lerp of the two neighbouring baked palettes (or the nearest
// when not interpolating).
fn bone_matrix(sv: SkinVertex, clip_index: u32, t: f32, interpolate: bool, joints: u32) -> mat3x4<f32> {
    let f = bone_frames(clip_index, t, interpolate);
    var m = mat3x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    for (var k = 0u; k < 4u; k++) {
        m += bone_frames_joint(f, skin_joint(sv, k, joints)) * sv.weights[k];
    }
    return m;
}

// Vertex `v` of clip `clip_index` at clip time `t`.
fn bone_vertex(v: u32, clip_index: u32, t: f32, interpolate: bool) -> VatSample {
    let sv = skin_vertices[v];
    let joints = textureDimensions(bone_texture).x / 3u;
    return skin_apply(sv, bone_matrix(sv, clip_index, t, interpolate, joints));
}

// The crossfade: the two clips' interpolated matrices blended by `weight`.
fn bone_vertex_blend(
    v: u32,
    previous: u32,
    previous_time: f32,
    clip: u32,
    time: f32,
    weight: f32,
    interpolate: bool,
) -> VatSample {
    let sv = skin_vertices[v];
    let joints = textureDimensions(bone_texture).x / 3u;
    let current = bone_matrix(sv, clip, time, interpolate, joints);
    if weight >= 1.0 {
        return skin_apply(sv, current);
    }
    let before = bone_matrix(sv, previous, previous_time, interpolate, joints);
    return skin_apply(sv, before * (1.0 - weight) + current * weight);
}

fn pose(vertex: u32, instance: u32, a: AnimState) -> VatSample {
    return bone_vertex_blend(
        vertex,
        a.previous,
        a.previous_time,
        a.clip,
        a.time,
        a.weight,
        frame.interpolate != 0u && !a.nearest,
    );
}
