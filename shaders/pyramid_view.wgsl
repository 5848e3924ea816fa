// The depth pyramid's debug view (render::cull::pyramid_view): one mip of
// the pyramid over the whole picture, each texel as large as the pixels it
// covers: near is bright, far dark, nothing drawn (depth 1) black and
// tinted blue so the holes show.
// requires: fullscreen

struct PyramidView {
    // The pyramid's mip 0 (the depth's size), the mip shown and where it
    // starts in `mips`.
    size: vec2<u32>,
    mip: u32,
    offset: u32,
};

@group(0) @binding(0) var<uniform> view: PyramidView;
@group(0) @binding(1) var<storage, read> mips: array<f32>;

@fragment
fn fs_main(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    let w = ((view.size.x - 1u) >> view.mip) + 1u;
    let h = ((view.size.y - 1u) >> view.mip) + 1u;
    let t = min(vec2<u32>(p.xy) >> vec2<u32>(view.mip), vec2<u32>(w - 1u, h - 1u));
    let d = mips[view.offset + t.y * w + t.x];
    if d >= 1.0 {
        return vec4<f32>(0.0, 0.0, 0.12, 1.0);
    }
    let g = 1.0 - pow(d, 32.0);
    return vec4<f32>(g, g, g, 1.0);
}
