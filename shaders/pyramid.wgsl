// The depth pyramid occlusion culling tests against (render::cull::pyramid):
// mip 0 is the farthest depth of each pixel's samples (every MSAA sample),
// mip m + 1 the farthest of the 2x2 texels of mip m it covers, clamped at
// the edge. Mip m is ceil(W / 2^m) x ceil(H / 2^m), so an odd width or
// height loses no texel: the trap a pyramid of floor-halved sizes falls
// into. The mips lie one after another in one storage buffer (no
// min/max sampler reduction needed, nor one view per mip). The CPU twin is
// `crowd::occlusion::Pyramid::reduce`.

struct PyramidStep {
    // The mip read (the depth's size for mip 0) and the mip written.
    src_size: vec2<u32>,
    dst_size: vec2<u32>,
    src_offset: u32,
    dst_offset: u32,
    _pad0: u32,
    _pad1: u32,
};

@group(0) @binding(0) var<uniform> step: PyramidStep;
@group(0) @binding(1) var<storage, read_write> mips: array<f32>;
@group(0) @binding(2) var depth: texture_depth_2d;
@group(0) @binding(3) var depth_msaa: texture_depth_multisampled_2d;

@compute @workgroup_size(8, 8)
fn cs_depth(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x >= step.dst_size.x || id.y >= step.dst_size.y {
        return;
    }
    let d = textureLoad(depth, vec2<i32>(id.xy), 0);
    mips[step.dst_offset + id.y * step.dst_size.x + id.x] = d;
}

@compute @workgroup_size(8, 8)
fn cs_depth_msaa(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x >= step.dst_size.x || id.y >= step.dst_size.y {
        return;
    }
    var far = 0.0;
    let samples = textureNumSamples(depth_msaa);
    for (var s = 0u; s < samples; s++) {
        far = max(far, textureLoad(depth_msaa, vec2<i32>(id.xy), i32(s)));
    }
    mips[step.dst_offset + id.y * step.dst_size.x + id.x] = far;
}

@compute @workgroup_size(8, 8)
fn cs_reduce(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x >= step.dst_size.x || id.y >= step.dst_size.y {
        return;
    }
    let last = step.src_size - 1u;
    let x0 = min(2u * id.x, last.x);
    let x1 = min(2u * id.x + 1u, last.x);
    let y0 = min(2u * id.y, last.y);
    let y1 = min(2u * id.y + 1u, last.y);
    let w = step.src_size.x;
    let at = step.src_offset;
    let far = max(
        max(mips[at + y0 * w + x0], mips[at + y0 * w + x1]),
        max(mips[at + y1 * w + x0], mips[at + y1 * w + x1]),
    );
    mips[step.dst_offset + id.y * step.dst_size.x + id.x] = far;
}
