// The cull pass's splat level (the camera's view with splats on): an
// impostor whose sphere's diameter projects to at most `max_px` pixels is
// written into the splat planes here, in the pass that placed it, and
// appended to no list. Its coverage is its model's mean cell coverage
// times the sphere's square in pixels, its colour the model's mean
// albedo times its tint. The twin is `crowd::splat::Splat::of`.
// The variant without splats is splat_off.wgsl, with the same function.
// requires: splat_common

struct SplatTarget {
    header: SplatHeader,
    // The full-screen pass's indirect draw: its vertex count is 3 once a
    // splat is written, else 0 (no pass over the screen for nothing).
    draw: array<atomic<u32>, 4>,
    // Each model's atlas sums (impostor_bounds.wgsl): red, green, blue,
    // coverage.
    sums: array<vec4<u32>, SPLAT_MODELS>,
    planes: array<atomic<u32>>,
};

@group(1) @binding(3) var<storage, read_write> splats: SplatTarget;

// The counter of instances drawn as splats (after the regions'
// arguments). Mirrored by `crowd::cull::SPLAT_WORD`.
const SPLAT_WORD: u32 = 6u;

// True when instance `i` of model `m` (culled to `bits`) is a splat: it is
// then written, or dropped when its centre is off the viewport.
fn splat_instance(bits: u32, m: u32, model: CullModel, centre: vec3<f32>, radius: f32, tint: u32) -> bool {
    if bits == CULLED || (bits >> 28u) != min(model.impostor_bits, 6u) {
        return false;
    }
    let h = splats.header;
    let size = diameter_px(centre, radius);
    if size > h.max_px {
        return false;
    }
    atomicAdd(&draw_args[cull.counter_word + SPLAT_WORD], 1u);
    let clip = frame.view_proj * vec4<f32>(centre, 1.0);
    let at = splat_pixel(h, clip);
    if at == NO_PIXEL {
        return true;
    }
    atomicMax(&splats.draw[0], 3u);
    let sums = vec4<f32>(splats.sums[min(m, SPLAT_MODELS - 1u)]);
    let coverage = sums.w * splat_stat_scale(h, m) * size * size;
    let albedo = sums.rgb / max(sums.w, 1.0) * unpack4x8unorm(tint).rgb;
    atomicMax(&splats.planes[at], splat_key(clip.z / clip.w, m));
    let p = h.pixels;
    atomicAdd(&splats.planes[p + at], u32(round(coverage * SPLAT_ONE)));
    let c = vec3<u32>(round(albedo * coverage * SPLAT_ONE));
    atomicAdd(&splats.planes[2u * p + at], c.r);
    atomicAdd(&splats.planes[3u * p + at], c.g);
    atomicAdd(&splats.planes[4u * p + at], c.b);
    return true;
}
