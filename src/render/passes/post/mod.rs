//! What runs after the scene pass: temporal anti-aliasing's resolve and
//! the velocity target's debug view. Both read what the scene pass wrote
//! ([`Targets`]'s TAA colour and velocity) and draw into the output.

pub mod motion_blur;
pub mod motion_view;
pub mod taa;

use crate::crowd::motion::Aa;
use crate::gpu::GpuContext;
use crate::render::passes::targets::Targets;

/// The passes after the scene, made when first needed.
#[derive(Default)]
pub struct Post {
    pub taa: Option<taa::Taa>,
    motion_view: Option<motion_view::MotionView>,
    blur: Option<motion_blur::MotionBlur>,
    /// Draw the velocity target over the picture (the targets must have
    /// one: `TargetOptions::velocity`).
    pub show_motion: bool,
    /// Blur the picture along the motion (with TAA only: MSAA resolves
    /// into the output, which cannot be read).
    pub motion_blur: bool,
}

impl Post {
    /// Whether the scene pass draws into a target of its own instead of
    /// the output (TAA resolves it into the output).
    pub fn resolves(targets: &Targets) -> bool {
        targets.options.aa == Aa::Taa
    }

    /// Records the passes after the scene into `output`.
    pub fn encode(
        &mut self,
        gpu: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        targets: &Targets,
        output: &wgpu::TextureView,
        viewport: [f32; 4],
    ) {
        let (device, queue) = (&gpu.device, &gpu.queue);
        if Self::resolves(targets) {
            let taa = self.taa.get_or_insert_with(|| taa::Taa::new(gpu, targets));
            taa.encode(gpu, encoder, targets, output, viewport);
            if let (true, Some(resolved)) = (self.motion_blur, taa.last_output()) {
                self.blur
                    .get_or_insert_with(|| motion_blur::MotionBlur::new(device, targets))
                    .encode(device, queue, encoder, targets, resolved, output, viewport);
            }
        }
        if self.show_motion && targets.has_velocity() {
            self.motion_view
                .get_or_insert_with(|| motion_view::MotionView::new(device, targets))
                .encode(device, queue, encoder, targets, output, viewport);
        }
    }

    /// The same choices with nothing made yet (for new targets).
    pub fn fresh(&self) -> Self {
        Self {
            show_motion: self.show_motion,
            motion_blur: self.motion_blur,
            ..Default::default()
        }
    }

    /// Collects the resolve's GPU time (after every submit).
    pub fn after_submit(&mut self, device: &wgpu::Device) {
        if let Some(t) = self.taa.as_mut().and_then(|t| t.timer.as_mut()) {
            t.after_submit(device);
        }
    }

    /// GPU milliseconds of the last timed TAA resolve.
    pub fn resolve_gpu_ms(&self) -> Option<f32> {
        self.taa.as_ref()?.timer.as_ref()?.last_ms
    }

    /// Forgets the last resolve time (a benchmark counts fresh ones).
    pub fn clear_gpu_ms(&mut self) {
        if let Some(t) = self.taa.as_mut().and_then(|t| t.timer.as_mut()) {
            t.clear();
        }
    }

    /// Bytes of TAA's history.
    pub fn gpu_memory_bytes(&self, targets: &Targets) -> u64 {
        self.taa.as_ref().map_or(0, |t| t.gpu_memory_bytes(targets))
    }

    /// Drops TAA's history (the next frame starts it again).
    pub fn reset_history(&mut self) {
        if let Some(t) = &mut self.taa {
            t.reset();
        }
    }
}
