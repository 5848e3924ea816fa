// Motion blur from the velocity target (render::post::taa, after TAA's
// resolve): each pixel averages the resolved picture along its own motion,
// half a frame either side (a 180° shutter), at most `MAX_BLUR_PX` pixels
// long; a still pixel keeps the resolve's output. `BlurParams` is mirrored
// by `render::post::taa::BlurUniform` (tests/gpu_layout.rs).
// requires: fullscreen

struct BlurParams {
    // The scene's viewport size (pixels), what the UV motion is relative to.
    viewport: vec2<f32>,
    // The target's size in pixels.
    size: vec2<f32>,
};

const BLUR_TAPS: i32 = 8;
const MAX_BLUR_PX: f32 = 32.0;
// The shutter: the share of a frame's motion the blur spans.
const SHUTTER: f32 = 0.5;

@group(0) @binding(0) var resolved: texture_2d<f32>;
@group(0) @binding(1) var blur_velocity: texture_2d<f32>;
@group(0) @binding(2) var<uniform> blur: BlurParams;

@fragment
fn fs_main(@builtin(position) frag: vec4<f32>) -> @location(0) vec4<f32> {
    let p = vec2<i32>(frag.xy);
    let last = vec2<i32>(blur.size) - 1;
    var span = textureLoad(blur_velocity, p, 0).xy * blur.viewport * SHUTTER;
    let len = length(span);
    if len < 0.5 {
        // Still: the resolve's own output stays (the history is f16).
        discard;
    }
    span *= min(len, MAX_BLUR_PX) / len;
    var sum = vec3<f32>(0.0);
    for (var k = 0; k < BLUR_TAPS; k++) {
        let t = (f32(k) + 0.5) / f32(BLUR_TAPS) - 0.5;
        let q = clamp(vec2<i32>(frag.xy + span * t), vec2<i32>(0), last);
        sum += textureLoad(resolved, q, 0).rgb;
    }
    return vec4<f32>(sum / f32(BLUR_TAPS), 1.0);
}
