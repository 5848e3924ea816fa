// The VAT technique's vertex stage: the pose comes from the baked texture.

@vertex
fn vs_main(in: VertexIn) -> VertexOut {
    let inst = instances[in.instance];
    let clip_index = instance_clip(inst);
    let clip = vat_clips[clip_index];
    let t = instance_clip_time(inst, clip);
    let s = vat_sample(in.vertex, clip_index, t, frame.interpolate != 0u);
    return finish_vertex(in, inst, clip, s);
}
