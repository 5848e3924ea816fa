// CPU skinning: the CPU skins every drawn instance each frame and uploads
// positions and normals; the vertex shader only reads them.
// requires: behaviour

// Instance after instance, vertex after vertex: x, y, z.
@group(1) @binding(0) var<storage, read> cpu_positions: array<f32>;
@group(1) @binding(1) var<storage, read> cpu_normals: array<f32>;
@group(1) @binding(3) var<uniform> skin_info: SkinInfo;

fn cpu_vertex(v: u32, instance: u32) -> VatSample {
    let i = 3u * (instance * skin_info.vertices + v);
    var s: VatSample;
    s.position = vec3<f32>(cpu_positions[i], cpu_positions[i + 1u], cpu_positions[i + 2u]);
    s.normal = vec3<f32>(cpu_normals[i], cpu_normals[i + 1u], cpu_normals[i + 2u]);
    return s;
}

fn pose(vertex: u32, instance: u32, a: AnimState) -> VatSample {
    return cpu_vertex(vertex, instance);
}

// The previous frame's vertices (kept for instances below
// `skin_info.previous`; newer ones have none: this frame's).
@group(1) @binding(12) var<storage, read> previous_cpu_positions: array<f32>;

fn previous_pose(vertex: u32, instance: u32, before: AnimState, now: AnimState) -> VatSample {
    var s = cpu_vertex(vertex, instance);
    if instance < skin_info.previous {
        let i = 3u * (instance * skin_info.vertices + vertex);
        s.position = vec3<f32>(previous_cpu_positions[i], previous_cpu_positions[i + 1u], previous_cpu_positions[i + 2u]);
    }
    return s;
}
