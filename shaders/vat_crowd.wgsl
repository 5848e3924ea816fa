// The VAT technique's vertex stage: the pose comes from the baked texture,
// both clips of the instance's crossfade sampled and blended.

@vertex
fn vs_main(in: VertexIn) -> VertexOut {
    let inst = instances[in.instance];
    let a = anim_state(in.instance, inst);
    let s = vat_sample_blend(
        in.vertex,
        a.previous,
        a.previous_time,
        a.clip,
        a.time,
        a.weight,
        frame.interpolate != 0u,
    );
    return finish_vertex(in, inst, a.place, s);
}
