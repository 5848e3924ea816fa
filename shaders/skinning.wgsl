// Live bone-matrix skinning: the CPU samples every instance's palette each
// frame and uploads them all; the vertex shader blends four joints.
// Composed after technique.wgsl, skin.wgsl and crowd.wgsl.

// Instance after instance, joint after joint: three affine rows each
// (`bones::JointRows`).
@group(1) @binding(0) var<storage, read> palettes: array<vec4<f32>>;
@group(1) @binding(3) var<uniform> skin_info: SkinInfo;

// Vertex `v` of instance `instance`, skinned with that instance's palette.
fn skinned_vertex(v: u32, instance: u32) -> VatSample {
    let sv = skin_vertices[v];
    let joints = skin_info.joints;
    let base = instance * joints;
    var m = mat3x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    for (var k = 0u; k < 4u; k++) {
        let j = 3u * (base + skin_joint(sv, k, joints));
        let w = sv.weights[k];
        m[0] += palettes[j] * w;
        m[1] += palettes[j + 1u] * w;
        m[2] += palettes[j + 2u] * w;
    }
    return skin_apply(sv, m);
}

@vertex
fn vs_main(in: VertexIn) -> VertexOut {
    let inst = instances[in.instance];
    let clip = vat_clips[instance_clip(inst)];
    let s = skinned_vertex(in.vertex, in.instance);
    return finish_vertex(in, inst, clip, s);
}
