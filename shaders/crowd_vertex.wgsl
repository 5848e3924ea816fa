// The one crowd vertex entry every technique's pipeline runs: it places the
// instance (`anim_state`: where it is, which clips at which times and
// weight) and asks the technique's pose hook for the vertex in model space.
// Each technique's file under techniques/ defines
//     fn pose(vertex: u32, instance: u32, anim: AnimState) -> VatSample
// and the crowd module of a technique is this file plus that one.
// requires: crowd behaviour

@vertex
fn vs_main(in: VertexIn) -> VertexOut {
    let inst = instances[in.instance];
    let a = anim_state(in.instance, inst);
    return finish_vertex(in, inst, a.place, pose(in.vertex, in.instance, a));
}
