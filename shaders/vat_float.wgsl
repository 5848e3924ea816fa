// The VAT fetch for the f16 and f32 precisions: positions and normals in
// two float texture arrays.
// requires: vat

@group(1) @binding(0) var vat_positions: texture_2d_array<f32>;
@group(1) @binding(1) var vat_normals: texture_2d_array<f32>;

fn vat_fetch(clip: VatClip, f: u32, v: u32) -> VatSample {
    let xy = vat_texel(clip, f, v);
    let layer = i32(clip.layer);
    var s: VatSample;
    s.position = textureLoad(vat_positions, xy, layer, 0).xyz;
    s.normal = textureLoad(vat_normals, xy, layer, 0).xyz;
    return s;
}
