// The VAT fetch for the packed precision: one Rgba16Uint texel per vertex
// per frame. xyz = the position quantized to 16 bits per axis inside the
// bake's bounds; w = the unit normal, octahedral, u in the low byte and v in
// the high byte. The twin of `vat::packed::decode` (tests/vat_gpu.rs runs
// both on every texel of a bake).
// requires: vat

// Mirrored by `render::gpu_data::VatPackingGpu` (tests/gpu_layout.rs).
struct VatPacking {
    // xyz = the bounds' minimum.
    min: vec4<f32>,
    // xyz = (max - min) / 65535: model units per quantization step.
    step: vec4<f32>,
};

@group(1) @binding(0) var vat_packed: texture_2d_array<u32>;
// Read-only storage, not uniform: on lavapipe a uniform block read by the
// decode cost the packed VAT about a third more time per frame than the
// same values in a storage buffer (tests/gpu_layout.rs checks the layout).
@group(1) @binding(1) var<storage, read> vat_packing: VatPacking;

// A byte b of the octahedral code means max((b - 128) / 127, -1).
fn vat_oct_component(b: u32) -> f32 {
    return max((f32(b) - 128.0) / 127.0, -1.0);
}

fn vat_decode_normal(code: u32) -> vec3<f32> {
    let u = vat_oct_component(code & 0xffu);
    let v = vat_oct_component(code >> 8u);
    var n = vec3<f32>(u, v, 1.0 - abs(u) - abs(v));
    let t = max(-n.z, 0.0);
    n.x += select(t, -t, n.x >= 0.0);
    n.y += select(t, -t, n.y >= 0.0);
    return normalize(n);
}

fn vat_fetch(clip: VatClip, f: u32, v: u32) -> VatSample {
    let q = textureLoad(vat_packed, vat_texel(clip, f, v), i32(clip.layer), 0);
    var s: VatSample;
    s.position = vat_packing.min.xyz + vec3<f32>(q.xyz) * vat_packing.step.xyz;
    s.normal = vat_decode_normal(q.w);
    return s;
}
