// requires: pose
// Vertex animation texture sampling: the one function every VAT path and
// the GPU correctness tests use. The texel fetch, `vat_fetch(clip, frame,
// vertex) -> VatSample`, comes from the precision's file: vat_float.wgsl
// (f16/f32: a position and a normal texture) or vat_packed.wgsl (one
// 8-byte texel, decoded).

// Texel of vertex `v` (of the scene's vertex stream) in stored frame `f`:
// the clip's model's own vertex `v - vertex_base`, whose row wraps every
// `width` vertices.
fn vat_texel(clip: VatClip, f: u32, v: u32) -> vec2<i32> {
    let local = v - clip.vertex_base;
    let row = clip.first_row + f * clip.rows_per_frame + local / clip.width;
    return vec2<i32>(i32(local % clip.width), i32(row));
}

// Position and normal of vertex `v` of clip `clip_index` at clip time `t`,
// lerped between the two neighbouring stored frames (or the nearest frame
// when `interpolate` is false).
fn vat_sample(v: u32, clip_index: u32, t: f32, interpolate: bool) -> VatSample {
    let clip = vat_clips[clip_index];
    let frame = vat_frame(clip, t);
    let last = clip.frame_count - 1u;
    if !interpolate {
        return vat_fetch(clip, min(u32(frame + 0.5), last), v);
    }
    let f0 = min(u32(floor(frame)), last);
    let f1 = min(f0 + 1u, last);
    let w = frame - f32(f0);
    let a = vat_fetch(clip, f0, v);
    let b = vat_fetch(clip, f1, v);
    var s: VatSample;
    s.position = mix(a.position, b.position, w);
    s.normal = mix(a.normal, b.normal, w);
    return s;
}

// The crossfade: vertex `v` of clip `previous` at `previous_time` blended
// into clip `clip` at `time` with `weight` (1 = only `clip`). Positions lerp;
// normals lerp, then renormalize. A settled instance (weight 1) fetches
// only one clip.
fn vat_sample_blend(
    v: u32,
    previous: u32,
    previous_time: f32,
    clip: u32,
    time: f32,
    weight: f32,
    interpolate: bool,
) -> VatSample {
    let b = vat_sample(v, clip, time, interpolate);
    if weight >= 1.0 {
        return b;
    }
    let a = vat_sample(v, previous, previous_time, interpolate);
    var s: VatSample;
    s.position = mix(a.position, b.position, weight);
    let n = mix(a.normal, b.normal, weight);
    let len = length(n);
    s.normal = select(b.normal, n / len, len > 1e-6);
    return s;
}
