// The static floor: one stored pose for everyone, the same instances and
// motion, no animation. Composed after technique.wgsl and crowd.wgsl.

// Per vertex: position (w = 1), then normal (w = 0).
@group(1) @binding(0) var<storage, read> rest_pose: array<vec4<f32>>;

fn static_vertex(v: u32) -> VatSample {
    var s: VatSample;
    s.position = rest_pose[2u * v].xyz;
    s.normal = rest_pose[2u * v + 1u].xyz;
    return s;
}

@vertex
fn vs_main(in: VertexIn) -> VertexOut {
    let inst = instances[in.instance];
    let a = anim_state(in.instance, inst);
    return finish_vertex(in, inst, a.place, static_vertex(in.vertex));
}
