// Live bone-matrix skinning: the CPU samples every instance's palette each
// frame and uploads them all; the vertex shader blends four joints.
// requires: palette behaviour

@group(1) @binding(3) var<uniform> skin_info: SkinInfo;

// Vertex `v` of instance `instance`, skinned with that instance's palette
// (in its slot: `palette_slot`).
fn skinned_vertex(v: u32, instance: u32) -> VatSample {
    return palette_vertex(v, palette_slot(instance), false, 1.0, skin_info.joints);
}

// Behaviour on: the CPU uploads two palettes per instance (the previous
// clip's, then the current one's); the blend weight comes from the GPU's
// `anim_state`, so the picture matches VAT's crossfade.
fn skinned_vertex_blend(v: u32, instance: u32, weight: f32) -> VatSample {
    return palette_vertex(v, palette_slot(instance), true, weight, skin_info.joints);
}

fn pose(vertex: u32, instance: u32, a: AnimState) -> VatSample {
    if frame.behaviour != 0u {
        return skinned_vertex_blend(vertex, instance, a.weight);
    }
    return skinned_vertex(vertex, instance);
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
