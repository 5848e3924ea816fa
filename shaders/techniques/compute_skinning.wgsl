// Compute skinning: the CPU samples every drawn instance's palette, as live
// skinning does (palette.wgsl); the skin pass (skin_pass.wgsl) skins what
// the camera and the shadow cascades draw, once; every pass that draws reads
// the skinned vertex.
// requires: skin_pass

fn pose(vertex: u32, instance: u32, a: AnimState) -> VatSample {
    return compute_skinned_vertex(vertex, instance, vat_clips[a.clip].vertex_base);
}

// The previous frame's pose from the previous frame's palettes (kept for
// slots below `skin_info.previous`; newer ones have none: this frame's).
fn previous_pose(vertex: u32, instance: u32, before: AnimState, now: AnimState) -> VatSample {
    let slot = palette_slot(instance);
    if slot >= skin_info.previous {
        return pose(vertex, instance, now);
    }
    return previous_palette_vertex(vertex, slot, frame.behaviour != 0u, before.weight, skin_info.joints);
}
