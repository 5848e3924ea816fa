// The baked bone texture ("animation instancing"), shared by the
// bone-texture technique and compute skinning from it: every frame's
// palette stored once, row = frame, texels 3j..3j+3 = joint j's affine rows
// (RGBA32F). The clip table's `first_row` is the clip's first row in this
// texture; the frame mapping is the VAT's.
// requires: pose skin

@group(1) @binding(10) var bone_texture: texture_2d<f32>;

fn bone_joint(row: u32, j: u32) -> mat3x4<f32> {
    let x = i32(3u * j);
    let y = i32(row);
    return mat3x4<f32>(
        textureLoad(bone_texture, vec2<i32>(x, y), 0),
        textureLoad(bone_texture, vec2<i32>(x + 1, y), 0),
        textureLoad(bone_texture, vec2<i32>(x + 2, y), 0),
    );
}

// The two baked rows clip `clip_index` shows at clip time `t` and the
// second one's weight (the nearest row twice when not interpolating).
struct BoneFrames {
    row0: u32,
    row1: u32,
    w: f32,
};

fn bone_frames(clip_index: u32, t: f32, interpolate: bool) -> BoneFrames {
    let clip = vat_clips[clip_index];
    let frame = vat_frame(clip, t);
    let last = clip.frame_count - 1u;
    var f0 = min(u32(floor(frame)), last);
    var f1 = min(f0 + 1u, last);
    var w = frame - f32(f0);
    if !interpolate {
        f0 = min(u32(frame + 0.5), last);
        f1 = f0;
        w = 0.0;
    }
    var out: BoneFrames;
    out.row0 = clip.first_row + f0;
    out.row1 = clip.first_row + f1;
    out.w = w;
    return out;
}

// Joint `j` between the two rows of `f`.
fn bone_frames_joint(f: BoneFrames, j: u32) -> mat3x4<f32> {
    return bone_joint(f.row0, j) * (1.0 - f.w) + bone_joint(f.row1, j) * f.w;
}

// The blended joint matrix of vertex `sv` for clip `clip_index` at clip
// time `t`: the lerp of the two neighbouring baked palettes (or the nearest
// when not interpolating).
fn bone_matrix(sv: SkinVertex, clip_index: u32, t: f32, interpolate: bool, joints: u32) -> mat3x4<f32> {
    let f = bone_frames(clip_index, t, interpolate);
    var m = mat3x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    for (var k = 0u; k < 4u; k++) {
        m += bone_frames_joint(f, skin_joint(sv, k, joints)) * sv.weights[k];
    }
    return m;
}

// Vertex `v` of clip `clip_index` at clip time `t`.
fn bone_vertex(v: u32, clip_index: u32, t: f32, interpolate: bool) -> VatSample {
    let sv = skin_vertices[v];
    let joints = textureDimensions(bone_texture).x / 3u;
    return skin_apply(sv, bone_matrix(sv, clip_index, t, interpolate, joints));
}

// The crossfade: the two clips' interpolated matrices blended by `weight`.
fn bone_vertex_blend(
    v: u32,
    previous: u32,
    previous_time: f32,
    clip: u32,
    time: f32,
    weight: f32,
    interpolate: bool,
) -> VatSample {
    let sv = skin_vertices[v];
    let joints = textureDimensions(bone_texture).x / 3u;
    let current = bone_matrix(sv, clip, time, interpolate, joints);
    if weight >= 1.0 {
        return skin_apply(sv, current);
    }
    let before = bone_matrix(sv, previous, previous_time, interpolate, joints);
    return skin_apply(sv, before * (1.0 - weight) + current * weight);
}
