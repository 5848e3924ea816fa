//! Motion between frames, as plain data: the anti-aliasing modes, the TAA
//! jitter sequence, the rule that decides when the previous frame's time
//! can be trusted (and when TAA's history must be dropped), and the CPU
//! twin of the velocity the scene pass writes (`screen_motion` in
//! shaders/common.wgsl).

use super::frame::{FrameSettings, FrameUniform};
use super::scene_time::split_time;
use glam::{Mat4, Vec2, Vec3, Vec4};

/// How the picture is anti-aliased.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Aa {
    /// 4× multisampling (2× or none where the adapter has less).
    #[default]
    Msaa,
    /// Temporal anti-aliasing: a jittered projection, the history
    /// reprojected by the velocity target, neighbourhood clipping.
    Taa,
    /// Neither: one sample per pixel.
    Off,
}

impl Aa {
    pub const ALL: [Aa; 3] = [Aa::Msaa, Aa::Taa, Aa::Off];

    pub fn label(self) -> &'static str {
        match self {
            Aa::Msaa => "msaa",
            Aa::Taa => "taa",
            Aa::Off => "off",
        }
    }

    pub fn parse(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|a| a.label() == s)
            .ok_or_else(|| format!("unknown anti-aliasing '{s}' (expected msaa, taa or off)"))
    }
}

/// Frames of the jitter sequence before it repeats.
pub const JITTER_FRAMES: u32 = 16;

/// The radical inverse of `i` in `base` (the Halton sequence).
fn halton(mut i: u32, base: u32) -> f32 {
    let mut f = 1.0;
    let mut r = 0.0;
    while i > 0 {
        f /= base as f32;
        r += f * (i % base) as f32;
        i /= base;
    }
    r
}

/// The sub-pixel offset of frame `n` of TAA's jitter, in pixels, within
/// (-0.5, 0.5)²: the Halton (2, 3) points 1..=16, which cover the pixel
/// evenly over each cycle.
pub fn jitter(n: u32) -> Vec2 {
    let i = n % JITTER_FRAMES + 1;
    Vec2::new(halton(i, 2), halton(i, 3)) - Vec2::splat(0.5)
}

/// `view_proj` moved by `offset` pixels on a `width` × `height` target
/// (x right, y down), as the rasterizer sees it.
pub fn jittered(view_proj: Mat4, offset: Vec2, width: u32, height: u32) -> Mat4 {
    let dx = 2.0 * offset.x / width.max(1) as f32;
    let dy = -2.0 * offset.y / height.max(1) as f32;
    Mat4::from_translation(Vec3::new(dx, dy, 0.0)) * view_proj
}

/// The longest step between two frames that still counts as motion (a
/// longer one, or time going back, is a jump: no motion, history dropped).
pub const MAX_FRAME_STEP_S: f64 = 0.25;

/// Whether the previous frame's time `before` can be used as the previous
/// pose's for a frame at `now` (a pause, `before == now`, is still motion:
/// none).
pub fn continuous(before: f64, now: f64) -> bool {
    let step = now - before;
    (0.0..=MAX_FRAME_STEP_S).contains(&step)
}

/// A point's motion on screen from clip position `before` (previous
/// camera) to `now` (this camera), in UV units (x right, y down): the twin
/// of `screen_motion` in shaders/common.wgsl.
pub fn screen_motion(now: Vec4, before: Vec4) -> Vec2 {
    if now.w.abs() < 1e-6 || before.w.abs() < 1e-6 {
        return Vec2::ZERO;
    }
    let d = now.truncate().truncate() / now.w - before.truncate().truncate() / before.w;
    Vec2::new(0.5 * d.x, -0.5 * d.y)
}

/// The motion in pixels of world point `now` (this frame) that was at
/// `before` (the previous frame), seen by the two cameras.
pub fn pixel_motion(
    now: Vec3,
    before: Vec3,
    view_proj: Mat4,
    previous_view_proj: Mat4,
    size: (u32, u32),
) -> Vec2 {
    let m = screen_motion(
        view_proj * now.extend(1.0),
        previous_view_proj * before.extend(1.0),
    );
    m * Vec2::new(size.0 as f32, size.1 as f32)
}

/// What the renderer keeps of the previous frame for the velocity target
/// and TAA: its time and unjittered camera, and where the jitter sequence
/// is.
#[derive(Clone, Copy, Debug, Default)]
pub struct MotionHistory {
    previous: Option<(f64, Mat4)>,
    /// The previous frame's settings other than the time: a change of
    /// playback speed, stride or spread moves every instance to a pose the
    /// previous frame's time does not give, so it is a jump.
    settings: Option<FrameSettings>,
    frame: u32,
}

/// `s` without its time (what must not change between two frames for the
/// previous pose to be the one drawn).
fn timeless(s: &FrameSettings) -> FrameSettings {
    FrameSettings { time: 0.0, ..*s }
}

impl MotionHistory {
    /// This frame's jitter (pixels): TAA's sequence, else none.
    pub fn jitter(&self, aa: Aa) -> Vec2 {
        if aa == Aa::Taa {
            jitter(self.frame)
        } else {
            Vec2::ZERO
        }
    }

    /// Fills the motion fields of a frame of `settings` seen by the
    /// unjittered `view_proj` (jittered by `jitter` pixels), and remembers
    /// it as the next frame's previous one. Returns the previous frame's
    /// time, or `None` when there is none to trust (the first frame, a
    /// time jump, a change of playback speed, stride or spread, or `jump`): the
    /// previous pose is then this frame's and TAA's history is dropped.
    /// The previous camera is kept across a jump (its motion is still
    /// right).
    pub fn begin(
        &mut self,
        uniform: &mut FrameUniform,
        view_proj: Mat4,
        jitter: Vec2,
        settings: &FrameSettings,
    ) -> Option<f64> {
        let time = settings.time;
        let (before, before_view_proj) = self.previous.unwrap_or((time, view_proj));
        let same = self.settings == Some(timeless(settings));
        let trusted = self.previous.is_some() && same && continuous(before, time);
        let t = if trusted { before } else { time };
        uniform.motion_view_proj = view_proj.to_cols_array_2d();
        uniform.previous_view_proj = before_view_proj.to_cols_array_2d();
        (uniform.previous_time_hi, uniform.previous_time_lo) = split_time(t);
        uniform.jitter = jitter.to_array();
        self.previous = Some((time, view_proj));
        self.settings = Some(timeless(settings));
        self.frame = self.frame.wrapping_add(1);
        trusted.then_some(t)
    }

    /// Makes the next frame a jump (a model's clip changed: its instances
    /// take poses the previous time does not give), keeping the camera.
    pub fn jump(&mut self) {
        self.settings = None;
    }

    /// Forgets the previous frame (a new model, count or device: the next
    /// frame has no motion and starts TAA's history again).
    pub fn cut(&mut self) {
        self.previous = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytemuck::Zeroable;

    #[test]
    fn jitter_covers_the_pixel_evenly() {
        let points: Vec<Vec2> = (0..JITTER_FRAMES).map(jitter).collect();
        for p in &points {
            assert!(p.x > -0.5 && p.x < 0.5 && p.y > -0.5 && p.y < 0.5, "{p}");
        }
        let mean = points.iter().copied().sum::<Vec2>() / points.len() as f32;
        assert!(mean.length() < 0.05, "mean {mean}");
        // Every quarter of the pixel gets about a quarter of the points.
        for q in 0..4 {
            let n = points
                .iter()
                .filter(|p| ((p.x >= 0.0) as usize + 2 * (p.y >= 0.0) as usize) == q)
                .count();
            assert!((3..=5).contains(&n), "quadrant {q}: {n} points");
        }
        assert_eq!(jitter(3), jitter(3 + JITTER_FRAMES));
    }

    #[test]
    fn jittered_projection_moves_points_by_the_offset() {
        let vp = glam::camera::rh::proj::directx::perspective(1.0, 1.5, 0.1, 100.0);
        let p = Vec4::new(0.3, -0.2, -5.0, 1.0);
        let (w, h) = (300, 200);
        let off = Vec2::new(0.25, -0.375);
        let moved = pixel_motion(
            p.truncate(),
            p.truncate(),
            jittered(vp, off, w, h),
            vp,
            (w, h),
        );
        assert!((moved - off).length() < 1e-3, "{moved} vs {off}");
    }

    #[test]
    fn time_jumps_are_not_motion() {
        assert!(continuous(1.0, 1.0));
        assert!(continuous(1.0, 1.0 + 1.0 / 60.0));
        assert!(!continuous(1.0, 0.5));
        assert!(!continuous(1.0, 2.0));
    }

    #[test]
    fn a_change_of_speed_or_clip_is_a_jump() {
        let mut h = MotionHistory::default();
        let mut u = FrameUniform::zeroed();
        let s = FrameSettings {
            time: 1.0,
            ..FrameSettings::default()
        };
        let step = |t: f64, s: &FrameSettings| FrameSettings { time: t, ..*s };
        let mut begin = |s: &FrameSettings| h.begin(&mut u, Mat4::IDENTITY, Vec2::ZERO, s);
        assert_eq!(begin(&s), None, "no previous frame");
        assert_eq!(begin(&step(1.01, &s)), Some(1.0));
        let faster = FrameSettings {
            playback: 2.0,
            ..step(1.02, &s)
        };
        assert_eq!(begin(&faster), None, "playback changed");
        assert_eq!(begin(&step(1.03, &faster)), Some(1.02));
        let other = step(1.04, &faster);
        h.jump();
        assert_eq!(
            h.begin(&mut u, Mat4::IDENTITY, Vec2::ZERO, &other),
            None,
            "a clip changed"
        );
        let (hi, lo) = split_time(1.04);
        assert_eq!(
            (u.previous_time_hi, u.previous_time_lo),
            (hi, lo),
            "this frame's time"
        );
    }

    #[test]
    fn aa_names_round_trip() {
        for a in Aa::ALL {
            assert_eq!(Aa::parse(a.label()), Ok(a));
        }
        assert!(Aa::parse("fxaa").unwrap_err().contains("msaa, taa or off"));
    }
}
