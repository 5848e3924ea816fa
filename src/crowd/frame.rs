//! What changes from frame to frame, as plain data: the settings the viewer
//! and the tools set, and the one uniform every shader reads them from.

use super::scene_time::split_time;
use super::spec::CrowdSpec;
use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec3};

/// Per-frame scene and crowd parameters.
/// Mirrors `Frame` in shaders/common.wgsl (checked by tests/gpu_layout.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct FrameUniform {
    pub view_proj: [[f32; 4]; 4],
    pub inv_view_proj: [[f32; 4]; 4],
    pub camera_pos: [f32; 4],
    pub sun_dir: [f32; 4],
    pub sun_color: [f32; 4],
    pub sky_zenith: [f32; 4],
    pub sky_horizon: [f32; 4],
    pub ground_bounce: [f32; 4],
    pub fog: [f32; 4],
    /// Scene seconds = `time_hi + time_lo`, split by
    /// [`split_time`](super::scene_time::split_time) (`time_hi` is 0 below
    /// 256 s). Reduce products with a rate by
    /// [`scene_cycles`](super::scene_time::scene_cycles).
    pub time_hi: f32,
    pub time_lo: f32,
    pub playback: f32,
    pub spread: f32,
    pub field_radius: f32,
    pub clip: u32,
    pub interpolate: u32,
    pub motion: u32,
    pub stride: f32,
    pub model_size: f32,
    pub ground_y: f32,
    pub instance_count: u32,
    pub clip_count: u32,
    /// 1 = living crowd (herd or flock), 0 = synchronized loops.
    pub behaviour: u32,
    /// Crossfade seconds.
    pub fade: f32,
    pub flap_clip: u32,
    pub glide_clip: u32,
    /// 1 = the crowd is drawn from the cull pass's visible list (indirect
    /// draws); 0 = one instanced draw of every instance.
    pub culled: u32,
    /// 1 = tint each instance by its LOD level.
    pub lod_tint: u32,
    /// The viewport's height in pixels (what a pixel is, for the
    /// impostors' texture footprint).
    pub viewport_height: f32,
    /// The velocity target's cameras: this frame's without the TAA jitter
    /// (`view_proj` has it) and the previous frame's (unjittered too; this
    /// frame's after a cut).
    pub motion_view_proj: [[f32; 4]; 4],
    pub previous_view_proj: [[f32; 4]; 4],
    /// The previous frame's scene time, split as `time_hi + time_lo` (this
    /// frame's after a time jump: no motion rather than a smear).
    pub previous_time_hi: f32,
    pub previous_time_lo: f32,
    /// The TAA jitter of `view_proj`, in pixels.
    pub jitter: [f32; 2],
    /// 1 = the scene pass writes the velocity target.
    pub velocity: u32,
    /// 1 = the crowd is drawn from visible lists bound whole, each ending
    /// with the state the cull pass resolved for what it lists
    /// (`crowd::resolved`); 0 = the vertex shaders compute it.
    pub resolved: u32,
    pub _pad: [u32; 2],
}
const _: () = assert!(std::mem::size_of::<FrameUniform>() == 480);

/// `FrameUniform::clip` value meaning "each instance plays its own clip".
pub const CLIP_MIXED: u32 = u32::MAX;

impl FrameUniform {
    /// The scene time the frame carries, `time_hi + time_lo` in f64 (within
    /// f32's rounding of `time_lo` of what the CPU had).
    pub fn time(&self) -> f64 {
        self.time_hi as f64 + self.time_lo as f64
    }
}

/// What changes from frame to frame (all of it lands in one uniform).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameSettings {
    /// Seconds of scene time (f64: an f32 would step by 1/16 s after 11
    /// days).
    pub time: f64,
    /// Animation and motion speed multiplier.
    pub playback: f32,
    /// 0 = every instance in step, 1 = random phases over a whole clip.
    pub spread: f32,
    /// Lerp between baked frames (false = nearest frame).
    pub interpolate: bool,
    /// Multiplier on ground speed (1 = feet planted).
    pub stride: f32,
}

impl Default for FrameSettings {
    fn default() -> Self {
        Self {
            time: 0.0,
            playback: 1.0,
            spread: 1.0,
            interpolate: true,
            stride: 1.0,
        }
    }
}

/// The unit direction towards the sun (`Frame::sun_dir`).
pub fn sun_direction() -> Vec3 {
    Vec3::new(-0.45, 0.62, 0.38).normalize()
}

/// Fog thick enough to hide the far edge of a field of radius
/// `field_radius` of members `size` long.
fn fog_density(field_radius: f32, size: f32) -> f32 {
    1.0 / (field_radius * 3.0 + size * 20.0)
}

impl FrameUniform {
    /// Widens the field the ground and the fog cover (a scene of several
    /// models spreads over all their fields).
    pub fn set_field_radius(&mut self, radius: f32) {
        self.field_radius = radius;
        self.fog[0] = fog_density(radius, self.model_size);
    }
}

/// Builds the frame uniform.
pub fn frame_uniform(
    view_proj: Mat4,
    eye: Vec3,
    settings: &FrameSettings,
    spec: &CrowdSpec,
    count: u32,
) -> FrameUniform {
    let field_radius = spec.field_radius(count);
    let size = spec.model_size.max(1e-3);
    let (time_hi, time_lo) = split_time(settings.time);
    let sun = sun_direction();
    FrameUniform {
        view_proj: view_proj.to_cols_array_2d(),
        inv_view_proj: view_proj.inverse().to_cols_array_2d(),
        camera_pos: eye.extend(1.0).to_array(),
        sun_dir: sun.extend(1.9).to_array(),
        sun_color: [1.0, 0.92, 0.80, 1.0],
        sky_zenith: [0.22, 0.42, 0.80, 1.0],
        sky_horizon: [0.70, 0.78, 0.86, 1.0],
        ground_bounce: [0.20, 0.22, 0.12, 1.0],
        fog: [fog_density(field_radius, size), size * 4.0, 0.5 / size, 0.0],
        time_hi,
        time_lo,
        playback: settings.playback,
        spread: settings.spread,
        field_radius,
        // The renderer sets it: its first model's clip (each model's own
        // is in the model table).
        clip: CLIP_MIXED,
        interpolate: settings.interpolate as u32,
        motion: spec.motion as u32,
        stride: settings.stride,
        model_size: size,
        ground_y: spec.ground_y,
        instance_count: count,
        clip_count: spec.clip_count,
        // The renderer fills these from its `Behaviour` each frame.
        behaviour: 0,
        fade: 0.25,
        flap_clip: 0,
        glide_clip: 0,
        // The renderer sets these from its cull settings.
        culled: 0,
        lod_tint: 0,
        viewport_height: 1.0,
        // The renderer sets these from its previous frame (no motion until
        // then).
        motion_view_proj: view_proj.to_cols_array_2d(),
        previous_view_proj: view_proj.to_cols_array_2d(),
        previous_time_hi: time_hi,
        previous_time_lo: time_lo,
        jitter: [0.0; 2],
        velocity: 0,
        resolved: 0,
        _pad: [0; 2],
    }
}
