// The splat level below the impostors: an instance whose bounding sphere
// projects under `max_px` pixels is no quad at all. The cull pass
// (splat.wgsl) writes it into per-pixel planes with 32-bit atomics, and one
// full-screen pass (splat_resolve.wgsl) draws the planes into the scene
// with a depth test, drawn indirectly: not at all when no splat was
// written. The planes, `pixels` words each, pixel (x, y) at
// y * width + x:
//   0: the nearest splat's key, by atomicMax: (DEPTH_MAX - depth24) << 8
//      | its model + 1 (0 = no splat). depth24 is the NDC depth rounded up
//      to 24 bits (never nearer than the splat: 6e-8 of depth, the step of
//      Depth32Float just below 1, where far splats are);
//   1: the splats' coverage summed, in 1/SPLAT_ONE of a pixel;
//   2, 3, 4: their albedo times coverage summed (red, green, blue).
// `SplatHeader` is mirrored by `crowd::splat::SplatHeader` and the
// functions here are the twins of `crowd::splat`'s (tests/gpu_layout.rs,
// tests/splat_gpu.rs).

struct SplatHeader {
    // The scene's viewport in the target's pixels: x, y, width, height.
    viewport: vec4<f32>,
    // The target's size in pixels (the planes' rows).
    width: u32,
    height: u32,
    // The largest sphere diameter, in pixels, drawn as a splat.
    max_px: f32,
    // Words in a plane (width × height).
    pixels: u32,
    // Model m's 1 / (cells × STAT_ONE) at [m / 4][m % 4]: its sums over
    // that are the means over every cell of its atlas.
    stat_scale: array<vec4<f32>, 2>,
    // The camera's near and far planes (x, y): where a pixel's splats are
    // is found from the key's depth without inverting a projection near
    // depth 1, where f32 cancels.
    planes: vec4<f32>,
};

// Models a splat target holds sums for (crowd.wgsl's MAX_SCENE_MODELS).
const SPLAT_MODELS: u32 = 8u;
// Planes after the header and the models' sums.
const SPLAT_PLANES: u32 = 5u;
// Fixed point of the coverage and colour planes.
const SPLAT_ONE: f32 = 65536.0;
// Fixed point of the atlas's sums (impostor_bounds.wgsl).
const STAT_ONE: f32 = 4096.0;
const SPLAT_DEPTH_MAX: u32 = 0xffffffu;
const NO_PIXEL: u32 = 0xffffffffu;

// The pixel a clip-space point falls on (the rasterizer's rule: the pixel
// whose square holds it), or NO_PIXEL outside the viewport or the depth
// range. The twin of `crowd::splat::pixel_of`.
fn splat_pixel(h: SplatHeader, clip: vec4<f32>) -> u32 {
    if clip.w <= 0.0 {
        return NO_PIXEL;
    }
    let ndc = clip.xyz / clip.w;
    let x = h.viewport.x + (ndc.x * 0.5 + 0.5) * h.viewport.z;
    let y = h.viewport.y + (0.5 - ndc.y * 0.5) * h.viewport.w;
    let inside = x >= h.viewport.x && x < h.viewport.x + h.viewport.z
        && y >= h.viewport.y && y < h.viewport.y + h.viewport.w
        && x < f32(h.width) && y < f32(h.height)
        && ndc.z >= 0.0 && ndc.z <= 1.0;
    if !inside {
        return NO_PIXEL;
    }
    return u32(y) * h.width + u32(x);
}

// The key of a splat at NDC `depth` of model `model`: nearer is larger.
// The twin of `crowd::splat::depth_key`.
fn splat_key(depth: f32, model: u32) -> u32 {
    let d = min(u32(ceil(clamp(depth, 0.0, 1.0) * f32(SPLAT_DEPTH_MAX))), SPLAT_DEPTH_MAX);
    return ((SPLAT_DEPTH_MAX - d) << 8u) | (min(model, 254u) + 1u);
}

// The NDC depth a key holds (never nearer than the splat's).
fn splat_key_depth(key: u32) -> f32 {
    return f32(SPLAT_DEPTH_MAX - (key >> 8u)) / f32(SPLAT_DEPTH_MAX);
}

// The view depth (along the camera's axis) a key holds, from 1 - depth,
// which the key holds exactly (the twin of `crowd::splat::key_view_depth`).
fn splat_key_view_depth(h: SplatHeader, key: u32) -> f32 {
    let near = h.planes.x;
    let far = h.planes.y;
    let rest = f32(key >> 8u) / f32(SPLAT_DEPTH_MAX);
    return far * near / (near + (far - near) * rest);
}

// Model m's scale of its sums.
fn splat_stat_scale(h: SplatHeader, m: u32) -> f32 {
    return h.stat_scale[m / 4u][m % 4u];
}
