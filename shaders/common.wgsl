// Shared by every scene shader: the per-frame uniform, lighting and fog.
// `Frame` is mirrored by `crowd::FrameUniform` (tests/gpu_layout.rs checks
// every field's offset).

struct Frame {
    view_proj: mat4x4<f32>,
    inv_view_proj: mat4x4<f32>,
    // xyz = camera position.
    camera_pos: vec4<f32>,
    // xyz = unit direction towards the sun, w = intensity.
    sun_dir: vec4<f32>,
    sun_color: vec4<f32>,
    sky_zenith: vec4<f32>,
    sky_horizon: vec4<f32>,
    // Hemisphere ambient from below (grass bounce).
    ground_bounce: vec4<f32>,
    // x = fog density, y = fog start distance, z = height falloff.
    fog: vec4<f32>,
    // Scene seconds = time_hi + time_lo (`crowd::scene_time::split_time`):
    // time_hi is 0 below 256 s; reduce products with a rate by
    // `scene_cycles` (scene_time.wgsl), never by adding the two.
    time_hi: f32,
    time_lo: f32,
    playback: f32,
    spread: f32,
    field_radius: f32,
    // Clip for every instance, or 0xffffffff for each instance's own clip.
    clip: u32,
    interpolate: u32,
    // 0 = gallop around a track, 1 = fly in circles, 2 = stand still.
    motion: u32,
    // Multiplier on every clip's ground speed (1 = feet planted).
    stride: f32,
    // Model size (bounding-box diagonal) and the ground height.
    model_size: f32,
    ground_y: f32,
    instance_count: u32,
    clip_count: u32,
    // 1 = living crowd (the herd for horses, the flock for birds), 0 = the
    // synchronized loops of `place`.
    behaviour: u32,
    // Crossfade seconds.
    fade: f32,
    // The birds' flap and glide clips (behaviour on).
    flap_clip: u32,
    glide_clip: u32,
    // 1 = drawn from the cull pass's visible list (crowd_vertex.wgsl).
    culled: u32,
    // 1 = tint instances by their LOD level.
    lod_tint: u32,
    // The viewport's height in pixels.
    viewport_height: f32,
    // The velocity target's cameras: this frame's without the TAA jitter
    // (`view_proj` has it), and the previous frame's (also unjittered;
    // this frame's after a cut).
    motion_view_proj: mat4x4<f32>,
    previous_view_proj: mat4x4<f32>,
    // The previous frame's scene time, split as time_hi + time_lo (this
    // frame's after a time jump: no motion, never a smear).
    previous_time_hi: f32,
    previous_time_lo: f32,
    // The TAA jitter of `view_proj`, in pixels.
    jitter: vec2<f32>,
    // 1 = the scene pass writes the velocity target.
    velocity: u32,
    // 1 = the crowd is drawn from visible lists bound whole, which end
    // with the state the cull pass resolved (listed.wgsl).
    resolved: u32,
    _pad: vec2<u32>,
};

// What a scene pipeline writes with the velocity target.
struct SceneOut {
    @location(0) color: vec4<f32>,
    @location(1) velocity: vec2<f32>,
};

// A point's motion on screen from the previous frame to this one, from its
// clip positions in both frames' unjittered clip spaces: in UV units (x to
// the right, y down; multiply by the target's size for pixels). The twin
// of `render::motion::screen_motion`.
fn screen_motion(now: vec4<f32>, before: vec4<f32>) -> vec2<f32> {
    if abs(now.w) < 1e-6 || abs(before.w) < 1e-6 {
        return vec2<f32>(0.0);
    }
    let d = now.xy / now.w - before.xy / before.w;
    return vec2<f32>(0.5 * d.x, -0.5 * d.y);
}

// A read-only storage buffer, not a uniform buffer: lavapipe (Mesa 22.x)
// "inlines" uniform-buffer values that branches depend on (frame.behaviour,
// frame.motion, frame.clip, ...) by recompiling the shader at every pipeline
// bind without freeing the old variant: ~9 MB/s of growth at 20 fps.
// Storage-buffer loads are not inlined. The layout of `Frame` is the same.
@group(0) @binding(0) var<storage, read> frame: Frame;

// Directional sun with wrapped diffuse, hemisphere ambient and a little rim.
// `sun_seen` (0..1) is how much of the sun reaches the point (its shadow).
fn shade(albedo: vec3<f32>, n: vec3<f32>, world_pos: vec3<f32>, sun_seen: f32) -> vec3<f32> {
    let l = normalize(frame.sun_dir.xyz);
    let v = normalize(frame.camera_pos.xyz - world_pos);
    let ndl = max(dot(n, l), 0.0) * sun_seen;
    let sun = frame.sun_color.rgb * frame.sun_dir.w * ndl;
    let hemi = mix(frame.ground_bounce.rgb, frame.sky_zenith.rgb, n.y * 0.5 + 0.5);
    let h = normalize(l + v);
    let spec = pow(max(dot(n, h), 0.0), 32.0) * 0.08 * ndl;
    let rim = pow(1.0 - max(dot(n, v), 0.0), 3.0) * 0.15 * frame.sky_horizon.rgb;
    return albedo * (sun + hemi * 0.55) + vec3<f32>(spec) + rim * albedo;
}

// The sky colour in a view direction, also the colour fog fades to.
fn sky_color(dir: vec3<f32>) -> vec3<f32> {
    let d = normalize(dir);
    let up = clamp(d.y, -1.0, 1.0);
    var c = mix(frame.sky_horizon.rgb, frame.sky_zenith.rgb, pow(max(up, 0.0), 0.6));
    // Below the horizon: a hazy ground colour.
    c = mix(c, frame.sky_horizon.rgb * 0.85, smoothstep(0.0, -0.2, up));
    let l = normalize(frame.sun_dir.xyz);
    let s = max(dot(d, l), 0.0);
    c += frame.sun_color.rgb * (pow(s, 600.0) * 4.0 + pow(s, 12.0) * 0.25);
    return c;
}

// Distance fog towards the horizon colour, thinner with height.
fn apply_fog(color: vec3<f32>, world_pos: vec3<f32>) -> vec3<f32> {
    let to = world_pos - frame.camera_pos.xyz;
    let dist = max(length(to) - frame.fog.y, 0.0);
    let height = max(world_pos.y - frame.ground_y, 0.0);
    let density = frame.fog.x * exp(-height * frame.fog.z);
    let f = 1.0 - exp(-dist * density);
    return mix(color, sky_color(to) , clamp(f, 0.0, 1.0));
}

fn unpack_tint(c: u32) -> vec4<f32> {
    return unpack4x8unorm(c);
}
