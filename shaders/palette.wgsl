// Joint palettes sampled on the CPU every frame, shared by the live-skinning
// and the compute-skinning techniques: instance after instance, joint after
// joint, three affine rows each (`bones::JointRows`).
// requires: skin

@group(1) @binding(0) var<storage, read> palettes: array<vec4<f32>>;

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

// Vertex `v` of the instance whose palettes start at palette `palette`
// (two palettes per instance with a crossfade: the previous clip's, then
// the current one's, blended by `weight`; one without).
fn palette_vertex(v: u32, palette: u32, blend: bool, weight: f32, joints: u32) -> VatSample {
    let sv = skin_vertices[v];
    if !blend {
        return skin_apply(sv, palette_matrix(sv, palette * joints, joints));
    }
    let base = 2u * palette * joints;
    let current = palette_matrix(sv, base + joints, joints);
    if weight >= 1.0 {
        return skin_apply(sv, current);
    }
    let previous = palette_matrix(sv, base, joints);
    return skin_apply(sv, previous * (1.0 - weight) + current * weight);
}

// The previous frame's palettes (the velocity target's previous pose),
// laid out as `palettes`, for instances below `skin_info.previous`.
@group(1) @binding(12) var<storage, read> previous_palettes: array<vec4<f32>>;

// `palette_matrix` over the previous frame's palettes (a twin, not a flag:
// the skin pass must not bind them).
fn previous_palette_matrix(sv: SkinVertex, base: u32, joints: u32) -> mat3x4<f32> {
    var m = mat3x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    for (var k = 0u; k < 4u; k++) {
        let j = 3u * (base + skin_joint(sv, k, joints));
        let w = sv.weights[k];
        m[0] += previous_palettes[j] * w;
        m[1] += previous_palettes[j + 1u] * w;
        m[2] += previous_palettes[j + 2u] * w;
    }
    return m;
}

// `palette_vertex` as the previous frame drew it (its palettes, its blend
// weight).
fn previous_palette_vertex(v: u32, palette: u32, blend: bool, weight: f32, joints: u32) -> VatSample {
    let sv = skin_vertices[v];
    if !blend {
        return skin_apply(sv, previous_palette_matrix(sv, palette * joints, joints));
    }
    let base = 2u * palette * joints;
    let current = previous_palette_matrix(sv, base + joints, joints);
    if weight >= 1.0 {
        return skin_apply(sv, current);
    }
    let previous = previous_palette_matrix(sv, base, joints);
    return skin_apply(sv, previous * (1.0 - weight) + current * weight);
}
