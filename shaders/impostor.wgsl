// The far field's impostors: each instance the cull pass put in the
// impostor region is one quad facing the camera (or, casting into a shadow
// cascade, the sun), placed and animated by
// the same `anim_state` as every technique, showing the atlas cell whose
// direction is nearest to the instance's view and the atlas frames of its
// two crossfading clips. The fragment reads the baked albedo, normal and
// depth, so the impostor is lit by the sun, receives shadows, and meets
// the ground and its neighbours at the depth of the surface it shows.
// requires: crowd behaviour shadow impostor_common listed box_depth

@group(1) @binding(0) var atlas_albedo: texture_2d_array<f32>;
@group(1) @binding(1) var atlas_normal_depth: texture_2d_array<f32>;
@group(1) @binding(3) var atlas_sampler: sampler;
// Each model's atlas parameters (one entry per model of the scene, in
// the crowd's model order; a scene's atlases share the textures, each
// model its own layers), and every model's clips in the scene's clip order
// (their first layers within the shared textures).
@group(1) @binding(4) var<storage, read> atlases: array<AtlasParams>;
@group(1) @binding(5) var<storage, read> atlas_clips: array<AtlasClip>;
// Each cell's covered texels (impostor_bounds.wgsl), every model's from its
// `first_bound`; or every cell whole (the sphere's squares).
// A texel per cell, BOUNDS_ROW cells a row (`impostor::bounds`).
@group(1) @binding(6) var atlas_bounds: texture_2d<u32>;
const BOUNDS_ROW: u32 = 256u;
// 1 when the scene is multisampled (alpha to coverage).
override atlas_msaa: u32 = 0u;
// The cull pass's visible list (`visible`, listed.wgsl) is bound at the
// impostor region, or whole with the region's start as the first instance.

struct ImpostorOut {
    // Invariant, as the meshes' (crowd.wgsl's VertexOut).
    @invariant @builtin(position) clip_pos: vec4<f32>,
    // Within the cell, 0..1, top left first.
    @location(0) uv: vec2<f32>,
    // The point on the quad (world).
    @location(1) world_pos: vec3<f32>,
    // The texels where the cell starts in the two frames' layers (the
    // previous clip's, then the current one's), and those layers.
    @location(2) @interpolate(flat) origins: vec4<u32>,
    @location(3) @interpolate(flat) layers: vec2<u32>,
    // x = crossfade weight of the current clip, y = the instance's scale,
    // z = atlas texels per pixel across the quad.
    @location(4) @interpolate(flat) fade_scale: vec3<f32>,
    // Towards the camera (world, unit), and the model's axes in the world.
    @location(5) @interpolate(flat) view: vec3<f32>,
    @location(6) @interpolate(flat) axis_x: vec3<f32>,
    @location(7) @interpolate(flat) axis_y: vec3<f32>,
    @location(8) @interpolate(flat) axis_z: vec3<f32>,
    @location(9) @interpolate(flat) tint: vec4<f32>,
    // Where the instance's centre was when the previous frame was drawn,
    // less where it is (the velocity target: the impostor is a flipbook,
    // its points move with its centre); zero when `frame.velocity` is 0.
    @location(10) @interpolate(flat) shift: vec3<f32>,
    // The instance's model (its entry of `atlases`).
    @location(11) @interpolate(flat) model: u32,
};

// Model `m`'s atlas parameters (the last entry's past the table).
fn atlas_of(m: u32) -> AtlasParams {
    return atlases[min(m, arrayLength(&atlases) - 1u)];
}

// The model's atlas frame of `clip` at time `t`.
fn impostor_frame(atlas: AtlasParams, clip: u32, t: f32) -> u32 {
    let c = atlas_clips[min(clip, arrayLength(&atlas_clips) - 1u)];
    return min(c.first_layer + atlas_frame(c, t), atlas.layers - 1u);
}

// The part of its cell (u0, v0, u1, v1 in 0..1, v down) the quad of cell
// `cell` covers when the atlas is read at `footprint` texels per pixel:
// the cell's covered texels widened by two texels of the mip level read
// (a bilinear tap reaches one and a half), clamped to the cell; nothing
// for an empty cell. The twin of `impostor::quad_span`.
fn impostor_span(atlas: AtlasParams, cell: vec2<u32>, footprint: f32) -> vec4<f32> {
    let at = atlas.first_bound + cell.y * atlas.yaws + cell.x;
    let size_in_cells = textureDimensions(atlas_bounds);
    let last = size_in_cells.x * size_in_cells.y - 1u;
    let i = min(at, last);
    let b = textureLoad(atlas_bounds, vec2<u32>(i % BOUNDS_ROW, i / BOUNDS_ROW), 0);
    if b.z <= b.x || b.w <= b.y {
        return vec4<f32>(0.5);
    }
    let size = f32(atlas.cell);
    let lod = clamp(log2(max(footprint, 1e-6)) - 0.5, 0.0, log2(size));
    let margin = 2.0 * exp2(ceil(lod));
    let lo = clamp((vec2<f32>(b.xy) - margin) / size, vec2<f32>(0.0), vec2<f32>(1.0));
    let hi = clamp((vec2<f32>(b.zw) + margin) / size, vec2<f32>(0.0), vec2<f32>(1.0));
    return vec4<f32>(lo, hi);
}

// The quad of visible entry `instance`, corner `corner`, facing the camera
// or, with `from_sun`, the sun (a shadow cascade's caster).
fn impostor_vertex(corner: u32, instance: u32, from_sun: bool) -> ImpostorOut {
    let index = visible[instance] & 0x0fffffffu;
    let inst = instances[index];
    let model = model_of(index);
    let atlas = atlas_of(model);
    let a = entry_state(index, inst);
    let p = a.place;
    let m = placement_basis(p);
    let right = m[0];
    let up = m[1];
    let centre = p.origin + m * (atlas.sphere.xyz * inst.scale);
    var view = normalize(frame.camera_pos.xyz - centre);
    if from_sun {
        view = normalize(frame.sun_dir.xyz);
    }
    // The view in model space picks the cell; the quad faces the camera
    // with the cell camera's right laid into its plane.
    let local = transpose(m) * view;
    let cell = atlas_cell(atlas, local);
    let r = atlas_right(atlas, cell.x);
    let qr = normalize(r - local * dot(local, r));
    let qu = cross(local, qr);
    // Texels per pixel, from the quad's size on screen at its centre's
    // distance (screen-space derivatives at the quad's edges and across
    // its diagonal are unreliable on some drivers); per shadow-map texel
    // for a caster (orthographic: w is 1) the fragment stage scales it by
    // the map's resolution, which the vertex stage cannot read: here it is
    // per clip-space unit.
    var vp = frame.view_proj;
    var height = frame.viewport_height;
    if from_sun {
        vp = caster.view_proj;
        height = 2.0;
    }
    let w = (vp * vec4<f32>(centre, 1.0)).w;
    // Clip y's gradient in the world: the projection's y scale whatever
    // the view's rotation.
    let y_scale = length(vec3<f32>(vp[0][1], vp[1][1], vp[2][1]));
    let px_per_unit = 0.5 * height * y_scale / max(w, 1e-4);
    let quad_px = 2.0 * atlas.extent * inst.scale * px_per_unit;
    let footprint = f32(atlas.cell) / max(quad_px, 1e-3);
    // The corner within the cell: the span's (tight quads; a caster's
    // footprint is only known per shadow-map texel in the fragment stage,
    // so its quad is the whole cell).
    var span = vec4<f32>(0.0, 0.0, 1.0, 1.0);
    if !from_sun {
        span = impostor_span(atlas, cell, footprint);
    }
    let uv = vec2<f32>(
        select(span.x, span.z, (corner & 1u) == 1u),
        select(span.w, span.y, (corner >> 1u) == 1u),
    );
    let sx = uv.x * 2.0 - 1.0;
    let sy = 1.0 - uv.y * 2.0;
    let world = centre + m * (qr * sx + qu * sy) * (atlas.extent * inst.scale);
    var out: ImpostorOut;
    out.clip_pos = vp * vec4<f32>(world, 1.0);
    // The quad's depth is the nearest its box (the cell's square, the
    // sphere's depth either side of it) comes to the camera or the sun.
    // Every depth the fragment writes lies at or behind it, so the depth
    // test can run before the fragment (`@early_depth_test`). Depth
    // decides no pixel's coverage, so the picture is the same, but for
    // clipping: a quad reaching past the near or far plane is no longer
    // cut there by its own depth (an impostor is never near the camera's
    // near plane, the sky covers what is past its far plane, and a
    // cascade's near plane is pulled back to hold every caster). (A
    // caster's fragment needs the quad's own depth: `tint.y` below.)
    let half = vec3<f32>(atlas.extent, atlas.extent, atlas.sphere.w) * inst.scale;
    let front = box_front(vp, centre, mat3x3<f32>(m * qr, m * qu, view), half);
    let quad_depth = out.clip_pos.z;
    out.clip_pos.z = front * out.clip_pos.w;
    out.uv = uv;
    out.world_pos = world;
    let before = atlas_place(atlas, impostor_frame(atlas, a.previous, a.previous_time), cell.y);
    let now = atlas_place(atlas, impostor_frame(atlas, a.clip, a.time), cell.y);
    let x = cell.x * atlas.cell;
    out.origins = vec4<u32>(x, before.y, x, now.y);
    out.layers = vec2<u32>(before.x, now.x);
    out.model = model;
    out.fade_scale = vec3<f32>(a.weight, inst.scale, footprint);
    out.view = view;
    out.axis_x = right;
    out.axis_y = up;
    out.axis_z = p.forward;
    out.tint = unpack_tint(inst.tint);
    out.shift = vec3<f32>(0.0);
    if frame.velocity != 0u && !from_sun {
        let before = entry_previous_state(index, inst).place;
        out.shift = before.origin + placement_basis(before) * (atlas.sphere.xyz * inst.scale) - centre;
    }
    if from_sun {
        // A caster needs no tint; its slot carries how the cascade's depth
        // changes per world unit towards the sun (constant: orthographic),
        // which the fragment stage cannot compute (`caster` is the vertex
        // stage's).
        // The quad's own depth (orthographic: the same at every corner)
        // follows in y.
        out.tint = vec4<f32>(dot(vec3<f32>(vp[0][2], vp[1][2], vp[2][2]), view), quad_depth, 0.0, 0.0);
    }
    return out;
}

@vertex
fn vs_impostor(@builtin(vertex_index) corner: u32, @builtin(instance_index) instance: u32) -> ImpostorOut {
    return impostor_vertex(corner, instance, false);
}

// A caster the camera draws as an impostor, into a shadow cascade: the
// atlas seen from the sun's direction.
@vertex
fn vs_impostor_shadow(@builtin(vertex_index) corner: u32, @builtin(instance_index) instance: u32) -> ImpostorOut {
    return impostor_vertex(corner, instance, true);
}

// The smallest coverage drawn: almost none with MSAA (alpha to coverage
// drops the rest), half without.
fn frame_alpha_test() -> f32 {
    return select(0.5, 0.02, atlas_msaa != 0u);
}

struct ImpostorFragment {
    @location(0) color: vec4<f32>,
    @builtin(frag_depth) depth: f32,
};

// The atlas's two crossfading layers blended at the cell's place under the
// quad's `uv`: (albedo with coverage, normal with depth), premultiplied.
struct AtlasTexels {
    color: vec4<f32>,
    normal_depth: vec4<f32>,
};

fn atlas_texels(in: ImpostorOut) -> AtlasTexels {
    let atlas = atlas_of(in.model);
    let cell = f32(atlas.cell);
    // Texels of the cell, kept half a texel of the mip level read inside
    // its edges, so that filtering never reads the neighbouring cell.
    let local = in.uv * cell;
    let footprint = in.fade_scale.z;
    // At most the model's last mip level (a texel per cell): a scene's
    // textures may have more levels than a model with smaller cells drew.
    let lod = clamp(log2(max(footprint, 1e-6)) - 0.5, 0.0, log2(cell));
    let inset = clamp(0.5 * exp2(ceil(lod)), 0.5, cell * 0.5);
    let within = clamp(local, vec2<f32>(inset), vec2<f32>(cell - inset));
    let size = vec2<f32>(atlas.layer_width, atlas.layer_height);
    let uv0 = (vec2<f32>(in.origins.xy) + within) / size;
    let uv1 = (vec2<f32>(in.origins.zw) + within) / size;
    // Both clips of the crossfade (the weight is 1 once settled), blended
    // premultiplied, as the atlas stores them; half a level sharper than
    // the footprint asks (the coverage's box filter already softens).
    let c0 = textureSampleLevel(atlas_albedo, atlas_sampler, uv0, in.layers.x, lod);
    let n0 = textureSampleLevel(atlas_normal_depth, atlas_sampler, uv0, in.layers.x, lod);
    let c1 = textureSampleLevel(atlas_albedo, atlas_sampler, uv1, in.layers.y, lod);
    let n1 = textureSampleLevel(atlas_normal_depth, atlas_sampler, uv1, in.layers.y, lod);
    let w = clamp(in.fade_scale.x, 0.0, 1.0);
    return AtlasTexels(mix(c0, c1, w), mix(n0, n1, w));
}

// The surface point a texel shows: the quad point moved towards the viewer
// by the baked depth through the sphere (0 at its side towards the viewer).
fn atlas_surface(in: ImpostorOut, normal_depth: vec4<f32>, coverage: f32) -> vec3<f32> {
    let depth01 = normal_depth.w / coverage;
    let t = atlas_of(in.model).sphere.w * in.fade_scale.y * (1.0 - 2.0 * depth01);
    return in.world_pos + in.view * t;
}

// With the velocity target (`render::Targets::velocity`).
struct ImpostorVelocityFragment {
    @location(0) color: vec4<f32>,
    @location(1) velocity: vec2<f32>,
    @builtin(frag_depth) depth: f32,
};

// Both scene entries write a depth at or behind the quad's (`box_front`):
// where the device allows it (`render::util::shaders`), the depth test
// runs before them. WebGPU has no such attribute: there it runs after.
@fragment
@early_depth_test(greater_equal)
fn fs_impostor(in: ImpostorOut) -> ImpostorFragment {
    let s = impostor_shade(in);
    return ImpostorFragment(s.color, s.depth);
}

@fragment
@early_depth_test(greater_equal)
fn fs_impostor_velocity(in: ImpostorOut) -> ImpostorVelocityFragment {
    let s = impostor_shade(in);
    let now = frame.motion_view_proj * vec4<f32>(s.world, 1.0);
    let before = frame.previous_view_proj * vec4<f32>(s.world + in.shift, 1.0);
    return ImpostorVelocityFragment(s.color, screen_motion(now, before), s.depth);
}

struct ImpostorShade {
    color: vec4<f32>,
    depth: f32,
    // The surface point the texel shows (world).
    world: vec3<f32>,
};

fn impostor_shade(in: ImpostorOut) -> ImpostorShade {
    let texels = atlas_texels(in);
    let c = texels.color;
    let nd = texels.normal_depth;
    // With MSAA the coverage becomes the share of samples covered
    // (alpha to coverage); without, an alpha test at `atlas_alpha_test`.
    let coverage = c.a;

    if coverage < frame_alpha_test() {
        discard;
    }
    let albedo = c.rgb / coverage * in.tint.rgb;
    let m = mat3x3<f32>(in.axis_x, in.axis_y, in.axis_z);
    let n = normalize(m * (nd.xyz / coverage * 2.0 - 1.0));
    let world = atlas_surface(in, nd, coverage);
    let clip = frame.view_proj * vec4<f32>(world, 1.0);
    var shaded = albedo;
    if frame.lod_tint != 0u {
        shaded = mix(vec3<f32>(0.85), vec3<f32>(0.2, 0.55, 1.0), 0.85);
    }
    let sun = sun_shadow(world, n);
    let lit = shadow_tint(shade(shaded, n, world, sun.visibility), sun);
    var out: ImpostorShade;
    out.color = vec4<f32>(apply_fog(lit, world), coverage);
    // Never in front of the quad (a texel filtered across the cell's
    // edge, rounding): the early depth test's promise.
    out.depth = max(clamp(clip.z / clip.w, 0.0, 1.0), in.clip_pos.z);
    out.world = world;
    return out;
}

// A caster's depth in its cascade: the surface the texel shows, where the
// texel covers at least half (the map is not multisampled); never in front
// of the quad, as in the scene.
@fragment
@early_depth_test(greater_equal)
fn fs_impostor_shadow(in: ImpostorOut) -> @builtin(frag_depth) f32 {
    // Atlas texels per shadow-map texel (the vertex stage gave them per
    // clip-space unit; the map spans 2 of those).
    var seen = in;
    seen.fade_scale.z = in.fade_scale.z * 2.0 / shadows.resolution;
    let texels = atlas_texels(seen);
    let coverage = texels.color.a;
    if coverage < 0.5 {
        discard;
    }
    // The quad's own depth here, moved to the surface the texel shows.
    let depth01 = texels.normal_depth.w / coverage;
    let t = atlas_of(in.model).sphere.w * in.fade_scale.y * (1.0 - 2.0 * depth01);
    return max(clamp(in.tint.y + t * in.tint.x, 0.0, 1.0), in.clip_pos.z);
}
