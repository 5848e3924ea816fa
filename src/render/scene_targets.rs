//! Where the scene passes draw: their part of the target (beside the
//! window's panel) and their colour attachments, shared by the frame's
//! scene passes and the exact visibility probe.

use crate::render::Renderer;

impl Renderer {
    /// The scene's part of the target: beside the window's panel, if any.
    pub(super) fn set_scene_viewport(&self, pass: &mut wgpu::RenderPass<'_>) {
        let (x, w) = self.view_span();
        if x > 0 {
            pass.set_viewport(
                x as f32,
                0.0,
                w as f32,
                self.targets.height as f32,
                0.0,
                1.0,
            );
        }
    }

    /// The scene passes' colour attachments: the output (or TAA's colour),
    /// multisampled or not, and the velocity target when there is one;
    /// cleared when `first`, else loaded; resolved when `last`.
    pub(super) fn scene_attachments<'a>(
        &'a self,
        target: &'a wgpu::TextureView,
        first: bool,
        last: bool,
    ) -> [Option<wgpu::RenderPassColorAttachment<'a>>; 2] {
        // TAA draws into its own colour (resolved by the post passes);
        // MSAA resolves into the output at the end of the last part.
        let target = self.targets.taa_color.as_ref().unwrap_or(target);
        let (view, resolve) = match &self.targets.msaa {
            Some(msaa) => (msaa, last.then_some(target)),
            None => (target, None),
        };
        let colour_load = if first {
            wgpu::LoadOp::Clear(wgpu::Color::BLACK)
        } else {
            wgpu::LoadOp::Load
        };
        // The velocity target: cleared to "no motion", resolved with the
        // colour.
        let velocity = self.targets.velocity.as_ref().map(|(drawn, resolved)| {
            wgpu::RenderPassColorAttachment {
                view: drawn,
                depth_slice: None,
                resolve_target: (self.targets.samples > 1 && last).then_some(resolved),
                ops: wgpu::Operations {
                    load: if first {
                        wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT)
                    } else {
                        wgpu::LoadOp::Load
                    },
                    store: wgpu::StoreOp::Store,
                },
            }
        });
        [
            Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: resolve,
                ops: wgpu::Operations {
                    load: colour_load,
                    store: wgpu::StoreOp::Store,
                },
            }),
            velocity,
        ]
    }
}
