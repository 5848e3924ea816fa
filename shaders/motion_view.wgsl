// The velocity target's debug view (render::post::motion_view): each
// pixel's motion since the previous frame as a colour, its direction the
// hue and its length the brightness (full at `view.full_px` pixels), still
// pixels black.
// requires: fullscreen

struct MotionViewParams {
    // The scene's viewport size (pixels), what the UV motion is relative to.
    viewport: vec2<f32>,
    full_px: f32,
    _pad: f32,
};

@group(0) @binding(0) var velocity: texture_2d<f32>;
@group(0) @binding(1) var<uniform> view: MotionViewParams;

fn hue(h: f32) -> vec3<f32> {
    let k = vec3<f32>(0.0, 2.0 / 3.0, 1.0 / 3.0);
    return clamp(abs(fract(h + k) * 6.0 - 3.0) - 1.0, vec3<f32>(0.0), vec3<f32>(1.0));
}

@fragment
fn fs_main(@builtin(position) frag: vec4<f32>) -> @location(0) vec4<f32> {
    let v = textureLoad(velocity, vec2<i32>(frag.xy), 0).xy * view.viewport;
    let len = length(v);
    if len < 1e-3 {
        return vec4<f32>(0.0, 0.0, 0.0, 1.0);
    }
    let angle = atan2(v.y, v.x) / 6.2831853 + 0.5;
    let bright = clamp(len / max(view.full_px, 1e-3), 0.05, 1.0);
    return vec4<f32>(hue(angle) * bright, 1.0);
}
