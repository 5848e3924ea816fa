// The skin pass of the compute-skinning techniques: once every view of the
// frame is culled, it skins each instance that some pass will draw (the
// camera's visible list and each shadow cascade's, at the levels they draw
// it) ONCE, from the palettes in palette.wgsl's buffer (sampled on the CPU,
// or made from the bone texture by compute_bone_texture.wgsl), into
// `skinned`; the scene and shadow passes then read the skinned vertex
// (`compute_skinned_vertex`) instead of posing it again. `SkinnedVertex`
// and `SkinParams` are mirrored by `render::gpu_data::{SkinnedVertex,
// SkinParams}`, the STATE_ and LEVELS_ numbers by
// `render::techniques::compute_skinning` (tests/gpu_layout.rs).
// requires: palette behaviour

// A skinned vertex in model space: the position, and the unit normal in
// octahedral coordinates as two snorm16 (`oct_encode`).
struct SkinnedVertex {
    position: vec3<f32>,
    normal: u32,
};

// One dispatch's parameters, bound at a dynamic offset: a view for the
// marking (its list's shape), or a level for the skinning.
struct SkinParams {
    // Entries per level in the view's visible list.
    region: u32,
    // Mesh levels in the list (the regions to read).
    levels: u32,
    // 1: no list; the view draws instances 0..count at full detail.
    direct: u32,
    // The instance bits of a list entry (`crowd::cull::INDEX_MASK`).
    index_mask: u32,
    // The level a skinning dispatch works on.
    level: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
};

// The frame's state words: per level, the instances to skin at that level
// (their count at word `level`, the list in its region); the instances
// given a place; this frame's instance count, the regions' capacity,
// whether the palettes come in crossfading pairs; the skinned vertices
// given out, each model's vertex count (what one of its instances takes)
// and each model's first level (its level 0's region). After the header, in regions of `capacity` words, indexed by the
// instance's slot (`palette_slot`, the index of its palettes): its levels
// (a bit each), its first vertex in `skinned`, its crossfade weight (f32
// bits); then one work list per level (of instance indices).
const MAX_SKIN_LEVELS: u32 = 32u;
const STATE_SLOTS: u32 = 32u;
const STATE_COUNT: u32 = 33u;
const STATE_CAPACITY: u32 = 34u;
const STATE_BLEND: u32 = 35u;
const STATE_VERTICES: u32 = 36u;
const STATE_MODEL_VERTICES: u32 = 40u;
const STATE_MODEL_LEVEL: u32 = 48u;
const STATE_HEADER: u32 = 64u;
// `skin_levels`: [0] the levels, [1] where the per-vertex level bits start,
// from LEVELS_SPANS each level's (first, length) of its vertex list and its
// model's first vertex, then the lists (each level's vertices, once,
// ascending, numbered in the shared stream) and the bits. A scene's levels
// are its regions: each model's levels, model after model.
const LEVELS_SPANS: u32 = 4u;
const LEVELS_HEADER: u32 = 100u;
// The most workgroups in one dispatch dimension every adapter allows.
const MAX_GROUPS: u32 = 65535u;

@group(1) @binding(3) var<uniform> skin_info: SkinInfo;
// The draws' view of the pass's output.
@group(1) @binding(4) var<storage, read> skinned: array<SkinnedVertex>;
@group(1) @binding(6) var<storage, read> skin_state_read: array<u32>;
// The pass's own.
@group(1) @binding(5) var<storage, read_write> skinned_out: array<SkinnedVertex>;
@group(1) @binding(7) var<storage, read_write> skin_state: array<atomic<u32>>;
@group(1) @binding(8) var<storage, read> skin_levels: array<u32>;
@group(1) @binding(9) var<storage, read_write> skin_dispatch: array<u32>;
// A view's cull output (render::cull) and the dispatch's parameters.
@group(3) @binding(1) var<storage, read> list_visible: array<u32>;
@group(3) @binding(2) var<storage, read> list_args: array<u32>;
@group(3) @binding(3) var<storage, read> skin_params: SkinParams;

fn oct_encode(n: vec3<f32>) -> u32 {
    var p = n.xy / max(abs(n.x) + abs(n.y) + abs(n.z), 1e-20);
    if n.z < 0.0 {
        p = (1.0 - abs(p.yx)) * select(vec2<f32>(-1.0), vec2<f32>(1.0), p >= vec2<f32>(0.0));
    }
    return pack2x16snorm(p);
}

fn oct_decode(w: u32) -> vec3<f32> {
    let p = unpack2x16snorm(w);
    var n = vec3<f32>(p, 1.0 - abs(p.x) - abs(p.y));
    let t = max(-n.z, 0.0);
    n.x += select(t, -t, n.x >= 0.0);
    n.y += select(t, -t, n.y >= 0.0);
    return normalize(n);
}

// Vertex `v` of instance `instance`, whose model's vertices start at
// `base`, as this frame's skin pass left it. An instance's skinned
// vertices are its model's, from 0.
fn compute_skinned_vertex(v: u32, instance: u32, base: u32) -> VatSample {
    let capacity = skin_state_read[STATE_CAPACITY];
    let first = skin_state_read[STATE_HEADER + capacity + palette_slot(instance)];
    let s = skinned[first + v - base];
    var out: VatSample;
    out.position = s.position;
    out.normal = oct_decode(s.normal);
    return out;
}

// Marks instance `instance` as drawn at `level`: the first time it is seen
// at all it gets its model's vertex count of skinned vertices, the first
// time at this level a place in the level's work list. An instance in the camera's list and two cascades' at
// one level is skinned once.
fn mark(instance: u32, level: u32) {
    let capacity = atomicLoad(&skin_state[STATE_CAPACITY]);
    let bit = 1u << level;
    let at = palette_slot(instance);
    let old = atomicOr(&skin_state[STATE_HEADER + at], bit);
    if (old & bit) != 0u {
        return;
    }
    if old == 0u {
        atomicAdd(&skin_state[STATE_SLOTS], 1u);
        let m = min(model_of(instance), MAX_SCENE_MODELS - 1u);
        let n = atomicLoad(&skin_state[STATE_MODEL_VERTICES + m]);
        let first = atomicAdd(&skin_state[STATE_VERTICES], n);
        atomicStore(&skin_state[STATE_HEADER + capacity + at], first);
    }
    let item = atomicAdd(&skin_state[level], 1u);
    atomicStore(&skin_state[STATE_HEADER + (3u + level) * capacity + item], instance);
}

// One dispatch per view: x over a level's entries (or the instances of a
// direct view), y over its levels.
@compute @workgroup_size(64)
fn cs_skin_mark(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let level = id.y;
    let count = atomicLoad(&skin_state[STATE_COUNT]);
    let stride = 64u * groups.x;
    if skin_params.direct != 0u {
        // Each instance at its model's level 0 (the models' levels follow
        // one another among the pass's).
        for (var i = id.x; i < count && level == 0u; i += stride) {
            let instance = slot_instance(i);
            let m = min(model_of(instance), MAX_SCENE_MODELS - 1u);
            mark(instance, atomicLoad(&skin_state[STATE_MODEL_LEVEL + m]));
        }
        return;
    }
    if level >= min(skin_params.levels, MAX_SKIN_LEVELS)
        || level * 5u + 1u >= arrayLength(&list_args) {
        return;
    }
    let n = min(list_args[level * 5u + 1u], skin_params.region);
    for (var k = id.x; k < n; k += stride) {
        let at = level * skin_params.region + k;
        if at >= arrayLength(&list_visible) {
            return;
        }
        let instance = list_visible[at] & skin_params.index_mask;
        if instance_drawn(instance) && palette_slot(instance) < count {
            mark(instance, level);
        }
    }
}

// With a crossfade: each marked instance's weight, from the same
// `anim_state` the vertex shader runs.
@compute @workgroup_size(64)
fn cs_skin_weight(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let count = atomicLoad(&skin_state[STATE_COUNT]);
    let capacity = atomicLoad(&skin_state[STATE_CAPACITY]);
    for (var s = id.x; s < count; s += 64u * groups.x) {
        if atomicLoad(&skin_state[STATE_HEADER + s]) != 0u {
            let i = slot_instance(s);
            let w = anim_state(i, instances[i]).weight;
            atomicStore(&skin_state[STATE_HEADER + 2u * capacity + s], bitcast<u32>(w));
        }
    }
}

// Each level's indirect dispatch: x over its vertex list, y (and z past
// MAX_GROUPS) over its work list.
@compute @workgroup_size(32)
fn cs_skin_args(@builtin(local_invocation_index) level: u32) {
    let n = atomicLoad(&skin_state[level]);
    var len = 0u;
    if level < skin_levels[0] {
        len = skin_levels[LEVELS_SPANS + 3u * level + 1u];
    }
    var g = vec3<u32>(0u);
    if n > 0u && len > 0u {
        let y = min(n, MAX_GROUPS);
        g = vec3<u32>(min((len + 63u) / 64u, MAX_GROUPS), y, (n + y - 1u) / y);
    }
    skin_dispatch[3u * level] = g.x;
    skin_dispatch[3u * level + 1u] = g.y;
    skin_dispatch[3u * level + 2u] = g.z;
}

// One instance of a level's work list per workgroup row: its vertices of
// that level, except those a finer level it is also drawn at skins.
@compute @workgroup_size(64)
fn cs_skin(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let level = skin_params.level;
    let item = wg.z * groups.y + wg.y;
    if level >= MAX_SKIN_LEVELS || item >= atomicLoad(&skin_state[level]) {
        return;
    }
    let capacity = atomicLoad(&skin_state[STATE_CAPACITY]);
    let instance = atomicLoad(&skin_state[STATE_HEADER + (3u + level) * capacity + item]);
    let at = palette_slot(instance);
    let first_skinned = atomicLoad(&skin_state[STATE_HEADER + capacity + at]);
    let finer = atomicLoad(&skin_state[STATE_HEADER + at]) & ((1u << level) - 1u);
    let blend = atomicLoad(&skin_state[STATE_BLEND]) != 0u;
    var weight = 1.0;
    if blend {
        weight = bitcast<f32>(atomicLoad(&skin_state[STATE_HEADER + 2u * capacity + at]));
    }
    let first = skin_levels[LEVELS_SPANS + 3u * level];
    let len = skin_levels[LEVELS_SPANS + 3u * level + 1u];
    let bits = skin_levels[1];
    let first_vertex = skin_levels[LEVELS_SPANS + 3u * level + 2u];
    for (var k = wg.x * 64u + local; k < len; k += 64u * groups.x) {
        let v = skin_levels[first + k];
        if (skin_levels[bits + v] & finer) != 0u {
            continue;
        }
        let s = palette_vertex(v, at, blend, weight, skin_info.joints);
        skinned_out[first_skinned + v - first_vertex] = SkinnedVertex(s.position, oct_encode(s.normal));
    }
}
