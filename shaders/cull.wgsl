// The cull pass: one invocation per instance, every frame, no CPU work per
// instance. The instance is placed by `anim_state` (the same function the
// vertex shader runs), its bounding sphere (every baked frame of every
// clip) is tested against the view's frustum (for a shadow cascade, also
// against the camera's frustum, swept along the light, and skipped when it
// projects under a texel), then drawn as an impostor when its sphere
// projects small enough, else at the coarsest mesh level whose animated
// error projects under the pixel budget. Survivors are appended to their
// region of the visible list (one per mesh level, then the impostors');
// the region's DrawIndexedIndirect instance count is the append counter;
// `occlusion_keep` (occlusion_off.wgsl, or occlusion.wgsl's two phases)
// decides whether a survivor is appended in this dispatch; `splat_instance`
// (splat_off.wgsl, or splat.wgsl) whether an impostor is a splat instead
// (appended nowhere). Each survivor's state (`anim_state`'s placement,
// clips and times) is kept at the end of its list when the list keeps
// state (`keep_state`, resolved.wgsl): the vertex shaders read it instead
// of computing it for every vertex. The CPU twin of `cull_instance`
// is `crowd::cull::CullUniform::cull`; `CullParams` is mirrored by
// `crowd::cull::CullUniform` (tests/gpu_layout.rs).
// requires: behaviour resolved

// One model's sphere and levels as this view may use them, and its
// regions of the visible list. Mirrored by `crowd::cull::CullModelGpu`.
struct CullModel {
    // Model-space bounding sphere: xyz centre, w radius.
    sphere: vec4<f32>,
    // Mesh level l's animated error at [l / 4][l % 4].
    level_error: array<vec4<f32>, 2>,
    // Mesh levels this view uses.
    levels: u32,
    nearest_error: f32,
    // With flag 128: the finest level a caster the camera would draw as an
    // impostor casts with (the first coarse level).
    far_level: u32,
    // Its impostors in an entry's region bits (after its chain's levels).
    impostor_bits: u32,
    // Its level 0's region (its levels follow) and its impostors' region.
    first_region: u32,
    impostor_region: u32,
    // 1 = none of its instances is drawn (a debug switch).
    hidden: u32,
    _pad0: u32,
    // Model-space half size of the box of every baked frame around the
    // sphere's centre (xyz; occlusion culling tests a mesh by it).
    half: vec4<f32>,
};

struct CullParams {
    // Left, right, bottom, top, near, far: unit inward normal and offset.
    planes: array<vec4<f32>, 6>,
    // xyz = eye, w = pixels per model unit at distance 1.
    eye: vec4<f32>,
    count: u32,
    // 1 = frustum, 2 = mesh LOD, 4 = nearest-frame animation LOD, 8 =
    // receivers, 16 = impostors, 32 = minimum size, 64 = the sweep ends
    // under the ground, 128 = levels no finer than the camera's.
    flags: u32,
    budget_px: f32,
    // Entries per region in the visible list.
    region: u32,
    // Entries of `models` in use.
    model_count: u32,
    orthographic: u32,
    // With flag 16: the largest sphere diameter, in pixels, drawn as an
    // impostor.
    impostor_px: f32,
    // The first word after the regions' arguments (the counters).
    counter_word: u32,
    // With flag 8 (a light's view): the planes of the volume shadows are
    // seen in, as `planes`; xyz = the direction shadows travel, w = the
    // margin the receivers' lookup adds to the radius.
    receivers: array<vec4<f32>, 6>,
    sweep: vec4<f32>,
    // With flag 32: the smallest sphere diameter, in pixels, kept.
    min_size_px: f32,
    // With flag 64: the lowest height a receiver has.
    ground: f32,
    _pad0: u32,
    _pad1: u32,
    // With flag 128: xyz = the camera's eye, w = its pixels per world unit
    // at distance 1.
    camera: vec4<f32>,
    // The camera's view: the shadow cascades' boxes (six planes each, as
    // `planes`) whose casters it lists (`list_caster`), and how many.
    caster_planes: array<vec4<f32>, 24>,
    caster_views: u32,
    _caster_pad0: u32,
    _caster_pad1: u32,
    _caster_pad2: u32,
    // Each box's bounding sphere for the gate's shortcut (`near_bound`).
    caster_bounds: array<vec4<f32>, 4>,
    // The scene's models, in the order of the crowd's model table.
    models: array<CullModel, MAX_SCENE_MODELS>,
};

// `cull` (group 3, binding 0) is declared by cull_params.wgsl (read-only
// storage) or cull_params_uniform.wgsl (a uniform, on devices that bind
// too few storage buffers for the camera's cull with splats).
// Five words per region: index count, instance count, first index, base
// vertex, first instance.
@group(3) @binding(1) var<storage, read_write> draw_args: array<atomic<u32>>;
@group(3) @binding(2) var<storage, read_write> visible_out: array<u32>;

const CULLED: u32 = 0xffffffffu;
// The counter of casters the receivers rule drops (after the regions'
// arguments). Mirrored by `crowd::cull::DROPPED_WORD`.
const DROPPED_WORD: u32 = 5u;
// The counter (after the regions' arguments) of the instances the camera's
// pass lists for the shadow cascades, then the cascades' dispatch (x, y,
// z); the list's entries start at CASTER_ENTRIES. Mirrored by
// `crowd::caster_list`.
const CASTER_WORD: u32 = 7u;
const CASTER_ENTRIES: u32 = 11u;
// The cascades' boxes the camera's pass can test (`caster_planes`).
const CASTER_VIEWS: u32 = 4u;

// Pixels `error` model units project to on an instance of `scale` whose
// world sphere is (`centre`, `radius`): at the sphere's nearest point.
fn project_error(error: f32, scale: f32, centre: vec3<f32>, radius: f32) -> f32 {
    let size = error * scale * cull.eye.w;
    if cull.orthographic != 0u {
        return size;
    }
    let dist = length(centre - cull.eye.xyz) - radius;
    return size / max(dist, 1e-4);
}

// Pixels the diameter of a sphere at `centre` covers, seen from its
// centre's distance.
fn diameter_px(centre: vec3<f32>, radius: f32) -> f32 {
    let size = 2.0 * radius * cull.eye.w;
    if cull.orthographic != 0u {
        return size;
    }
    return size / max(length(centre - cull.eye.xyz), 1e-4);
}

// How far a sphere travels along the unit `sweep` before it is wholly
// under the ground; a negative value when it never goes down (unbounded).
// The twin of `cull::sweep_length`.
fn sweep_length(centre: vec3<f32>, radius: f32, sweep: vec3<f32>) -> f32 {
    if sweep.y < -1e-4 {
        return max((centre.y + radius - cull.ground) / -sweep.y, 0.0);
    }
    return -1.0;
}

// With flag 128: the pixels the sphere's diameter covers in the camera.
fn camera_diameter(centre: vec3<f32>, radius: f32) -> f32 {
    return 2.0 * radius * cull.camera.w / max(length(centre - cull.camera.xyz), 1e-4);
}

// With flag 128: the finest level the camera's rule lets a caster have: its
// animated error in the camera's pixels, and the first coarse level where
// the camera would draw it as an impostor. The twin of
// `CullUniform::camera_level`.
fn camera_level(m: CullModel, centre: vec3<f32>, radius: f32, scale: f32) -> u32 {
    if (cull.flags & 2u) == 0u {
        return 0u;
    }
    let distance = length(centre - cull.camera.xyz);
    let size = camera_diameter(centre, radius);
    var level = 0u;
    for (var l = min(m.levels, 6u) - 1u; l >= 1u; l--) {
        let px = m.level_error[l / 4u][l % 4u] * scale * cull.camera.w / max(distance - radius, 1e-4);
        if px <= cull.budget_px {
            level = l;
            break;
        }
    }
    if size <= cull.impostor_px && m.far_level < m.levels {
        level = max(level, m.far_level);
    }
    return level;
}

// The visible list's region of an entry of model `m` with `bits` (its
// level, or its impostors). The twin of `CullModelGpu::region_of`.
fn region_of(m: CullModel, bits: u32) -> u32 {
    let local = (bits >> 28u) & 7u;
    if local == m.impostor_bits {
        return m.impostor_region;
    }
    return m.first_region + local;
}

// CULLED, or the entry's bits above the index: the model's region bits
// << 28 (its level, or its impostors), nearest << 31.
fn cull_instance(m: CullModel, centre: vec3<f32>, radius: f32, scale: f32) -> u32 {
    if (cull.flags & 1u) != 0u {
        var margin = 3.4e38;
        for (var i = 0u; i < 6u; i++) {
            let p = cull.planes[i];
            margin = min(margin, dot(p.xyz, centre) + p.w + radius);
        }
        if margin < 0.0 {
            return CULLED;
        }
    }
    // A caster is needed only if its sphere, swept along the light, can
    // reach the receivers: not when it is wholly outside one of their
    // planes and the light carries it no closer.
    // With flag 64 the sweep ends where the sphere is under the ground.
    if (cull.flags & 8u) != 0u {
        let r = radius + cull.sweep.w;
        var along = -1.0;
        if (cull.flags & 64u) != 0u {
            along = sweep_length(centre, r, cull.sweep.xyz);
        }
        for (var i = 0u; i < 6u; i++) {
            let p = cull.receivers[i];
            let start = dot(p.xyz, centre) + p.w + r;
            var outside = start < 0.0 && dot(p.xyz, cull.sweep.xyz) <= 0.0;
            if along >= 0.0 {
                outside = start < 0.0 && start + dot(p.xyz, cull.sweep.xyz) * along < 0.0;
            }
            if outside {
                // In the light's box, but its shadow cannot reach the view.
                atomicAdd(&draw_args[cull.counter_word + DROPPED_WORD], 1u);
                return CULLED;
            }
        }
    }
    let size = diameter_px(centre, radius);
    if (cull.flags & 32u) != 0u && size < cull.min_size_px {
        return CULLED;
    }
    // A light's view with the camera's rule: the casters the camera would
    // draw as impostors cast as impostors.
    var seen = size;
    if (cull.flags & 128u) != 0u {
        seen = camera_diameter(centre, radius);
    }
    if (cull.flags & 16u) != 0u && seen <= cull.impostor_px {
        return min(m.impostor_bits, 6u) << 28u;
    }
    var level = 0u;
    if (cull.flags & 2u) != 0u {
        for (var l = min(m.levels, 6u) - 1u; l >= 1u; l--) {
            if project_error(m.level_error[l / 4u][l % 4u], scale, centre, radius) <= cull.budget_px {
                level = l;
                break;
            }
        }
    }
    if (cull.flags & 128u) != 0u {
        level = max(level, camera_level(m, centre, radius, scale));
    }
    var bits = level << 28u;
    if (cull.flags & 4u) != 0u
        && project_error(m.nearest_error, scale, centre, radius) <= cull.budget_px {
        bits |= 0x80000000u;
    }
    return bits;
}

// Invocations in a workgroup of the cull pass: WebGPU's largest (every
// device has it). On lavapipe the pass takes a fifth less time than with
// 64 (docs/benchmarks.md). Mirrored by `crowd::cull::CULL_GROUP`.
const CULL_GROUP: u32 = 256u;

// One invocation per instance, `id.x + id.y * n.x * CULL_GROUP`: a
// dispatch has at most 65,535 workgroups a row, so more than 16,776,960
// instances would take several rows (`gpu::dispatch_rows`).
@compute @workgroup_size(CULL_GROUP)
fn cs_cull(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
    let i = id.x + id.y * n.x * CULL_GROUP;
    if i >= cull.count {
        return;
    }
    cull_one(i);
}

// Places instance `i`, lists it for the shadow cascades (the camera's
// view), culls it and appends it where it is drawn.
fn cull_one(i: u32) {
    let m_index = model_of(i);
    let model = cull.models[m_index];
    if model.hidden != 0u || !instance_drawn(i) {
        return;
    }
    let inst = instances[i];
    let a = anim_state(i, inst);
    let p = a.place;
    let right = normalize(cross(p.up, p.forward));
    let up = cross(p.forward, right);
    let m = mat3x3<f32>(right, up, p.forward);
    let centre = p.origin + m * (model.sphere.xyz * inst.scale);
    let radius = model.sphere.w * inst.scale;
    list_caster(i, centre, radius);
    let bits = cull_instance(model, centre, radius, inst.scale);
    if splat_instance(bits, m_index, model, centre, radius, inst.tint) {
        return;
    }
    if !occlusion_keep(i, bits, model, centre, radius, m, inst.scale) {
        return;
    }
    let region = region_of(model, bits);
    let slot = atomicAdd(&draw_args[region * 5u + 1u], 1u);
    visible_out[region * cull.region + slot] = i | bits;
    keep_state(i, inst, a);
}

// How far outside a plane a sphere may be and still be listed for the
// cascades: more than f32 rounding of the margin could move it. The twin
// of `caster_list::gate_slack`.
fn gate_slack(p: vec4<f32>, centre: vec3<f32>) -> f32 {
    let c = abs(centre);
    return 1e-3 + 1e-4 * (abs(p.w) + c.x + c.y + c.z);
}

// Whether a sphere may reach inside the box `bound` bounds, give or take
// the gate's slack (far outside it, no plane need be tested). The twin of
// `caster_list::near_bound`.
fn near_bound(bound: vec4<f32>, centre: vec3<f32>, radius: f32) -> bool {
    let c = abs(centre);
    let reach = bound.w + 2.0 * radius + 2e-4 * (c.x + c.y + c.z);
    let d = centre - bound.xyz;
    return dot(d, d) <= reach * reach;
}

// The camera's view: lists instance `i` for the shadow cascades when its
// sphere reaches inside some cascade's box (each cascade's first test),
// and adds a workgroup to their dispatch each time a CULL_GROUP-th
// instance is listed. The twin of `CasterGate::admits`.
fn list_caster(i: u32, centre: vec3<f32>, radius: f32) {
    for (var v = 0u; v < min(cull.caster_views, CASTER_VIEWS); v++) {
        if !near_bound(cull.caster_bounds[v], centre, radius) {
            continue;
        }
        var inside = true;
        for (var k = 0u; k < 6u; k++) {
            let p = cull.caster_planes[v * 6u + k];
            if dot(p.xyz, centre) + p.w + radius + gate_slack(p, centre) < 0.0 {
                inside = false;
                break;
            }
        }
        if inside {
            let base = cull.counter_word + CASTER_WORD;
            let slot = atomicAdd(&draw_args[base], 1u);
            atomicStore(&draw_args[cull.counter_word + CASTER_ENTRIES + slot], i);
            if slot % CULL_GROUP == 0u {
                atomicAdd(&draw_args[base + 1u], 1u);
            }
            return;
        }
    }
}

// Keeps listed instance `i`'s state `a` at the end of the list, when the
// list keeps state (resolved.wgsl), and with a stride of two states also
// its state when the previous frame was drawn, if the scene pass writes
// the velocity target.
fn keep_state(i: u32, inst: Instance, a: AnimState) {
    let len = arrayLength(&visible_out);
    let stride = visible_out[len - 1u];
    if stride == 0u {
        return;
    }
    let at = state_word(len, i, stride);
    store_state(at, a);
    if stride >= 2u * STATE_WORDS && frame.velocity != 0u {
        store_state(at + STATE_WORDS, previous_anim_state(i, inst));
    }
}

// Writes state `a` into the list from word `at`.
fn store_state(at: u32, a: AnimState) {
    let w = pack_state(a);
    for (var k = 0u; k < STATE_WORDS; k++) {
        visible_out[at + k] = w[k];
    }
}
