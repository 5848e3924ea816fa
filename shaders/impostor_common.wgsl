// The impostor atlas's layout, shared by the pass that draws the atlas
// (impostor_atlas.wgsl) and the one that draws impostors (impostor.wgsl):
// a layer per (clip, atlas frame), each a grid of cells, column = yaw
// around the model, row = elevation (in a scene's textures, the rows pack
// across layers: `atlas_place`). `AtlasParams` and `AtlasClip` are
// mirrored by `render::gpu_data::{AtlasParamsGpu, AtlasClipGpu}`
// (tests/gpu_layout.rs); the functions are the twins of
// `impostor::AtlasLayout`'s (tests/impostor_gpu.rs).

struct AtlasParams {
    // xyz = model-space sphere centre, w = radius.
    sphere: vec4<f32>,
    cell: u32,
    yaws: u32,
    rows: u32,
    // The model's atlas frames.
    layers: u32,
    // Half the side of a cell's view, model units.
    extent: f32,
    // The model's first layer in the textures (0 but in a scene's).
    first_layer: u32,
    // Texels of a layer. A scene's may be taller than the model's own:
    // its rows of cells are then packed one under another across layers
    // (`atlas_place`).
    layer_width: f32,
    layer_height: f32,
    // Row r's elevation (radians) at [r / 4][r % 4].
    elevations: array<vec4<f32>, 2>,
    // The model's first cell in the cells' bounds (impostor_bounds.wgsl).
    first_bound: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
};

struct AtlasClip {
    first_layer: u32,
    frames: u32,
    duration: f32,
    looping: u32,
};

const ATLAS_TAU: f32 = 6.2831853;

fn atlas_elevation(p: AtlasParams, row: u32) -> f32 {
    return p.elevations[row / 4u][row % 4u];
}

fn atlas_yaw(p: AtlasParams, column: u32) -> f32 {
    return ATLAS_TAU * f32(column) / f32(p.yaws);
}

// The direction (model space, towards the viewer) of a cell.
fn atlas_direction(p: AtlasParams, column: u32, row: u32) -> vec3<f32> {
    let a = atlas_yaw(p, column);
    let e = atlas_elevation(p, row);
    return vec3<f32>(sin(a) * cos(e), sin(e), cos(a) * cos(e));
}

// The cell camera's right (level, perpendicular to the yaw).
fn atlas_right(p: AtlasParams, column: u32) -> vec3<f32> {
    let a = atlas_yaw(p, column);
    return vec3<f32>(cos(a), 0.0, -sin(a));
}

// The cell nearest to a model-space view direction: (column, row).
fn atlas_cell(p: AtlasParams, view: vec3<f32>) -> vec2<u32> {
    let v = normalize(view);
    let yaw = atan2(v.x, v.z);
    let yaws = i32(p.yaws);
    let c = i32(floor(yaw / ATLAS_TAU * f32(p.yaws) + 0.5));
    // The yaw is within ±π, so c is at least -yaws/2: a turn later it is
    // never negative, and the remainder is unsigned (GL's % of a negative
    // i32 is not WGSL's: the cells came out half a turn wrong there).
    let column = u32(c + yaws) % p.yaws;
    let elevation = asin(clamp(v.y, -1.0, 1.0));
    var row = 0u;
    for (var r = 1u; r < min(p.rows, 8u); r++) {
        if abs(elevation - atlas_elevation(p, r)) < abs(elevation - atlas_elevation(p, row)) {
            row = r;
        }
    }
    return vec2<u32>(column, row);
}

// Where row `row` of atlas frame `frame` lies: the layer, and the texel
// row its cells start at (strip frame × rows + row of the model's layers,
// a strip a cell tall). The twin of `impostor::ModelPlace::place`.
fn atlas_place(p: AtlasParams, frame: u32, row: u32) -> vec2<u32> {
    let strips = max(u32(p.layer_height) / p.cell, 1u);
    let strip = frame * p.rows + row;
    return vec2<u32>(p.first_layer + strip / strips, strip % strips * p.cell);
}

// The atlas frame of `clip` nearest to clip time `t` (wrapped like a
// looping clip, clamped otherwise).
fn atlas_frame(clip: AtlasClip, t: f32) -> u32 {
    if clip.frames <= 1u || clip.duration <= 0.0 {
        return 0u;
    }
    if clip.looping != 0u {
        let ct = t - clip.duration * floor(t / clip.duration);
        return u32(floor(ct / clip.duration * f32(clip.frames) + 0.5)) % clip.frames;
    }
    let ct = clamp(t, 0.0, clip.duration);
    return min(u32(floor(ct / clip.duration * f32(clip.frames - 1u) + 0.5)), clip.frames - 1u);
}
