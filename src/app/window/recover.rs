//! A lost GPU device: rebuild the device, the surface configuration, egui
//! and the renderer on the same instance and window, keeping the model,
//! count, technique, behaviour, camera and scene time.

use super::Running;
use crate::gpu::GpuContext;
use std::sync::Arc;

impl Running {
    /// Rebuilds everything on the GPU after the device was lost for
    /// `reason`. An error here means the viewer cannot carry on; it is one
    /// line for the user.
    pub(super) fn recover(&mut self, reason: &str) -> anyhow::Result<()> {
        let failed = |what: &str, e: &dyn std::fmt::Display| {
            anyhow::anyhow!(
                "the GPU device was lost ({reason}) and {what} could not be rebuilt: {e}"
            )
        };
        let gpu = self.new_device().map_err(|e| failed("the device", &e))?;
        let gpu = Arc::new(gpu);
        if self.config.width > 0 && self.config.height > 0 {
            self.surface.configure(&gpu.device, &self.config);
        }
        let crowd = &self.renderer.crowd();
        let size = (self.renderer.targets.width, self.renderer.targets.height);
        let config = self.renderer_config(&self.prepared, size, crowd.count());
        let renderer = super::scene_renderer(
            &gpu,
            &self.prepared,
            &self.scene_rest,
            crowd.count(),
            &config,
        )
        .map_err(|e| failed("the renderer", &e))?;
        // A fresh egui context uploads its font atlas again to the new
        // renderer; the panel's state lives in `self.ui`, not in egui.
        self.egui_ctx = egui::Context::default();
        self.egui_state = egui_winit::State::new(
            self.egui_ctx.clone(),
            egui::ViewportId::ROOT,
            &self.window,
            Some(self.window.scale_factor() as f32),
            None,
            Some(gpu.caps.max_texture_dimension_2d as usize),
        );
        self.egui_renderer = egui_wgpu::Renderer::new(
            &gpu.device,
            self.config.format.remove_srgb_suffix(),
            egui_wgpu::RendererOptions::default(),
        );
        self.renderer = renderer;
        self.renderer.post.show_motion = self.ui.targets.velocity;
        self.gpu = gpu;
        let technique = self.ui.technique;
        self.switch(technique);
        self.losses += 1;
        self.rebuilt_at = Some(self.frames);
        log::warn!(
            "GPU device lost ({reason}); rebuilt the device and renderer on {}",
            self.gpu.description()
        );
        Ok(())
    }

    /// A new device for the window, waited for.
    #[cfg(not(target_arch = "wasm32"))]
    fn new_device(&self) -> Result<GpuContext, crate::gpu::GpuError> {
        pollster::block_on(GpuContext::new(
            self.gpu.instance.clone(),
            Some(&self.surface),
        ))
    }

    /// A browser hands a device over only between frames: the page is
    /// reloaded instead.
    #[cfg(target_arch = "wasm32")]
    fn new_device(&self) -> Result<GpuContext, crate::gpu::GpuError> {
        Err(crate::gpu::GpuError::DeviceLost(
            "in a browser the viewer cannot wait for a new one: reload the page".into(),
        ))
    }
}
