// The shadow cascades' cull pass over the instances the camera's pass
// listed (`list_caster` in cull.wgsl) rather than the whole crowd: one
// invocation per listed instance, dispatched indirectly by the workgroups
// the camera's pass counted. An instance left off the list is outside
// every cascade's box, so the cascade's rule would cull it first: the
// cascades list what they would list going over every instance. The
// camera's pass computed each listed instance's state; the cascades read
// it (for as many as it had room to keep) instead of computing it again.
// requires: cull

// The camera's arguments: its counters, the listed instances, then the
// states kept for them (`keep_caster_state` in cull.wgsl).
@group(3) @binding(3) var<storage, read> camera_args: array<u32>;

@compute @workgroup_size(CULL_GROUP)
fn cs_cull_listed(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
    let s = id.x + id.y * n.x * CULL_GROUP;
    if s >= camera_args[cull.counter_word + CASTER_WORD] {
        return;
    }
    let i = camera_args[cull.counter_word + CASTER_ENTRIES + s];
    let m_index = model_of(i);
    let model = cull.models[m_index];
    if !culls(i, model) {
        return;
    }
    let inst = instances[i];
    cull_placed(i, inst, listed_caster_state(i, inst, s), m_index, model);
}

// Listed instance `i`'s state (list slot `slot`): the one the camera's pass
// kept, when it had room for it; else computed. The words are the state's
// own bits, so the cascade culls and draws what computing it gives.
fn listed_caster_state(i: u32, inst: Instance, slot: u32) -> AnimState {
    let len = arrayLength(&camera_args);
    if slot >= camera_args[len - 1u] {
        return anim_state(i, inst);
    }
    let at = caster_state_word(len, slot);
    var w: array<u32, 16>;
    for (var k = 0u; k < STATE_WORDS; k++) {
        w[k] = camera_args[at + k];
    }
    return unpack_state(w);
}
