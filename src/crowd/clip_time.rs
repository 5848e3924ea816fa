//! One instance's clip and clip time: the CPU twin of `instance_clip` and
//! `instance_clip_time` in shaders/crowd.wgsl. The CPU techniques and the
//! parity checks use it to show the pose the GPU shows.

use super::frame::{CLIP_MIXED, FrameUniform};
use super::instance::Instance;
use super::scene_time::scene_cycles;
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
        clip_time(inst, frame, duration, frame.playback * inst.speed, 1.0),
    )
}

/// The one clip-time formula: `num / den` seconds of clip per second of
/// scene time, plus the instance's offset into a clip `duration` long (the
/// twin of `clip_time` in shaders/crowd.wgsl). From 256 s on
/// (`time_hi > 0`) the time's part is reduced modulo the clip by
/// [`scene_cycles`], keeping one duration past the end (or before the
/// start) so clips that clamp still do.
pub fn clip_time(inst: &Instance, frame: &FrameUniform, duration: f32, num: f32, den: f32) -> f32 {
    let rate = num / den;
    let offset = inst.time_offset * frame.spread * duration;
    if frame.time_hi == 0.0 || duration.is_nan() || duration <= 0.0 {
        return frame.time_lo * rate + offset;
    }
    let whole = frame.time_hi * rate + frame.time_lo * rate;
    let laps = (whole / duration).floor().clamp(-1.0, 1.0);
    let cycles = scene_cycles(frame.time_hi, frame.time_lo, num, den * duration);
    cycles * duration + laps * duration + offset
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
