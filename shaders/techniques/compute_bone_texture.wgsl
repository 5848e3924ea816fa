// Compute skinning from the baked bone texture: no CPU work per instance. A
// pass makes the palette of each instance the skin pass will skin (its two,
// crossfading) from the bone texture (bones.wgsl), lerped between the two
// baked frames around its clip time as the bone-texture technique does;
// then the skin pass (skin_pass.wgsl) skins it once and every pass that
// draws reads the skinned vertex.
// requires: skin_pass bones

// The palettes the skin pass reads (palette.wgsl's buffer), written here.
@group(1) @binding(11) var<storage, read_write> palettes_out: array<vec4<f32>>;

fn pose(vertex: u32, instance: u32, a: AnimState) -> VatSample {
    return compute_skinned_vertex(vertex, instance, vat_clips[a.clip].vertex_base);
}

fn write_joint(palette_joint: u32, m: mat3x4<f32>) {
    palettes_out[3u * palette_joint] = m[0];
    palettes_out[3u * palette_joint + 1u] = m[1];
    palettes_out[3u * palette_joint + 2u] = m[2];
}

// One invocation per joint of each marked instance (after the marking,
// before the skinning): its clips and times from `anim_state`, as the
// vertex shader's; palettes laid out as the CPU's (palette.wgsl).
@compute @workgroup_size(64)
fn cs_skin_bone_palettes(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let joints = max(skin_info.joints, 1u);
    let count = atomicLoad(&skin_state[STATE_COUNT]);
    let blend = atomicLoad(&skin_state[STATE_BLEND]) != 0u;
    let interpolate = frame.interpolate != 0u;
    for (var t = id.x; t < count * joints; t += 64u * groups.x) {
        // The instance in slot `s`: its palettes are slot `s`'s.
        let s = t / joints;
        let j = t % joints;
        if atomicLoad(&skin_state[STATE_HEADER + s]) == 0u {
            continue;
        }
        let i = slot_instance(s);
        let a = anim_state(i, instances[i]);
        var base = s * joints;
        if blend {
            base = 2u * s * joints;
            let previous = bone_frames(a.previous, a.previous_time, interpolate);
            write_joint(base + j, bone_frames_joint(previous, j));
            base += joints;
        }
        write_joint(base + j, bone_frames_joint(bone_frames(a.clip, a.time, interpolate), j));
    }
}

// The previous frame's pose from the bone texture at its clip times, as the
// bone-texture technique poses: exact (the palettes this pass made last
// frame cover only what was drawn then). The draws bind the bone texture's
// clip table.
fn previous_pose(vertex: u32, instance: u32, before: AnimState, now: AnimState) -> VatSample {
    return bone_vertex_blend(
        vertex,
        before.previous,
        before.previous_time,
        before.clip,
        before.time,
        before.weight,
        frame.interpolate != 0u && !before.nearest,
    );
}
