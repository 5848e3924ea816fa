// The static floor: one stored pose for everyone, the same instances and
// motion, no animation.
// requires: behaviour

// Per vertex: position (w = 1), then normal (w = 0).
@group(1) @binding(0) var<storage, read> rest_pose: array<vec4<f32>>;

fn static_vertex(v: u32) -> VatSample {
    var s: VatSample;
    s.position = rest_pose[2u * v].xyz;
    s.normal = rest_pose[2u * v + 1u].xyz;
    return s;
}

fn pose(vertex: u32, instance: u32, a: AnimState) -> VatSample {
    return static_vertex(vertex);
}

// One pose for ever: only the placement moves.
fn previous_pose(vertex: u32, instance: u32, before: AnimState, now: AnimState) -> VatSample {
    return static_vertex(vertex);
}
