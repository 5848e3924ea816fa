// Compute skinning: the CPU samples every drawn instance's palette, as live
// skinning does (palette.wgsl); the skin pass (skin_pass.wgsl) skins what
// the camera and the shadow cascades draw, once; every pass that draws reads
// the skinned vertex.
// requires: skin_pass

fn pose(vertex: u32, instance: u32, a: AnimState) -> VatSample {
    return compute_skinned_vertex(vertex, instance);
}
