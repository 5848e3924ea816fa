// Linear blend skinning on the GPU, shared by the live-skinning and the
// bone-texture techniques: the per-vertex skin data and the blend.
// requires: pose
// `SkinVertex` is mirrored by `render::gpu_data::SkinVertex` (checked by
// tests/gpu_layout.rs); `skin_apply` is the twin of `skin::skin_range`
// (morph targets are not applied).

struct SkinVertex {
    // Bind-pose position and normal (mesh space, before the joint palette).
    position: vec3<f32>,
    // Joints 0 and 1 as two u16 (low half first).
    joints01: u32,
    normal: vec3<f32>,
    joints23: u32,
    weights: vec4<f32>,
};

@group(1) @binding(1) var<storage, read> skin_vertices: array<SkinVertex>;

// Palette index of influence `k` (0..3), clamped to the palette.
fn skin_joint(sv: SkinVertex, k: u32, joints: u32) -> u32 {
    let packed = select(sv.joints23, sv.joints01, k < 2u);
    let j = (packed >> (16u * (k & 1u))) & 0xffffu;
    return min(j, max(joints, 1u) - 1u);
}

// Applies a blended joint matrix (its three affine rows as the columns of
// `m`) to the bind-pose vertex. The normal goes through the cofactor matrix,
// like `skin::transform_normal`.
fn skin_apply(sv: SkinVertex, m: mat3x4<f32>) -> VatSample {
    let p = vec4<f32>(sv.position, 1.0);
    var s: VatSample;
    s.position = vec3<f32>(dot(m[0], p), dot(m[1], p), dot(m[2], p));
    let a = vec3<f32>(m[0].x, m[1].x, m[2].x);
    let b = vec3<f32>(m[0].y, m[1].y, m[2].y);
    let c = vec3<f32>(m[0].z, m[1].z, m[2].z);
    let bc = cross(b, c);
    let ca = cross(c, a);
    let ab = cross(a, b);
    let flip = select(1.0, -1.0, dot(a, bc) < 0.0);
    let n = (bc * sv.normal.x + ca * sv.normal.y + ab * sv.normal.z) * flip;
    let len = length(n);
    s.normal = select(vec3<f32>(0.0), n / len, len > 0.0);
    return s;
}
