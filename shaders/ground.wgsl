// The ground: a large quad under the crowd with procedural grass and, for
// each model whose crowd gallops around its field, a dirt ring track.
// requires: common shadow

// The rings (`crowd::tracks::GroundTracksGpu`): one per model on the track,
// at most one per model of the scene.
const GROUND_TRACKS: u32 = 8u;

struct GroundTracks {
    count: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    // xy = the field's centre (x, z), z = its radius, w = 1 when its model
    // joins the herd with behaviour on (its ring is then not drawn).
    rings: array<vec4<f32>, GROUND_TRACKS>,
};

@group(1) @binding(0) var<storage, read> tracks: GroundTracks;

struct GroundOut {
    @builtin(position) clip_pos: vec4<f32>,
    @location(0) world_pos: vec3<f32>,
};

@vertex
fn vs_main(@builtin(vertex_index) i: u32) -> GroundOut {
    // Two triangles, centred under the camera so the edge stays in the fog.
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, 1.0), vec2<f32>(-1.0, 1.0),
    );
    let extent = max(frame.field_radius * 8.0, length(frame.camera_pos.xyz) * 6.0);
    let c = corners[i] * extent + frame.camera_pos.xz;
    let world = vec3<f32>(c.x, frame.ground_y, c.y);
    var out: GroundOut;
    out.clip_pos = frame.view_proj * vec4<f32>(world, 1.0);
    out.world_pos = world;
    return out;
}

fn hash2(p: vec2<f32>) -> f32 {
    let q = fract(p * vec2<f32>(127.1, 311.7));
    return fract((q.x + q.y + q.x * q.y * 43.1) * 43758.5453);
}

fn value_noise(p: vec2<f32>) -> f32 {
    let i = floor(p);
    let f = fract(p);
    let u = f * f * (3.0 - 2.0 * f);
    let a = hash2(i);
    let b = hash2(i + vec2<f32>(1.0, 0.0));
    let c = hash2(i + vec2<f32>(0.0, 1.0));
    let d = hash2(i + vec2<f32>(1.0, 1.0));
    return mix(mix(a, b, u.x), mix(c, d, u.x), u.y);
}

@fragment
fn fs_main(in: GroundOut) -> @location(0) vec4<f32> {
    return ground_color(in);
}

// With the velocity target: the ground stands still, so its motion is the
// cameras' alone, from the point itself.
@fragment
fn fs_velocity(in: GroundOut) -> SceneOut {
    let p = vec4<f32>(in.world_pos, 1.0);
    let motion = screen_motion(frame.motion_view_proj * p, frame.previous_view_proj * p);
    return SceneOut(ground_color(in), motion);
}

fn ground_color(in: GroundOut) -> vec4<f32> {
    let size = max(frame.model_size, 1e-3);
    let p = in.world_pos.xz / size;
    let n = value_noise(p * 0.35) * 0.55 + value_noise(p * 1.7) * 0.3 + value_noise(p * 6.0) * 0.15;
    let grass_a = vec3<f32>(0.07, 0.15, 0.035);
    let grass_b = vec3<f32>(0.20, 0.29, 0.07);
    var albedo = mix(grass_a, grass_b, n);
    // The tracks the crowds run on: packed earth with soft edges. The
    // fields do not overlap; where two rings' edges would, the larger cover
    // wins. The twin of `GroundTracksGpu::drawn`.
    var track = 0.0;
    for (var k = 0u; k < min(tracks.count, GROUND_TRACKS); k++) {
        let ring = tracks.rings[k];
        if ring.w != 0.0 && frame.behaviour != 0u {
            continue;
        }
        let r = length(in.world_pos.xz - ring.xy) / max(ring.z, 1e-3);
        let inner = smoothstep(0.56, 0.6, r);
        let outer = 1.0 - smoothstep(1.02, 1.08, r);
        track = max(track, inner * outer);
    }
    if track > 0.0 {
        let dirt = mix(vec3<f32>(0.30, 0.22, 0.14), vec3<f32>(0.38, 0.29, 0.19), n);
        albedo = mix(albedo, dirt, track * 0.85);
    }
    let up = vec3<f32>(0.0, 1.0, 0.0);
    let sun = sun_shadow(in.world_pos, up);
    let lit = shadow_tint(shade(albedo, up, in.world_pos, sun.visibility), sun);
    return vec4<f32>(apply_fog(lit, in.world_pos), 1.0);
}
