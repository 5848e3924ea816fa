// Draws the impostor atlas: the model posed through its VAT (the same
// `vat_sample` every VAT draw uses) at an atlas frame's clip time, seen
// orthographically from each cell's direction into that cell of the
// layer. One instanced draw per layer (instance = cell), the layer's clip
// and time bound at its own offset.
// Writes the unlit albedo (base colour × texture × vertex colour) with
// coverage in alpha, and the model-space normal with the depth through the
// model's sphere (0 at the viewer's side); multisampled, so the resolve
// averages both over the covered samples (premultiplied by coverage).
// requires: vat impostor_common

struct BakeLayer {
    clip: u32,
    time: f32,
    _pad0: u32,
    _pad1: u32,
};

@group(0) @binding(0) var<storage, read> atlas: AtlasParams;
// Only multiplied by (its values decide no branch), so a uniform.
@group(0) @binding(1) var<uniform> bake_layer: BakeLayer;
@group(2) @binding(0) var base_color_tex: texture_2d_array<f32>;
@group(2) @binding(1) var base_color_sampler: sampler;

struct BakeIn {
    @builtin(vertex_index) vertex: u32,
    @builtin(instance_index) instance: u32,
    @location(0) uv: vec2<f32>,
    @location(1) color: vec4<f32>,
    @location(2) texture_layer: i32,
};

struct BakeOut {
    @builtin(position) clip_pos: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) color: vec4<f32>,
    @location(2) @interpolate(flat) texture_layer: i32,
    @location(3) normal: vec3<f32>,
    @location(4) depth: f32,
};

struct BakeTargets {
    @location(0) albedo: vec4<f32>,
    @location(1) normal_depth: vec4<f32>,
};

// A model-space point in cell (column, row): x, y in -1..1 across the
// cell, z in 0..1 through the sphere, 0 towards the viewer.
fn cell_coords(p: vec3<f32>, column: u32, row: u32) -> vec3<f32> {
    let d = atlas_direction(atlas, column, row);
    let right = atlas_right(atlas, column);
    let up = cross(d, right);
    let q = p - atlas.sphere.xyz;
    let r = atlas.sphere.w;
    return vec3<f32>(dot(q, right) / atlas.extent, dot(q, up) / atlas.extent, (r - dot(q, d)) / (2.0 * r));
}

@vertex
fn vs_bake(in: BakeIn) -> BakeOut {
    let cell = in.instance;
    let column = cell % atlas.yaws;
    let row = cell / atlas.yaws;
    let job = bake_layer;
    let s = vat_sample(in.vertex, job.clip, job.time, true);
    let c = cell_coords(s.position, column, row);
    // The cell's place in the layer: columns left to right, rows top to
    // bottom (texel row 0 at the top, NDC y = 1).
    let u = (f32(column) + c.x * 0.5 + 0.5) / f32(atlas.yaws);
    let v = (f32(row) + 0.5 - c.y * 0.5) / f32(atlas.rows);
    var out: BakeOut;
    out.clip_pos = vec4<f32>(u * 2.0 - 1.0, 1.0 - v * 2.0, clamp(c.z, 0.0, 1.0), 1.0);
    out.uv = in.uv;
    out.color = in.color;
    out.texture_layer = in.texture_layer;
    out.normal = s.normal;
    out.depth = c.z;
    return out;
}

@fragment
fn fs_bake(in: BakeOut, @builtin(front_facing) front: bool) -> BakeTargets {
    let layer = max(in.texture_layer, 0);
    let texel = textureSample(base_color_tex, base_color_sampler, in.uv, layer);
    var albedo = in.color.rgb;
    if in.texture_layer >= 0 {
        albedo *= texel.rgb;
    }
    var n = normalize(in.normal);
    if !front {
        n = -n;
    }
    var out: BakeTargets;
    out.albedo = vec4<f32>(albedo, 1.0);
    out.normal_depth = vec4<f32>(n * 0.5 + 0.5, clamp(in.depth, 0.0, 1.0));
    return out;
}
