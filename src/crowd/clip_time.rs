//! One instance's clip and clip time: the CPU twin of `instance_clip` and
//! `instance_clip_time` in shaders/crowd.wgsl. The CPU techniques and the
//! parity checks use it to show the pose the GPU shows.

use super::frame::{CLIP_MIXED, FrameUniform};
use super::instance::Instance;
use crate::pose_batch::ClipTime;
use crate::vat::VatClip;

/// The clip an instance plays and its clip time in seconds (before wrapping
/// or clamping), computed exactly as `instance_clip` and `instance_clip_time`
/// in shaders/crowd.wgsl do. Keep in sync with crowd.wgsl: the CPU techniques
/// and the parity checks use this to show the pose the GPU shows.
pub fn instance_clip_time(
    inst: &Instance,
    frame: &FrameUniform,
    clips: &[VatClip],
) -> (usize, f32) {
    let count = frame.clip_count.max(1);
    let clip = if frame.clip == CLIP_MIXED {
        inst.clip % count
    } else {
        frame.clip.min(frame.clip_count.saturating_sub(1))
    } as usize;
    let duration = clips.get(clip).map_or(0.0, |c| c.duration);
    (
        clip,
        clip_time(inst, frame, duration, frame.playback * inst.speed),
    )
}

/// The one clip-time formula: `rate` seconds of clip per second of scene
/// time, plus the instance's offset into a clip `duration` long (the twin of
/// `clip_time` in shaders/crowd.wgsl).
pub fn clip_time(inst: &Instance, frame: &FrameUniform, duration: f32, rate: f32) -> f32 {
    frame.time * rate + inst.time_offset * frame.spread * duration
}

/// The clip time to sample a pose at for VAT clip time `t`: wrapped for a
/// looping clip, clamped otherwise (the VAT's `frame_at`).
pub fn pose_time(clip: &VatClip, t: f32) -> f32 {
    let segments = clip.segments();
    if segments == 0 {
        0.0
    } else {
        clip.frame_at(t) / segments as f32 * clip.duration
    }
}

/// What to sample for an instance: the model clip and the clip time that
/// the VAT shows for it this frame (exact, not lerped between frames).
pub fn instance_pose(inst: &Instance, frame: &FrameUniform, clips: &[VatClip]) -> ClipTime {
    let (c, t) = instance_clip_time(inst, frame, clips);
    match clips.get(c) {
        Some(clip) => (clip.source, pose_time(clip, t)),
        None => (None, 0.0),
    }
}
