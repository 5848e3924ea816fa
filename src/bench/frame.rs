//! One benchmark frame: every renderer of the run (one, or a scene's
//! models drawn by separate renderers) recorded into one encoder, one
//! submit, one wait; its CPU, GPU and wall milliseconds.

use super::FRAME_STEP_S;
use crate::crowd::FrameSettings;
use crate::render::{Camera, RenderError, Renderer};
use std::time::Instant;

/// Everything a frame needs besides the renderers.
#[derive(Clone, Copy)]
pub(super) struct Frame<'a> {
    pub view: &'a wgpu::TextureView,
    pub camera: Camera,
    /// The clip each renderer plays (`None`: its crowd's mix).
    pub clips: &'a [Option<u32>],
}

/// What one frame took, in milliseconds.
#[derive(Clone, Copy, Debug)]
pub(super) struct FrameTimes {
    /// Prepare + encode + submit of every renderer.
    pub cpu: f64,
    /// The scene passes' timestamps, every renderer's added; `None` when
    /// one has none.
    pub gpu: Option<f64>,
    /// The whole frame, the wait for the GPU included.
    pub wall: f64,
}

/// Every renderer's value added; `None` when one has none.
pub(super) fn sum_all(renderers: &[Renderer], f: impl Fn(&Renderer) -> Option<f32>) -> Option<f64> {
    renderers
        .iter()
        .map(|r| f(r).map(f64::from))
        .sum::<Option<f64>>()
}

/// Every renderer's value added, those without one left out; `None` when
/// none has one.
pub(super) fn sum_some(
    renderers: &[Renderer],
    f: impl Fn(&Renderer) -> Option<f32>,
) -> Option<f64> {
    let values: Vec<f64> = renderers
        .iter()
        .filter_map(|r| f(r).map(f64::from))
        .collect();
    (!values.is_empty()).then(|| values.iter().sum())
}

impl Frame<'_> {
    /// With occlusion culling: the wall milliseconds of the three frames
    /// after a camera cut (one frame turned half round, then back at frame
    /// `index` on), while the visibility it keeps catches up: the first
    /// draws what the other view saw and everything it does not hide, the
    /// second what the first saw, the third leaves out what is hidden.
    pub fn after_cut(
        &self,
        renderers: &mut [Renderer],
        index: u32,
    ) -> Result<Vec<f64>, RenderError> {
        let mut away = *self;
        away.camera.yaw += std::f32::consts::PI;
        away.render(renderers, index)?;
        (1..=3)
            .map(|k| self.render(renderers, index + k).map(|t| t.wall))
            .collect()
    }

    /// Renders frame `index` with every renderer, in order, into the one
    /// target (each clears it: with several, the cost of them all, not a
    /// composed picture); the shadow passes' GPU time is then each
    /// renderer's `shadow_gpu_ms()`.
    pub fn render(
        &self,
        renderers: &mut [Renderer],
        index: u32,
    ) -> Result<FrameTimes, RenderError> {
        let Some(gpu) = renderers.first().map(|r| r.gpu.clone()) else {
            return Err(RenderError::Scene("no renderer to measure".into()));
        };
        for r in renderers.iter_mut() {
            r.clear_gpu_times();
        }
        let start = Instant::now();
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("bench frame"),
            });
        for (k, r) in renderers.iter_mut().enumerate() {
            let settings = FrameSettings {
                time: index as f64 * FRAME_STEP_S as f64,
                ..FrameSettings::default()
            };
            r.set_clip(0, self.clips.get(k).copied().flatten());
            r.encode(&mut encoder, self.view, &self.camera, &settings)?;
        }
        gpu.queue.submit([encoder.finish()]);
        let cpu = start.elapsed().as_secs_f64() * 1e3;
        for r in renderers.iter_mut() {
            r.after_submit();
        }
        // A failed wait (device lost) shows up as the next frame's error;
        // the time measured here is still what the frame took.
        let _ = gpu.wait_idle("the frame");
        let wall = start.elapsed().as_secs_f64() * 1e3;
        // The timestamp read-backs were mapped by the wait: collect them.
        for r in renderers.iter_mut() {
            r.after_submit();
            r.gpu.check()?;
        }
        Ok(FrameTimes {
            cpu,
            gpu: sum_all(renderers, Renderer::gpu_ms),
            wall,
        })
    }
}
