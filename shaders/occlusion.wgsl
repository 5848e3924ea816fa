// Occlusion culling in the cull pass (two phases). Phase 1 (`cs_cull`)
// appends only the survivors that were visible last frame (`state`'s
// history) and lists every survivor with its screen rectangle (a mesh's
// box, an impostor's sphere: `occlusion_keep`); the early scene pass
// draws what it appended and shaders/pyramid.wgsl reduces its depth into
// `pyramid`; phase 2 (`cs_cull_late`, one invocation per listed survivor,
// dispatched indirectly: it neither places an instance again nor visits
// the culled) tests each against the pyramid (`occluded`), appends those it
// finds visible that phase 1 did not draw, and records every instance's
// visibility for the next frame.
// `OcclusionParams` is mirrored by `crowd::occlusion::OcclusionUniform`
// (tests/gpu_layout.rs); `sphere_rect`, `box_rect` and `occluded` are the
// twins of its methods of the same names.

struct OcclusionParams {
    view: mat4x4<f32>,
    proj: mat4x4<f32>,
    // proj × view, once for every box phase 1 projects.
    view_proj: mat4x4<f32>,
    // The drawn viewport in the depth's pixels: x, y, width, height.
    viewport: vec4<f32>,
    // The pyramid's mip 0 (the depth's size).
    size: vec2<u32>,
    mips: u32,
    // 0: no occlusion; 1: the first phase; 2: the second; 3: the second
    // without the test (culling frozen before any history was known).
    phase: u32,
    // The word of `draw_args` after the regions' arguments: in phase 2's
    // lists the occluded count; in phase 1's the survivors listed, then
    // phase 2's dispatch (x, y, z workgroups).
    counter_word: u32,
    // Instances the history holds (where the survivors start).
    capacity: u32,
    _pad0: u32,
    _pad1: u32,
    // Where mip m starts in `pyramid`, at [m / 4][m % 4].
    offsets: array<vec4<u32>, 4>,
};

@group(3) @binding(3) var<storage, read> occlusion: OcclusionParams;
// `capacity` words of history (1: the instance was visible in the last
// phase 2), SURVIVORS_HEADER words (the survivors' count, for phase 2),
// then phase 1's survivors, SURVIVOR_WORDS each: the screen rectangle's
// first and last pixel (x | y << 16 each), its nearest depth (DRAWN_BIT
// set when phase 1 drew it; 0 when it is never occluded), and its
// visible-list entry.
@group(3) @binding(4) var<storage, read_write> state: array<u32>;
// Every mip's farthest depths, one after another.
@group(3) @binding(5) var<storage, read> pyramid: array<f32>;

struct ScreenRect {
    lo: vec2<u32>,
    hi: vec2<u32>,
    depth: f32,
    // False when the bounds reach the near plane or leave the viewport.
    valid: bool,
};

// The pixels (inclusive) an NDC rectangle touches, with its nearest depth
// (the projection is the early pass's, TAA's jitter included).
fn screen_rect(lo: vec2<f32>, hi: vec2<f32>, depth: f32) -> ScreenRect {
    var out: ScreenRect;
    out.valid = false;
    let v = occlusion.viewport;
    let x0 = v.x + (lo.x * 0.5 + 0.5) * v.z;
    let x1 = v.x + (hi.x * 0.5 + 0.5) * v.z;
    let y0 = v.y + (0.5 - hi.y * 0.5) * v.w;
    let y1 = v.y + (0.5 - lo.y * 0.5) * v.w;
    let size = vec2<f32>(occlusion.size);
    if x1 < 0.0 || y1 < 0.0 || x0 >= size.x || y0 >= size.y {
        return out;
    }
    out.lo = vec2<u32>(floor(clamp(vec2<f32>(x0, y0), vec2<f32>(0.0), size - 1.0)));
    out.hi = vec2<u32>(floor(clamp(vec2<f32>(x1, y1), vec2<f32>(0.0), size - 1.0)));
    out.depth = depth;
    out.valid = true;
    return out;
}

// A sphere's rectangle: the cube around it in view space, its eight
// corners projected, and the depth of its nearest point.
fn sphere_rect(centre: vec3<f32>, radius: f32) -> ScreenRect {
    var out: ScreenRect;
    out.valid = false;
    let c = occlusion.view * vec4<f32>(centre, 1.0);
    let near = occlusion.proj * vec4<f32>(c.x, c.y, c.z + radius, 1.0);
    if near.w <= 1e-5 {
        return out;
    }
    var lo = vec2<f32>(3.4e38);
    var hi = vec2<f32>(-3.4e38);
    for (var k = 0u; k < 8u; k++) {
        let corner = vec4<f32>(
            c.x + select(-radius, radius, (k & 1u) != 0u),
            c.y + select(-radius, radius, (k & 2u) != 0u),
            c.z + select(-radius, radius, (k & 4u) != 0u),
            1.0,
        );
        let clip = occlusion.proj * corner;
        if clip.w <= 1e-5 {
            return out;
        }
        let ndc = clip.xy / clip.w;
        lo = min(lo, ndc);
        hi = max(hi, ndc);
    }
    return screen_rect(lo, hi, near.z / near.w);
}

// A box's rectangle (its world centre and half-axes, the columns of
// `axes`): its eight corners projected, and the nearest corner's depth
// (the depth grows with the distance along the view, so the box's nearest
// point is a corner).
fn box_rect(centre: vec3<f32>, axes: mat3x3<f32>) -> ScreenRect {
    var out: ScreenRect;
    out.valid = false;
    let vp = occlusion.view_proj;
    let c = vp * vec4<f32>(centre, 1.0);
    let a0 = vp * vec4<f32>(axes[0], 0.0);
    let a1 = vp * vec4<f32>(axes[1], 0.0);
    let a2 = vp * vec4<f32>(axes[2], 0.0);
    var lo = vec2<f32>(3.4e38);
    var hi = vec2<f32>(-3.4e38);
    var depth = 3.4e38;
    for (var k = 0u; k < 8u; k++) {
        let clip = c + select(-a0, a0, (k & 1u) != 0u) + select(-a1, a1, (k & 2u) != 0u)
            + select(-a2, a2, (k & 4u) != 0u);
        if clip.w <= 1e-5 {
            return out;
        }
        let ndc = clip.xyz / clip.w;
        lo = min(lo, ndc.xy);
        hi = max(hi, ndc.xy);
        depth = min(depth, ndc.z);
    }
    return screen_rect(lo, hi, depth);
}

fn pyramid_texel(mip: u32, x: u32, y: u32) -> f32 {
    let w = ((occlusion.size.x - 1u) >> mip) + 1u;
    let h = ((occlusion.size.y - 1u) >> mip) + 1u;
    let at = occlusion.offsets[mip / 4u][mip % 4u] + min(y, h - 1u) * w + min(x, w - 1u);
    return pyramid[at];
}

// A rectangle is looked up at the mip where its width and height are at
// most this many texels (`crowd::occlusion::TEST_TEXELS`); where it does
// not start on a texel's edge it straddles one more.
const TEST_TEXELS: u32 = 4u;

// True when the rectangle's nearest depth is behind the farthest depth the
// pyramid holds over it (every texel it straddles at the mip where it is
// at most TEST_TEXELS wide and high: at most 5 x 5 read).
fn occluded(lo_px: vec2<u32>, hi_px: vec2<u32>, depth: f32) -> bool {
    let span = max(hi_px.x - lo_px.x, hi_px.y - lo_px.y) + 1u;
    var m = 0u;
    while (TEST_TEXELS << m) < span && m + 1u < occlusion.mips {
        m++;
    }
    let lo = lo_px >> vec2<u32>(m);
    let hi = hi_px >> vec2<u32>(m);
    var far = 0.0;
    for (var y = lo.y; y <= hi.y; y++) {
        for (var x = lo.x; x <= hi.x; x++) {
            far = max(far, pyramid_texel(m, x, y));
        }
    }
    return depth > far;
}


const SURVIVOR_WORDS: u32 = 4u;
const SURVIVORS_HEADER: u32 = 4u;
// The most workgroups in one dispatch dimension every adapter allows.
const MAX_GROUPS: u32 = 65535u;
const DRAWN_BIT: u32 = 0x80000000u;

// Phase 1 (and no occlusion): whether the instance `i` (`bits` from
// `cull_instance`, of `model`, placed by `basis` at `scale` with its
// sphere at `centre`, `radius`) is appended now. Phase 1 appends the
// survivors visible last frame, lists every survivor with its screen
// rectangle for phase 2 and forgets the culled's visibility.
// A mesh is tested by its box (the model's box of every baked frame,
// placed); an impostor by its sphere: it shows its atlas's nearest view,
// which may reach past the box seen from the instance's own direction,
// never past the sphere the atlas's cells frame.
fn occlusion_keep(i: u32, bits: u32, model: CullModel, centre: vec3<f32>, radius: f32, basis: mat3x3<f32>, scale: f32) -> bool {
    if occlusion.phase != 1u {
        return bits != CULLED;
    }
    if bits == CULLED {
        state[i] = 0u;
        return false;
    }
    let drawn = state[i] != 0u;
    var r: ScreenRect;
    if region_of(model, bits) == model.impostor_region {
        r = sphere_rect(centre, radius);
    } else {
        let h = model.half.xyz * scale;
        r = box_rect(centre, mat3x3<f32>(basis[0] * h.x, basis[1] * h.y, basis[2] * h.z));
    }
    // Never occluded: the nearest depth there is.
    if !r.valid {
        r.lo = vec2<u32>(0u);
        r.hi = vec2<u32>(0u);
        r.depth = 0.0;
    }
    let slot = atomicAdd(&draw_args[occlusion.counter_word + 1u], 1u);
    let at = occlusion.capacity + SURVIVORS_HEADER + slot * SURVIVOR_WORDS;
    state[at] = r.lo.x | (r.lo.y << 16u);
    state[at + 1u] = r.hi.x | (r.hi.y << 16u);
    // Never negative (not even -0.0): the sign bit is DRAWN_BIT.
    state[at + 2u] = (bitcast<u32>(max(r.depth, 0.0)) & ~DRAWN_BIT) | select(0u, DRAWN_BIT, drawn);
    state[at + 3u] = i | bits;
    return drawn;
}

// After phase 1, one invocation: phase 2's workgroups from the survivors
// listed (into the same arguments, read by an indirect dispatch), and their
// count where phase 2 reads it.
@compute @workgroup_size(1)
fn cs_late_args() {
    let n = atomicLoad(&draw_args[occlusion.counter_word + 1u]);
    state[occlusion.capacity] = n;
    let groups = (n + CULL_GROUP - 1u) / CULL_GROUP;
    atomicStore(&draw_args[occlusion.counter_word + 2u], min(groups, MAX_GROUPS));
    atomicStore(&draw_args[occlusion.counter_word + 3u], max((groups + MAX_GROUPS - 1u) / MAX_GROUPS, 1u));
    atomicStore(&draw_args[occlusion.counter_word + 4u], 1u);
}

// Phase 2: one invocation per survivor phase 1 listed (`survivors`: their
// count). Appends the survivor when the pyramid does not hide it and phase
// 1 did not draw it, records its visibility, counts the occluded.
@compute @workgroup_size(CULL_GROUP)
fn cs_cull_late(@builtin(global_invocation_id) id: vec3<u32>) {
    let s = id.x + id.y * MAX_GROUPS * CULL_GROUP;
    if s >= state[occlusion.capacity] {
        return;
    }
    let at = occlusion.capacity + SURVIVORS_HEADER + s * SURVIVOR_WORDS;
    let lo = vec2<u32>(state[at] & 0xffffu, state[at] >> 16u);
    let hi = vec2<u32>(state[at + 1u] & 0xffffu, state[at + 1u] >> 16u);
    let depth = bitcast<f32>(state[at + 2u] & ~DRAWN_BIT);
    let drawn = (state[at + 2u] & DRAWN_BIT) != 0u;
    let entry = state[at + 3u];
    let i = entry & 0x0fffffffu;
    let seen = occlusion.phase == 3u || !occluded(lo, hi, depth);
    state[i] = select(0u, 1u, seen);
    if !seen {
        if !drawn {
            atomicAdd(&draw_args[occlusion.counter_word], 1u);
        }
        return;
    }
    if drawn {
        return;
    }
    let region = region_of(cull.models[model_of(entry & 0x0fffffffu)], entry);
    let slot = atomicAdd(&draw_args[region * 5u + 1u], 1u);
    visible_out[region * cull.region + slot] = entry;
    // Phase 1 kept no state in these lists: this pass resolves it (the
    // instances phase 1 did not draw, a few).
    let inst = instances[i];
    keep_state(i, inst, anim_state(i, inst));
}
