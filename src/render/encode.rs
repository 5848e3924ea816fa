//! Recording a frame: the behaviour's update, the technique's preparation,
//! the cull passes (the camera's, each shadow cascade's), the technique's
//! own step over what they will draw, the shadow passes, and the scene pass
//! with the crowd, ground and sky.

use super::{
    Camera, CrowdPass, CrowdViews, FrameContext, PassStats, RenderError, Renderer, TechniqueCosts,
};
use crate::crowd::cull::{CullSettings, CullView};
use crate::crowd::shadow::{CameraFrustum, ShadowSettings};
use crate::crowd::{FrameSettings, frame_uniform};
use crate::lod::LodChain;
use std::sync::Arc;
use std::time::Instant;

impl Renderer {
    /// The culling and LOD settings in use.
    pub fn cull_settings(&self) -> CullSettings {
        self.culler.settings
    }

    /// Changes culling and LOD from the next frame.
    pub fn set_cull_settings(&mut self, settings: CullSettings) {
        self.culler.settings = settings;
    }

    /// The shadow settings in use.
    pub fn shadow_settings(&self) -> ShadowSettings {
        self.shadows.settings
    }

    /// Changes the shadows from the next frame.
    pub fn set_shadow_settings(&mut self, settings: ShadowSettings) {
        self.shadows.settings = settings;
    }

    /// The shadow maps (their last parameters, for tests and the panel).
    pub fn shadows(&self) -> &super::ShadowMaps {
        &self.shadows
    }

    /// The camera's frustum as far as shadows reach: past the camera's
    /// target by the field's diameter and a few model lengths.
    fn shadow_frustum(
        &self,
        camera: &Camera,
        uniform: &crate::crowd::FrameUniform,
    ) -> CameraFrustum {
        let (near, far) = camera.clip_planes();
        let reach = camera.distance + uniform.field_radius * 2.0 + uniform.model_size * 6.0;
        let pixel_scale = self.cull_view(camera).pixel_scale;
        let end = self
            .shadows
            .settings
            .distance
            .end(2.0 * self.culler.sphere_radius(), pixel_scale);
        let far = far.min(reach).min(end.unwrap_or(f32::INFINITY));
        CameraFrustum {
            view: camera.view(),
            fov_y: camera.fov_y,
            aspect: self.aspect(),
            near,
            far: far.max(near * 2.0),
            end,
            view_proj: camera.view_proj(self.aspect()),
        }
    }

    /// The cull pass (its last parameters and lists, for tests).
    pub fn culler(&self) -> &super::Culler {
        &self.culler
    }

    /// The cull pass itself (the tests force its per-level draws).
    pub fn culler_mut(&mut self) -> &mut super::Culler {
        &mut self.culler
    }

    /// The model's mesh levels.
    pub fn lod(&self) -> &Arc<LodChain> {
        &self.lod
    }

    /// What the crowd drew: read back from the cull pass a frame or two
    /// late when it ran; otherwise every drawn instance at full detail.
    pub fn cull_stats(&self) -> super::CullStats {
        if self.culler.active()
            && let Some(stats) = self.culler.stats()
        {
            return stats;
        }
        let drawn = self.costs.drawn;
        let mut s = super::CullStats {
            levels: 1,
            ..Default::default()
        };
        s.visible[0] = drawn;
        s.triangles[0] = drawn as u64 * (self.model.index_count / 3) as u64;
        s
    }

    /// Waits for the cull pass's counts of the frames submitted so far
    /// (benchmarks and tests; the viewer reads them late instead).
    pub fn wait_for_cull_stats(&mut self) -> super::CullStats {
        self.culler.wait_for_stats(&self.gpu.device);
        self.shadows.collect_stats(&self.gpu.device, true);
        self.cull_stats()
    }

    /// What each shadow cascade drew (casters and triangles per level) in
    /// the last frame read back; empty with shadows off.
    pub fn shadow_stats(&self) -> Vec<Option<super::CullStats>> {
        self.shadows.cascade_stats()
    }

    /// The view the cull pass decides for: the camera's, with the pixels a
    /// model unit covers at distance 1 in the drawn viewport.
    fn cull_view(&self, camera: &Camera) -> CullView {
        let height = self.targets.height.max(1) as f32;
        CullView {
            view_proj: camera.view_proj(self.aspect()),
            eye: camera.eye(),
            pixel_scale: height * 0.5 / (camera.fov_y * 0.5).tan().max(1e-6),
            orthographic: false,
            receivers: None,
            min_size_px: 0.0,
            impostors: true,
            camera: None,
        }
    }

    /// Records one frame into `target` (a view of the swap-chain or offscreen
    /// texture, in `targets.format`). A lost device (before or while
    /// recording) gives `GpuError::DeviceLost`: do not submit then.
    pub fn encode(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        camera: &Camera,
        settings: &FrameSettings,
    ) -> Result<(), RenderError> {
        self.gpu.check()?;
        let count = self.crowd.count();
        let wants = self.culler.settings;
        if wants.impostors && wants.lod && count > 0 && !self.hide_crowd {
            self.ensure_impostors()?;
        }
        let mut uniform = frame_uniform(
            camera.view_proj(self.aspect()),
            camera.eye(),
            settings,
            &self.layout,
            count,
        );
        // Before the shadows' cull, whose casters' levels use it.
        uniform.viewport_height = self.targets.height.max(1) as f32;
        // The herd's table or the flock's steps (recorded before the pass).
        let started = Instant::now();
        self.behaviour.update(
            &self.gpu.device,
            &self.gpu.queue,
            encoder,
            &mut uniform,
            settings.time,
        );
        let behaviour_s = started.elapsed().as_secs_f64();
        let started = Instant::now();
        let (x, w) = self.view_span();
        let cull_view = self.cull_view(camera);
        let frustum = self.shadow_frustum(camera, &uniform);
        self.shadows.update(&self.gpu.device, &self.frame_layout);
        let technique = &mut self.technique;
        let ctx = FrameContext {
            device: &self.gpu.device,
            queue: &self.gpu.queue,
            crowd: &self.crowd,
            model: &self.model,
            frame: &uniform,
            behaviour: &self.behaviour,
        };
        let prepared = technique.prepare(&ctx);
        if let Some(impostors) = &mut self.impostors {
            impostors.prepare(&ctx);
        }
        let cull_count = if self.hide_crowd { 0 } else { prepared.drawn };
        self.culler.encode(
            &ctx,
            encoder,
            self.shadows.scene_group(),
            &cull_view,
            cull_count,
        );
        self.shadows
            .cull(&ctx, encoder, &mut self.culler, &frustum, cull_count);
        // The technique's own step, once every view is culled and before
        // any pass draws (compute skinning skins what they will draw).
        let mut views = CrowdViews::default();
        if cull_count > 0 {
            views.push(self.culler.draw(prepared.drawn));
            self.shadows.views(&self.culler, cull_count, &mut views);
        }
        technique.before_passes(&ctx, encoder, self.shadows.scene_group(), &views);
        self.shadows.draw(
            &ctx,
            encoder,
            technique.as_ref(),
            &self.culler,
            self.impostors.as_ref(),
            cull_count,
        );
        let mut cpu_s = started.elapsed().as_secs_f64();
        uniform.culled = self.culler.culled() as u32;
        uniform.lod_tint = (self.culler.culled() && self.culler.settings.lod_tint) as u32;
        self.gpu
            .queue
            .write_buffer(&self.frame_buffer, 0, bytemuck::bytes_of(&uniform));
        self.last_frame = Some(uniform);
        let (view, resolve) = match &self.targets.msaa {
            Some(msaa) => (msaa, Some(target)),
            None => (target, None),
        };
        let timestamp_writes = self.timer.as_ref().and_then(|t| t.pass_writes());
        let timed = timestamp_writes.is_some();
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("scene pass"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target: resolve,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &self.targets.depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, self.shadows.scene_group(), &[]);
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
            let started = Instant::now();
            if !self.hide_crowd {
                let draw = self.culler.draw(prepared.drawn);
                technique.draw(&mut pass, &self.model, &draw, CrowdPass::Scene);
                if let (Some(impostors), Some(draw)) =
                    (&self.impostors, self.culler.impostor_draw())
                {
                    impostors.draw(&mut pass, &draw);
                }
            }
            cpu_s += started.elapsed().as_secs_f64();
            self.scene.draw_ground(&mut pass);
            self.scene.draw_sky(&mut pass);
        }
        self.costs = TechniqueCosts {
            kind: technique.kind(),
            cpu_ms: (cpu_s * 1000.0) as f32,
            behaviour_ms: (behaviour_s * 1000.0) as f32,
            upload_bytes: prepared.upload_bytes,
            drawn: prepared.drawn,
            requested: count,
            ..self.costs
        };
        if timed && let Some(t) = &self.timer {
            t.resolve(encoder);
        }
        self.gpu.check().map_err(RenderError::from)
    }

    /// Call after submitting the frame's commands: starts the GPU-time and
    /// cull-count read-backs and collects earlier ones.
    pub fn after_submit(&mut self) {
        self.culler.after_submit(&self.gpu.device);
        self.technique.after_submit(&self.gpu.device, false);
        self.shadows.after_submit(&self.gpu.device);
        if let Some(t) = &mut self.timer {
            t.after_submit(&self.gpu.device);
        }
    }

    /// GPU milliseconds of the last timed frame, `None` when unsupported or
    /// not yet known.
    pub fn gpu_ms(&self) -> Option<f32> {
        self.timer.as_ref().and_then(|t| t.last_ms)
    }

    /// Forgets the last GPU times of the scene and shadow passes and the
    /// technique's own pass.
    pub fn clear_gpu_times(&mut self) {
        if let Some(t) = &mut self.timer {
            t.last_ms = None;
        }
        self.shadows.clear_gpu_ms();
        self.technique.clear_pass_stats();
    }

    /// Waits for the read-back of the technique's own pass (benchmarks and
    /// tests; the viewer reads it late instead).
    pub fn wait_for_pass_stats(&mut self) -> Option<PassStats> {
        self.technique.after_submit(&self.gpu.device, true);
        self.technique.pass_stats()
    }

    /// GPU milliseconds of the last timed shadow passes (all cascades), `None`
    /// when unsupported, not yet known, or shadows are off.
    pub fn shadow_gpu_ms(&self) -> Option<f32> {
        self.shadows
            .settings
            .enabled
            .then(|| self.shadows.gpu_ms())
            .flatten()
    }
}
