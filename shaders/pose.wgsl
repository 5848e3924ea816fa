// What every technique's pose hook shares: the clip table (group 1, binding
// 2 of every technique), the clip-time → frame mapping (the twin of
// `vat::VatClip::frame_at`), and the posed vertex every hook returns.
// `VatClip` and `SkinInfo` are mirrored by `render::gpu_data::{VatClipGpu,
// SkinInfo}` (tests/gpu_layout.rs checks them).

struct VatClip {
    layer: u32,
    // First row of the clip in the technique's texture (VAT or bone texture).
    first_row: u32,
    frame_count: u32,
    looping: u32,
    duration: f32,
    rows_per_frame: u32,
    width: u32,
    // Model units per second of clip time (used by the crowd motion).
    ground_speed: f32,
    // The first vertex of the clip's model in the scene's vertex stream
    // (`vat::VatSet`; 0 with one model).
    vertex_base: u32,
};

// A vertex's model-space position and normal: what each technique supplies.
struct VatSample {
    position: vec3<f32>,
    normal: vec3<f32>,
};

// Sizes the skinning techniques index with.
struct SkinInfo {
    joints: u32,
    vertices: u32,
    // Instances whose previous pose the technique kept (live and compute
    // skinning's palettes, CPU skinning's vertices): the velocity target.
    previous: u32,
    _pad: u32,
};

@group(1) @binding(2) var<storage, read> vat_clips: array<VatClip>;

// Fractional frame for clip time `t`: wrapped for looping clips, clamped
// otherwise (matches `VatClip::frame_at`).
fn vat_frame(clip: VatClip, t: f32) -> f32 {
    let segments = f32(clip.frame_count - 1u);
    if clip.frame_count <= 1u || clip.duration <= 0.0 {
        return 0.0;
    }
    var ct = t;
    if clip.looping != 0u {
        ct = t - clip.duration * floor(t / clip.duration);
    } else {
        ct = clamp(t, 0.0, clip.duration);
    }
    return min(ct / clip.duration * segments, segments);
}
