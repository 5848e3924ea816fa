// The cull pass without the splat level (shadow cascades' views, and the
// camera's with splats off): no instance is a splat. The variant with
// splats is splat.wgsl, with the same function.

fn splat_instance(bits: u32, m: u32, model: CullModel, centre: vec3<f32>, radius: f32, tint: u32) -> bool {
    return false;
}
