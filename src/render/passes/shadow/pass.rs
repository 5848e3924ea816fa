//! A frame's shadow work: fit the cascades to the camera, write their
//! parameters, cull the crowd once per cascade from the sun, and draw each
//! cascade's casters depth-only through the technique's pose.

use crate::crowd::Motion;
use crate::crowd::caster_list::CasterGate;
use crate::crowd::cull::{CameraLod, CullView, Receivers};
use crate::crowd::scene::CrowdModelGpu;
use crate::crowd::shadow::{
    CameraFrustum, Cascade, CasterBand, CasterUniform, MAX_CASCADES, ShadowUniform, fit_cascades,
};
use crate::render::passes::cull::{CullTarget, Culler};
use crate::render::passes::impostor::ImpostorPass;
use crate::render::passes::shadow::{CASTER_STRIDE, ShadowMaps};
use crate::render::passes::techniques::{CrowdPass, CrowdViews, FrameContext, Technique};

/// How far, in texels of its cascade, a receiver's lookup reaches from its
/// own sun ray: the normal offset (up to 2 texels), the 3×3 filter (1) and
/// the bilinear comparison (1), rounded up.
const LOOKUP_TEXELS: f32 = 5.0;

/// Where the casters can be: from the ground up to the tallest model's
/// height, or up to a flock's highest birds (the loops reach 13 model
/// sizes, the simulated flock's box 16, which it may overshoot a little),
/// over every model of `models` (the crowd's table).
pub(crate) fn caster_band(ground_y: f32, models: &[CrowdModelGpu]) -> CasterBand {
    let top = models
        .iter()
        .map(|m| {
            let above = if m.motion == Motion::Flock as u32 {
                20.0
            } else {
                1.5
            };
            m.model_size * above
        })
        .fold(0.0f32, f32::max);
    CasterBand {
        ground: ground_y,
        top: ground_y + top,
    }
}

/// This frame's cascades fitted to the camera's frustum, fitted once for
/// the camera's pass (which lists their casters) and their own passes.
pub struct CascadeFit<'a> {
    pub frustum: &'a CameraFrustum,
    cascades: [Cascade; MAX_CASCADES],
    uniform: ShadowUniform,
}

impl ShadowMaps {
    /// The cascades fitted to the camera's `frustum` this frame.
    pub fn fit<'a>(
        &self,
        frame: &crate::crowd::FrameUniform,
        models: &[CrowdModelGpu],
        frustum: &'a CameraFrustum,
    ) -> CascadeFit<'a> {
        let (cascades, uniform) = fit_cascades(
            frustum,
            Self::sun(frame),
            &self.settings,
            self.maps.side,
            caster_band(frame.ground_y, models),
        );
        CascadeFit {
            frustum,
            cascades,
            uniform,
        }
    }

    /// The boxes of the cascades [`ShadowMaps::cull`] will cull from `fit`,
    /// for the camera's pass to list their casters (`None` with shadows
    /// off).
    pub fn caster_gate(&self, fit: &CascadeFit<'_>) -> Option<CasterGate> {
        if !self.settings.enabled {
            return None;
        }
        let n = self.maps.count as usize;
        Some(CasterGate::new(
            fit.cascades.iter().take(n).map(|c| c.view_proj),
        ))
    }

    /// Writes the cascades of `fit` and records their cull passes for
    /// `count` casting instances; with shadows off, only tells the
    /// receivers so. Call [`ShadowMaps::update`] first and
    /// [`ShadowMaps::draw`] after.
    pub fn cull(
        &mut self,
        ctx: &FrameContext<'_>,
        encoder: &mut wgpu::CommandEncoder,
        frame_group: &wgpu::BindGroup,
        culler: &mut Culler,
        fit: &CascadeFit<'_>,
        count: u32,
    ) {
        let sun = Self::sun(ctx.frame);
        let (frustum, cascades, mut uniform) = (fit.frustum, &fit.cascades, fit.uniform);
        let enabled = self.settings.enabled;
        uniform.enabled = enabled as u32;
        uniform.count = self.maps.count;
        ctx.queue
            .write_buffer(&self.uniform, 0, bytemuck::bytes_of(&uniform));
        self.last = Some(uniform);
        if !enabled {
            self.targets.iter_mut().for_each(CullTarget::skip);
            return;
        }
        let n = self.maps.count as usize;
        // The camera the shadows are seen through, for the casters' levels.
        let camera = self.settings.camera_lod.then(|| CameraLod {
            eye: frustum.view.inverse().w_axis.truncate(),
            pixel_scale: ctx.frame.viewport_height.max(1.0) * 0.5
                / (frustum.fov_y * 0.5).tan().max(1e-6),
        });
        for (i, c) in cascades.iter().enumerate().take(n) {
            let view = CasterUniform {
                view_proj: c.view_proj.to_cols_array_2d(),
            };
            ctx.queue.write_buffer(
                &self.casters,
                i as u64 * CASTER_STRIDE,
                bytemuck::bytes_of(&view),
            );
            // The sun's view: every caster whose shadow can land in the
            // cascade and, through the cascade's lookup footprint, on
            // something the camera sees; levels chosen by their error in
            // shadow-map texels and, coarser where that is, the camera's
            // pixels (a shadow shows no more than its caster).
            let cull_view = CullView {
                view_proj: c.view_proj,
                eye: c.view_proj.inverse().project_point3(glam::Vec3::ZERO),
                pixel_scale: c.texels_per_unit(),
                orthographic: true,
                receivers: self.settings.cull_to_view.then_some(Receivers {
                    view_proj: c.receivers(frustum),
                    sweep: -sun,
                    margin: LOOKUP_TEXELS * c.texel,
                    // Nothing below the ground receives a shadow.
                    ground: Some(ctx.frame.ground_y),
                }),
                // A caster whose sphere covers under a texel of this
                // cascade is skipped: its shadow is below the filter.
                min_size_px: self.settings.min_caster_texels,
                // The casters the camera draws as impostors cast as
                // impostors (coarse levels without an atlas).
                impostors: camera.is_some(),
                camera,
                // A shadow is filtered and only darkens: casters take a
                // larger error than the camera's.
                error_scale: self.settings.caster_error_scale,
            };
            culler.encode_target(
                ctx,
                encoder,
                frame_group,
                &cull_view,
                count,
                &mut self.targets[i],
            );
        }
    }

    /// Adds the cascades that will draw `count` casters this frame to
    /// `views` (none with shadows off).
    pub fn views<'a>(&'a self, culler: &'a Culler, count: u32, views: &mut CrowdViews<'a>) {
        if !self.settings.enabled || count == 0 {
            return;
        }
        for target in &self.targets[..self.maps.count as usize] {
            views.push(culler.draw_target(target, count));
        }
    }

    /// Records the frame's shadow passes (before the scene pass): each
    /// cascade's casters from its cull output, through the technique's pose.
    /// Returns the crowd's draw calls recorded.
    pub fn draw(
        &self,
        ctx: &FrameContext<'_>,
        encoder: &mut wgpu::CommandEncoder,
        technique: &dyn Technique,
        culler: &Culler,
        impostors: Option<&ImpostorPass>,
        count: u32,
    ) -> u32 {
        if !self.settings.enabled {
            return 0;
        }
        let mut calls = 0;
        let n = self.maps.count as usize;
        let timer = self.timer.as_ref().filter(|t| t.ready());
        for i in 0..n {
            let timestamp_writes = timer.and_then(|t| t.span_writes(i == 0, i + 1 == n));
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("shadow pass"),
                color_attachments: &[],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &self.maps.layers[i],
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            if count > 0 {
                pass.set_bind_group(0, &self.caster_groups[i], &[]);
                let draw = culler.draw_target(&self.targets[i], count);
                technique.draw(&mut pass, ctx.model, &draw, CrowdPass::Shadow);
                calls += draw.calls();
                if let (Some(impostors), Some(draw)) =
                    (impostors, culler.target_impostor_draw(&self.targets[i]))
                {
                    impostors.draw_shadow(&mut pass, &draw);
                    calls += draw.calls();
                }
            }
        }
        if let Some(t) = timer {
            t.resolve(encoder);
        }
        calls
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(motion: Motion, model_size: f32) -> CrowdModelGpu {
        CrowdModelGpu {
            count: 10,
            motion: motion as u32,
            model_size,
            ..CrowdModelGpu::default()
        }
    }

    #[test]
    fn the_band_reaches_every_models_casters() {
        let horse = entry(Motion::Track, 2.0);
        let bird = entry(Motion::Flock, 0.5);
        assert_eq!(caster_band(0.0, &[horse]).top, 3.0);
        assert_eq!(caster_band(0.0, &[bird]).top, 10.0);
        // A flock over a herd: the birds' height, though the herd comes
        // first (the frame of such a scene stands).
        assert_eq!(caster_band(1.0, &[horse, bird]).top, 11.0);
        assert_eq!(caster_band(1.0, &[horse, bird]).ground, 1.0);
    }
}
