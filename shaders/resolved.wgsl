// Each listed instance's resolved state: the `AnimState` the cull pass
// computed when it listed the instance (where it is, which two clips at
// which times and weight), kept at the end of the view's visible list so
// that no vertex computes it again (`listed.wgsl` reads it). A list ends
// with one word, its state stride: 0 (it keeps no state), STATE_WORDS (the
// state of each instance) or 2 * STATE_WORDS (also the state when the
// previous frame was drawn: the camera's lists when the scene pass writes
// the velocity target).
// Instance i's state starts `(i + 1) * stride + 1` words before the end.
// The words are the state's own bits: a vertex reading them gets exactly
// what computing it gives. `crowd::resolved` is the Rust twin of the
// layout.
// requires: behaviour

const STATE_WORDS: u32 = 16u;

// The state's words: origin, clip, forward, time, up, previous clip, its
// time, weight, two unused.
fn pack_state(a: AnimState) -> array<u32, 16> {
    let p = a.place;
    return array<u32, 16>(
        bitcast<u32>(p.origin.x), bitcast<u32>(p.origin.y), bitcast<u32>(p.origin.z), a.clip,
        bitcast<u32>(p.forward.x), bitcast<u32>(p.forward.y), bitcast<u32>(p.forward.z), bitcast<u32>(a.time),
        bitcast<u32>(p.up.x), bitcast<u32>(p.up.y), bitcast<u32>(p.up.z), a.previous,
        bitcast<u32>(a.previous_time), bitcast<u32>(a.weight), 0u, 0u,
    );
}

fn unpack_state(w: array<u32, 16>) -> AnimState {
    var a: AnimState;
    a.place.origin = bitcast<vec3<f32>>(vec3<u32>(w[0], w[1], w[2]));
    a.clip = w[3];
    a.place.forward = bitcast<vec3<f32>>(vec3<u32>(w[4], w[5], w[6]));
    a.time = bitcast<f32>(w[7]);
    a.place.up = bitcast<vec3<f32>>(vec3<u32>(w[8], w[9], w[10]));
    a.previous = w[11];
    a.previous_time = bitcast<f32>(w[12]);
    a.weight = bitcast<f32>(w[13]);
    a.nearest = false;
    return a;
}

// The first word of instance `index`'s state in a list of `len` words
// whose stride is `stride`.
fn state_word(len: u32, index: u32, stride: u32) -> u32 {
    return len - 1u - (index + 1u) * stride;
}
