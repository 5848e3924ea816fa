// Cascaded sun shadows. The receivers (the crowd's and the ground's
// fragments) look up how much sun reaches a point (`sun_shadow`: the first
// cascade whose map holds it, 3x3 filtered comparisons); the casters are
// drawn by `vs_shadow` (crowd_vertex.wgsl) with the cascade's view in
// `caster`. `Shadows` is mirrored by `crowd::shadow::ShadowUniform` and
// `Caster` by `crowd::shadow::CasterUniform` (tests/gpu_layout.rs).
// requires: common

struct Shadows {
    // World to the light's clip space, per cascade.
    cascades: array<mat4x4<f32>, 4>,
    // World size of one texel, per cascade.
    texel: vec4<f32>,
    count: u32,
    // 0 = everything fully lit.
    enabled: u32,
    // 1 = tint receivers by cascade.
    tint: u32,
    // Texels on a side of each map.
    resolution: f32,
    // Camera distances where shadows start fading out and end (the shadow
    // distance); both 0: no fade.
    fade: vec2<f32>,
    _pad: vec2<u32>,
    // The view depth where each cascade's slice ends.
    splits: vec4<f32>,
    // xyz = the camera's forward.
    forward: vec4<f32>,
};

struct Caster {
    view_proj: mat4x4<f32>,
};

// Storage, not uniform, for the reason `frame` is (common.wgsl): the
// receivers branch on these values.
@group(0) @binding(1) var<storage, read> shadows: Shadows;
@group(0) @binding(2) var shadow_map: texture_depth_2d_array;
@group(0) @binding(3) var shadow_sampler: sampler_comparison;
// The cascade being drawn (only multiplied by, never branched on).
@group(0) @binding(4) var<uniform> caster: Caster;

struct SunShadow {
    // 0 = in full shadow, 1 = in full sun.
    visibility: f32,
    // The cascade that decided, or 4 when none holds the point.
    cascade: u32,
};

// Map coordinates (u, v, depth) of a world point in cascade `i`.
fn cascade_coords(i: u32, p: vec3<f32>) -> vec3<f32> {
    let c = shadows.cascades[i] * vec4<f32>(p, 1.0);
    return vec3<f32>(c.x * 0.5 + 0.5, 0.5 - c.y * 0.5, c.z);
}

// Percentage-closer filtering: nine bilinear comparisons a texel apart.
fn shadow_pcf(i: u32, c: vec3<f32>) -> f32 {
    let step = 1.0 / shadows.resolution;
    var lit = 0.0;
    for (var y = -1; y <= 1; y++) {
        for (var x = -1; x <= 1; x++) {
            let uv = c.xy + vec2<f32>(f32(x), f32(y)) * step;
            lit += textureSampleCompareLevel(shadow_map, shadow_sampler, uv, i32(i), c.z);
        }
    }
    return lit / 9.0;
}

// How much sun reaches `world_pos` on a surface facing `n`, from the
// cascade whose slice of the view holds it (by its depth along the
// camera's forward; the next one if the point falls off that map). The
// point is
// pushed off the surface by about a texel of its cascade (more where the
// sun grazes it) and compared a little closer to the light, so surfaces do
// not shadow themselves (acne) while a hoof on the ground still meets its
// shadow (no peter-panning).
fn sun_shadow(world_pos: vec3<f32>, n: vec3<f32>) -> SunShadow {
    var s: SunShadow;
    s.visibility = 1.0;
    s.cascade = 4u;
    if shadows.enabled == 0u {
        return s;
    }
    // Past the shadow distance: no shadows (faded out before it).
    var fade = 0.0;
    if shadows.fade.y > 0.0 {
        let d = length(world_pos - frame.camera_pos.xyz);
        if d >= shadows.fade.y {
            return s;
        }
        fade = smoothstep(shadows.fade.x, shadows.fade.y, d);
    }
    let l = normalize(frame.sun_dir.xyz);
    let cos_l = clamp(dot(n, l), 0.0, 1.0);
    let sin_l = sqrt(1.0 - cos_l * cos_l);
    let margin = 1.5 / shadows.resolution;
    let depth = dot(world_pos - frame.camera_pos.xyz, shadows.forward.xyz);
    var first = 0u;
    for (var i = 0u; i + 1u < min(shadows.count, 4u); i++) {
        if depth >= shadows.splits[i] {
            first = i + 1u;
        }
    }
    for (var i = first; i < min(shadows.count, 4u); i++) {
        let texel = shadows.texel[i];
        let p = world_pos + n * texel * (0.6 + 1.4 * sin_l);
        let c = cascade_coords(i, p);
        if all(c.xy > vec2<f32>(margin)) && all(c.xy < vec2<f32>(1.0 - margin)) && c.z < 1.0 {
            // Half a texel in world units, in this cascade's depth units.
            let m = shadows.cascades[i];
            let bias = 0.5 * texel * length(vec3<f32>(m[0][2], m[1][2], m[2][2]));
            s.visibility = mix(shadow_pcf(i, vec3<f32>(c.xy, c.z - bias)), 1.0, fade);
            s.cascade = i;
            return s;
        }
    }
    return s;
}

// The cascade debug tint: red, green, blue, yellow; no tint outside.
fn shadow_tint(color: vec3<f32>, s: SunShadow) -> vec3<f32> {
    if shadows.tint == 0u || s.cascade >= 4u {
        return color;
    }
    let tints = array<vec3<f32>, 4>(
        vec3<f32>(1.0, 0.45, 0.45),
        vec3<f32>(0.45, 1.0, 0.45),
        vec3<f32>(0.5, 0.6, 1.0),
        vec3<f32>(1.0, 1.0, 0.4),
    );
    return color * tints[s.cascade];
}
