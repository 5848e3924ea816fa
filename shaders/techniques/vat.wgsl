// The VAT technique's pose hook: the pose comes from the baked texture,
// both clips of the instance's crossfade sampled and blended.
// requires: vat behaviour

fn pose(vertex: u32, instance: u32, a: AnimState) -> VatSample {
    return vat_sample_blend(
        vertex,
        a.previous,
        a.previous_time,
        a.clip,
        a.time,
        a.weight,
        frame.interpolate != 0u && !a.nearest,
    );
}

// The baked texture at the previous frame's clip times: exact.
fn previous_pose(vertex: u32, instance: u32, before: AnimState, now: AnimState) -> VatSample {
    return pose(vertex, instance, before);
}
