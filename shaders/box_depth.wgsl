// A box's nearest depth under a projection: the impostors' quads are drawn
// at it, so that the depth each fragment writes is never nearer than the
// depth tested before it (`@early_depth_test(greater_equal)`).
// Twin-tested against the box's corners on the CPU (tests/early_depth_gpu.rs).

// The nearest depth (0..1) under `vp` of the box around `centre` with
// half-sizes `half` along the unit columns of `axes`: the box's point
// furthest against the gradient of clip w (the view's forward under a
// perspective; of clip z, orthographic). 0 where it reaches the camera.
fn box_front(vp: mat4x4<f32>, centre: vec3<f32>, axes: mat3x3<f32>, half: vec3<f32>) -> f32 {
    var g = vec3<f32>(vp[0][3], vp[1][3], vp[2][3]);
    if dot(g, g) < 1e-12 {
        g = vec3<f32>(vp[0][2], vp[1][2], vp[2][2]);
    }
    let u = normalize(g);
    let reach = dot(half, abs(u * axes));
    let p = vp * vec4<f32>(centre - u * reach, 1.0);
    if p.w <= 0.0 {
        return 0.0;
    }
    return clamp(p.z / p.w, 0.0, 1.0);
}
