// One mip level of the impostor atlas from the level above: each texel
// the mean of the four it covers (a bilinear sample at their shared
// corner). The atlas is premultiplied by coverage, so the mean is right
// at silhouettes too. Cells are a power of two on a side, so a texel never
// mixes two cells. The level above is bound as every layer (GL samples
// no other layer of an array bound as 2D than the first), `mip_layer`
// says which.

struct MipLayer {
    layer: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
};

@group(0) @binding(0) var mip_albedo: texture_2d_array<f32>;
@group(0) @binding(1) var mip_normal_depth: texture_2d_array<f32>;
@group(0) @binding(2) var mip_sampler: sampler;
@group(0) @binding(3) var<uniform> mip_layer: MipLayer;

struct MipOut {
    @builtin(position) clip_pos: vec4<f32>,
    @location(0) uv: vec2<f32>,
};

@vertex
fn vs_mip(@builtin(vertex_index) i: u32) -> MipOut {
    // One triangle covering the target.
    let xy = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    var out: MipOut;
    out.clip_pos = vec4<f32>(xy * 2.0 - 1.0, 0.0, 1.0);
    out.uv = vec2<f32>(xy.x, 1.0 - xy.y);
    return out;
}

struct MipTargets {
    @location(0) albedo: vec4<f32>,
    @location(1) normal_depth: vec4<f32>,
};

@fragment
fn fs_mip(in: MipOut) -> MipTargets {
    var out: MipTargets;
    let layer = mip_layer.layer;
    out.albedo = textureSampleLevel(mip_albedo, mip_sampler, in.uv, layer, 0.0);
    out.normal_depth = textureSampleLevel(mip_normal_depth, mip_sampler, in.uv, layer, 0.0);
    return out;
}
