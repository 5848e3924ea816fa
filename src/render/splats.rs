//! The renderer's splat level: made with the impostors, prepared before
//! the camera's cull, and the switches tests use.

use crate::render::Renderer;
use crate::render::passes::{impostor, splat};

impl Renderer {
    /// The splat level of `atlas`'s models into the current targets.
    pub(super) fn splat_pass(&self, atlas: &impostor::ImpostorAtlas) -> splat::Splats {
        splat::Splats::new(
            &self.gpu.device,
            atlas,
            &self.targets,
            &self.frame_group.layout,
        )
    }

    /// The splat level (made with the impostors).
    pub fn splats(&self) -> Option<&splat::Splats> {
        self.splats.as_ref()
    }

    /// Whether the scene pass draws the splats the cull pass writes (a
    /// debug switch: tests compare the scene without them).
    pub fn set_splats_drawn(&mut self, drawn: bool) {
        if let Some(s) = &mut self.splats {
            s.drawn = drawn;
        }
    }

    /// The splat planes for the camera's cull, emptied, when this frame
    /// draws splats (the scene drawn in `viewport`, the camera's near and
    /// far `planes`).
    pub(super) fn prepare_splats(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        viewport: [f32; 4],
        planes: (f32, f32),
    ) {
        let settings = self.culler.settings;
        let wanted = settings.splats
            && settings.impostors
            && settings.lod
            && self.culler.impostors_ready
            && self.culler.active()
            && !self.hide_crowd;
        let splats = self.splats.as_mut().filter(|_| wanted);
        if let Some(s) = splats {
            let view = splat::SplatView {
                size: (self.targets.width, self.targets.height),
                viewport,
                max_px: settings.splat_px,
                planes,
            };
            s.prepare(&self.gpu.device, &self.gpu.queue, encoder, view);
        }
        let splats = self.splats.as_ref().filter(|_| wanted);
        self.splat_error = self.culler.set_splats(&self.gpu.device, splats);
    }
}
