// The cull pass without occlusion (shadow cascades' views, and the camera's
// with occlusion off or unavailable): every survivor is drawn. The
// occlusion culling variant is occlusion.wgsl, with the same function.

fn occlusion_keep(i: u32, bits: u32, model: CullModel, centre: vec3<f32>, radius: f32, basis: mat3x3<f32>, scale: f32) -> bool {
    return bits != CULLED;
}
