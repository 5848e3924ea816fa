// The splat level drawn: one full-screen triangle over the scene, after
// its crowd and ground, reading the planes the cull pass wrote
// (splat_common.wgsl). A pixel with splats shows their mean albedo, lit
// with an upward normal (of up, towards the camera and between the two,
// the one whose far crowd came nearest to the meshes' picture,
// tests/splat_gpu.rs) and fogged where the nearest splat is, at its depth
// (so the scene's depth test keeps a nearer horse in front). The coverage of overlapping splats adds as
// independent ones: 1 - exp(-sum), and the pass blends by it over what the
// scene drew, with MSAA or without, so that a pixel shows the share of a
// horse it holds: alpha to coverage rounds a splat's few hundredths of a
// pixel to a whole sample or none (it doubled the crowd's darkening in the
// far field), and an alpha test at a half drops nearly every splat.
// requires: common shadow splat_common fullscreen

struct SplatFrame {
    header: SplatHeader,
    draw: array<u32, 4>,
    sums: array<vec4<u32>, SPLAT_MODELS>,
    planes: array<u32>,
};

@group(1) @binding(0) var<storage, read> splats: SplatFrame;

struct SplatOut {
    @location(0) color: vec4<f32>,
    @builtin(frag_depth) depth: f32,
};

struct SplatVelocityOut {
    @location(0) color: vec4<f32>,
    @location(1) velocity: vec2<f32>,
    @builtin(frag_depth) depth: f32,
};

struct SplatShade {
    color: vec4<f32>,
    depth: f32,
    world: vec3<f32>,
};

// The coverage a pixel's summed splats show (the twin of
// `crowd::splat::pixel_alpha`).
fn splat_alpha(sum: f32) -> f32 {
    return 1.0 - exp(-sum);
}

fn splat_shade(position: vec4<f32>) -> SplatShade {
    let h = splats.header;
    let px = vec2<u32>(position.xy);
    let at = px.y * h.width + px.x;
    let key = splats.planes[at];
    if key == 0u {
        discard;
    }
    let p = h.pixels;
    let coverage = f32(splats.planes[p + at]);
    let alpha = splat_alpha(coverage / SPLAT_ONE);
    if alpha < 1.0 / 512.0 {
        discard;
    }
    var albedo = vec3<f32>(
        f32(splats.planes[2u * p + at]),
        f32(splats.planes[3u * p + at]),
        f32(splats.planes[4u * p + at]),
    ) / coverage;
    if frame.lod_tint != 0u {
        albedo = vec3<f32>(1.0, 0.35, 0.8);
    }
    let depth = splat_key_depth(key);
    let v = h.viewport;
    let ndc = vec2<f32>(
        (position.x - v.x) / v.z * 2.0 - 1.0,
        1.0 - (position.y - v.y) / v.w * 2.0,
    );
    // The pixel's point on the near plane, then along its ray to the
    // splats' view depth.
    let on_near = frame.inv_view_proj * vec4<f32>(ndc, 0.0, 1.0);
    let eye = frame.camera_pos.xyz;
    let world = eye + (on_near.xyz / on_near.w - eye) * (splat_key_view_depth(h, key) / h.planes.x);
    let n = vec3<f32>(0.0, 1.0, 0.0);
    let sun = sun_shadow(world, n);
    let lit = shadow_tint(shade(albedo, n, world, sun.visibility), sun);
    var out: SplatShade;
    out.color = vec4<f32>(apply_fog(lit, world), alpha);
    out.depth = depth;
    out.world = world;
    return out;
}

@fragment
fn fs_splat(@builtin(position) position: vec4<f32>) -> SplatOut {
    let s = splat_shade(position);
    return SplatOut(s.color, s.depth);
}

// With the velocity target: the camera's motion at the splat (a splat is
// under a pixel, its own motion under a pixel a frame).
@fragment
fn fs_splat_velocity(@builtin(position) position: vec4<f32>) -> SplatVelocityOut {
    let s = splat_shade(position);
    let now = frame.motion_view_proj * vec4<f32>(s.world, 1.0);
    let before = frame.previous_view_proj * vec4<f32>(s.world, 1.0);
    return SplatVelocityOut(s.color, screen_motion(now, before), s.depth);
}
