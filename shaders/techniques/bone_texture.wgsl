// Baked bone texture ("animation instancing"): every frame's palette stored
// once (bones.wgsl); the vertex shader fetches the two neighbouring frames'
// four joint matrices, lerps and blends them.
// requires: skin bones behaviour

fn pose(vertex: u32, instance: u32, a: AnimState) -> VatSample {
    return bone_vertex_blend(
        vertex,
        a.previous,
        a.previous_time,
        a.clip,
        a.time,
        a.weight,
        frame.interpolate != 0u && !a.nearest,
    );
}

// The baked palettes at the previous frame's clip times: exact.
fn previous_pose(vertex: u32, instance: u32, before: AnimState, now: AnimState) -> VatSample {
    return pose(vertex, instance, before);
}
