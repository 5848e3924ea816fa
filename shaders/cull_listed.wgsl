// The shadow cascades' cull pass over the instances the camera's pass
// listed (`list_caster` in cull.wgsl) rather than the whole crowd: one
// invocation per listed instance, dispatched indirectly by the workgroups
// the camera's pass counted. An instance left off the list is outside
// every cascade's box, so the cascade's rule would cull it first: the
// cascades list what they would list going over every instance.
// requires: cull

// The camera's arguments: its counters, then the listed instances.
@group(3) @binding(3) var<storage, read> camera_args: array<u32>;

@compute @workgroup_size(CULL_GROUP)
fn cs_cull_listed(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
    let s = id.x + id.y * n.x * CULL_GROUP;
    if s >= camera_args[cull.counter_word + CASTER_WORD] {
        return;
    }
    cull_one(camera_args[cull.counter_word + CASTER_ENTRIES + s]);
}
