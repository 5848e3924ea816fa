// The sky: a full-screen triangle at the far plane, drawn after the scene
// where nothing else was.
// requires: common

struct SkyOut {
    @builtin(position) clip_pos: vec4<f32>,
    @location(0) ndc: vec2<f32>,
};

@vertex
fn vs_main(@builtin(vertex_index) i: u32) -> SkyOut {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    let ndc = uv * 2.0 - 1.0;
    var out: SkyOut;
    out.clip_pos = vec4<f32>(ndc, 1.0, 1.0);
    out.ndc = ndc;
    return out;
}

fn sky_dir(in: SkyOut) -> vec3<f32> {
    let far = frame.inv_view_proj * vec4<f32>(in.ndc, 1.0, 1.0);
    let near = frame.inv_view_proj * vec4<f32>(in.ndc, 0.0, 1.0);
    return far.xyz / far.w - near.xyz / near.w;
}

@fragment
fn fs_main(in: SkyOut) -> @location(0) vec4<f32> {
    return vec4<f32>(sky_color(sky_dir(in)), 1.0);
}

// With the velocity target: the sky is infinitely far, so only the
// cameras' turn moves it (a direction, w = 0, through both).
@fragment
fn fs_velocity(in: SkyOut) -> SceneOut {
    let d = vec4<f32>(normalize(sky_dir(in)), 0.0);
    let motion = screen_motion(frame.motion_view_proj * d, frame.previous_view_proj * d);
    return SceneOut(vec4<f32>(sky_color(d.xyz), 1.0), motion);
}
