// Temporal anti-aliasing's resolve (render::post::taa): this frame's
// jittered colour blended with the history, reprojected by the velocity
// target and clipped to this frame's 3×3 neighbourhood in YCoCg, so what
// moved or appeared is not smeared (ghosting) and what stands still
// converges to its supersampled picture. Writes the output and the next
// history. `TaaParams` is mirrored by `render::post::taa::TaaUniform`
// (tests/gpu_layout.rs).
// requires: fullscreen

struct TaaParams {
    // The scene's viewport in the target: x, y, width, height (pixels).
    viewport: vec4<f32>,
    // The target's size in pixels.
    size: vec2<f32>,
    // The current frame's least weight (the history's longest memory).
    blend: f32,
    // Frames accumulated in the history (0 = none: take this frame).
    frames: u32,
};

@group(0) @binding(0) var scene_color: texture_2d<f32>;
@group(0) @binding(1) var scene_velocity: texture_2d<f32>;
@group(0) @binding(2) var history: texture_2d<f32>;
@group(0) @binding(3) var history_sampler: sampler;
@group(0) @binding(4) var<uniform> taa: TaaParams;
// The previous frame's velocity target: where the history's own point went
// (a different motion there than here is a disocclusion).
@group(0) @binding(5) var previous_velocity: texture_2d<f32>;

fn to_ycocg(c: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(
        0.25 * c.r + 0.5 * c.g + 0.25 * c.b,
        0.5 * c.r - 0.5 * c.b,
        -0.25 * c.r + 0.5 * c.g - 0.25 * c.b,
    );
}

fn from_ycocg(c: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(c.x + c.y - c.z, c.x + c.z, c.x - c.y - c.z);
}

fn load_color(p: vec2<i32>) -> vec3<f32> {
    let last = vec2<i32>(taa.size) - 1;
    return textureLoad(scene_color, clamp(p, vec2<i32>(0), last), 0).rgb;
}

// The history at `uv` by a 5-tap Catmull-Rom (bilinear taps): sharper than
// one bilinear tap, which would blur a little more every frame.
fn sample_history(uv: vec2<f32>) -> vec3<f32> {
    let pos = uv * taa.size;
    let centre = floor(pos - 0.5) + 0.5;
    let f = pos - centre;
    let w0 = f * (-0.5 + f * (1.0 - 0.5 * f));
    let w1 = 1.0 + f * f * (-2.5 + 1.5 * f);
    let w2 = f * (0.5 + f * (2.0 - 1.5 * f));
    let w3 = f * f * (-0.5 + 0.5 * f);
    let w12 = w1 + w2;
    let t0 = (centre - 1.0) / taa.size;
    let t3 = (centre + 2.0) / taa.size;
    let t12 = (centre + w2 / w12) / taa.size;
    var c = vec3<f32>(0.0);
    c += textureSampleLevel(history, history_sampler, vec2<f32>(t12.x, t0.y), 0.0).rgb * w12.x * w0.y;
    c += textureSampleLevel(history, history_sampler, vec2<f32>(t0.x, t12.y), 0.0).rgb * w0.x * w12.y;
    c += textureSampleLevel(history, history_sampler, vec2<f32>(t12.x, t12.y), 0.0).rgb * w12.x * w12.y;
    c += textureSampleLevel(history, history_sampler, vec2<f32>(t3.x, t12.y), 0.0).rgb * w3.x * w12.y;
    c += textureSampleLevel(history, history_sampler, vec2<f32>(t12.x, t3.y), 0.0).rgb * w12.x * w3.y;
    let total = w12.x * w0.y + w0.x * w12.y + w12.x * w12.y + w3.x * w12.y + w12.x * w3.y;
    return max(c / total, vec3<f32>(0.0));
}

// Clips `history` towards the box's centre until it lies inside the box
// (min, max): the colour it would have had, not a clamp's corner.
fn clip_to_box(history: vec3<f32>, lo: vec3<f32>, hi: vec3<f32>) -> vec3<f32> {
    let centre = 0.5 * (lo + hi);
    let half = 0.5 * (hi - lo) + 1e-4;
    let d = history - centre;
    let k = max(max(abs(d.x) / half.x, abs(d.y) / half.y), abs(d.z) / half.z);
    if k > 1.0 {
        return centre + d / k;
    }
    return history;
}

struct TaaOut {
    @location(0) output: vec4<f32>,
    @location(1) history: vec4<f32>,
};

@fragment
fn fs_main(@builtin(position) frag: vec4<f32>) -> TaaOut {
    let p = vec2<i32>(frag.xy);
    let current = load_color(p);
    // The neighbourhood's mean and spread (variance clipping), and the
    // velocity of its fastest point (so an edge moving over a still
    // background takes the edge's motion: no trail behind it).
    var m1 = vec3<f32>(0.0);
    var m2 = vec3<f32>(0.0);
    var lo = vec3<f32>(1e9);
    var hi = vec3<f32>(-1e9);
    var motion = vec2<f32>(0.0);
    let last = vec2<i32>(taa.size) - 1;
    for (var y = -1; y <= 1; y++) {
        for (var x = -1; x <= 1; x++) {
            let q = clamp(p + vec2<i32>(x, y), vec2<i32>(0), last);
            let c = to_ycocg(textureLoad(scene_color, q, 0).rgb);
            m1 += c;
            m2 += c * c;
            lo = min(lo, c);
            hi = max(hi, c);
            let v = textureLoad(scene_velocity, q, 0).xy;
            if dot(v, v) > dot(motion, motion) {
                motion = v;
            }
        }
    }
    var out: TaaOut;
    let previous = frag.xy - motion * taa.viewport.zw;
    let inside = all(previous >= taa.viewport.xy) && all(previous < taa.viewport.xy + taa.viewport.zw);
    if taa.frames == 0u || !inside {
        out.output = vec4<f32>(current, 1.0);
        out.history = out.output;
        return out;
    }
    let mean = m1 / 9.0;
    let sigma = sqrt(max(m2 / 9.0 - mean * mean, vec3<f32>(0.0)));
    let box_lo = max(lo, mean - 1.0 * sigma);
    let box_hi = min(hi, mean + 1.0 * sigma);
    let h = to_ycocg(sample_history(previous / taa.size));
    let clipped = from_ycocg(clip_to_box(h, box_lo, box_hi));
    // A running mean while the history is young, then an exponential one.
    // What moves fast is resampled each frame (a blur that piles up) and
    // uncovers what its history never saw: it leans on this frame more.
    let speed = length(motion * taa.viewport.zw);
    var weight = max(mix(taa.blend, 0.5, clamp(speed / 8.0, 0.0, 1.0)), 1.0 / f32(taa.frames + 1u));
    // The history's point moved unlike this one (a leg that swept past
    // the ground now seen): it is something else; this frame wins.
    let before = textureLoad(previous_velocity, clamp(vec2<i32>(previous), vec2<i32>(0), last), 0).xy;
    let mismatch = length((before - motion) * taa.viewport.zw);
    weight = mix(weight, 1.0, clamp((mismatch - 0.5) / 1.5, 0.0, 1.0));
    out.output = vec4<f32>(mix(clipped, current, weight), 1.0);
    out.history = out.output;
    return out;
}
