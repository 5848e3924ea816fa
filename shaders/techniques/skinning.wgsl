// Live bone-matrix skinning: the CPU samples every instance's palette each
// frame and uploads them all; the vertex shader blends four joints.
// requires: skin behaviour

// Instance after instance, joint after joint: three affine rows each
// (`bones::JointRows`).
@group(1) @binding(0) var<storage, read> palettes: array<vec4<f32>>;
@group(1) @binding(3) var<uniform> skin_info: SkinInfo;

// The blended joint matrix of vertex `sv` from the palette starting at
// joint `base`.
fn palette_matrix(sv: SkinVertex, base: u32, joints: u32) -> mat3x4<f32> {
    var m = mat3x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    for (var k = 0u; k < 4u; k++) {
        let j = 3u * (base + skin_joint(sv, k, joints));
        let w = sv.weights[k];
        m[0] += palettes[j] * w;
        m[1] += palettes[j + 1u] * w;
        m[2] += palettes[j + 2u] * w;
    }
    return m;
}

// Vertex `v` of instance `instance`, skinned with that instance's palette.
fn skinned_vertex(v: u32, instance: u32) -> VatSample {
    let sv = skin_vertices[v];
    let joints = skin_info.joints;
    return skin_apply(sv, palette_matrix(sv, instance * joints, joints));
}

// Behaviour on: the CPU uploads two palettes per instance (the previous
// clip's, then the current one's); the blend weight comes from the GPU's
// `anim_state`, so the picture matches VAT's crossfade.
fn skinned_vertex_blend(v: u32, instance: u32, weight: f32) -> VatSample {
    let sv = skin_vertices[v];
    let joints = skin_info.joints;
    let base = 2u * instance * joints;
    let current = palette_matrix(sv, base + joints, joints);
    if weight >= 1.0 {
        return skin_apply(sv, current);
    }
    let previous = palette_matrix(sv, base, joints);
    return skin_apply(sv, previous * (1.0 - weight) + current * weight);
}

fn pose(vertex: u32, instance: u32, a: AnimState) -> VatSample {
    if frame.behaviour != 0u {
        return skinned_vertex_blend(vertex, instance, a.weight);
    }
    return skinned_vertex(vertex, instance);
}
