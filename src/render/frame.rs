//! Recording a frame, as the list of its passes in order ([`Renderer::encode`]):
//! the frame's data, the camera's cull (with occlusion culling: phase 1,
//! only what was visible last frame) and each shadow cascade's, the
//! technique's own step over what those will draw, the shadow passes, the
//! early scene pass (with occlusion culling phase 1's crowd and the
//! ground, whose depth hides too); then, with occlusion culling, the depth
//! pyramid, phase 2's cull and the technique's step over what it adds; then
//! the late scene pass (phase 2's crowd, the sky). Without occlusion
//! culling the scene is one pass.

use crate::crowd::motion;
use crate::crowd::scene::{CrowdModelGpu, MAX_SCENE_MODELS};
use crate::crowd::tracks::GroundTracksGpu;
use crate::crowd::{FrameSettings, FrameUniform, frame_uniform};
use crate::render::passes::cull::OcclusionCamera;
use crate::render::passes::cull::pyramid_view::PyramidView;
use crate::render::{Camera, CrowdPass, CrowdViews, RenderError, Renderer, TechniqueCosts};
use web_time::Instant;

/// Which part of the scene a scene pass draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ScenePart {
    /// Everything, in one pass (no occlusion culling).
    Whole,
    /// Phase 1's crowd, then the ground (seen between the nearer horses'
    /// legs, it is in front of the horses farther back, and the pyramid
    /// then holds its depth there instead of nothing); the depth is kept
    /// for the pyramid.
    Early,
    /// Phase 2's crowd, then the sky, over the early pass.
    Late,
}

/// What the steps of one frame share.
struct Frame {
    uniform: FrameUniform,
    /// TAA's offset of this frame's picture, in pixels (zero without).
    jitter: glam::Vec2,
    /// Instances the technique draws (after its cap).
    drawn: u32,
    upload_bytes: u64,
    /// Instances the cull passes see (0 with the crowd hidden).
    cull_count: u32,
    behaviour_s: f64,
    cpu_s: f64,
    /// The crowd's draw calls recorded so far.
    draw_calls: u32,
}

impl Renderer {
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
        self.prepare_resources()?;
        let mut frame = self.prepare_frame(encoder, camera, settings)?;
        self.cull_early(encoder, camera, &mut frame);
        self.technique_step(encoder, &frame, ScenePart::Early);
        self.draw_shadows(encoder, &mut frame);
        self.write_frame(&mut frame);
        let occlusion = self.culler.occlusion_active();
        if occlusion {
            self.scene_pass(encoder, target, &mut frame, ScenePart::Early);
            self.cull_late(encoder, &frame);
            self.technique_step(encoder, &frame, ScenePart::Late);
            self.scene_pass(encoder, target, &mut frame, ScenePart::Late);
        } else {
            self.scene_pass(encoder, target, &mut frame, ScenePart::Whole);
        }
        self.post_passes(encoder, target);
        self.finish_frame(encoder, &frame);
        self.gpu.check().map_err(RenderError::from)
    }

    /// The one-off builds the settings ask for, before anything of the
    /// frame is recorded: the impostor atlas (drawn and submitted on its
    /// own), the shadow maps at their size and count (and group 0 over
    /// them), the pyramid view's pipeline.
    fn prepare_resources(&mut self) -> Result<(), RenderError> {
        let wants = self.culler.settings;
        if wants.impostors && wants.lod && self.data.crowd.count() > 0 && !self.hide_crowd {
            self.ensure_impostors()?;
        }
        let device = &self.gpu.device;
        if self.shadows.update(device) {
            self.frame_group.rebind(device, self.shadows.bindings());
        }
        if wants.pyramid_mip.is_some() && self.pyramid_view.is_none() {
            self.pyramid_view = Some(PyramidView::new(device, &self.targets));
        }
        Ok(())
    }

    /// The frame's uniform, the behaviour's update (the herd's table or the
    /// flock's steps) and the technique's preparation.
    fn prepare_frame(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        camera: &Camera,
        settings: &FrameSettings,
    ) -> Result<Frame, RenderError> {
        let count = self.data.crowd.count();
        let view_proj = camera.view_proj(self.aspect());
        let (_, width) = self.view_span();
        let jitter = self.motion.jitter(self.targets.options.aa);
        let mut uniform = frame_uniform(
            motion::jittered(view_proj, jitter, width, self.targets.height),
            camera.eye(),
            settings,
            &self.layout,
            count,
        );
        // Before the shadows' cull, whose casters' levels use it.
        uniform.viewport_height = self.targets.height.max(1) as f32;
        // The ground and the fog reach over every model's field.
        uniform.set_field_radius(self.scene.radius());
        // The CPU twins read the first model's clip from the frame.
        uniform.clip = self.scene.table[0].clip;
        // Each track field's ring on the ground.
        self.backdrop.set_tracks(
            &self.gpu.queue,
            GroundTracksGpu::from_table(&self.scene.table),
        );
        let previous = self.motion.begin(&mut uniform, view_proj, jitter, settings);
        uniform.velocity = self.targets.has_velocity() as u32;
        if previous.is_none() {
            self.post.reset_history();
        }
        let started = Instant::now();
        self.data.behaviour.update(
            &self.gpu.device,
            &self.gpu.queue,
            encoder,
            &mut uniform,
            settings.time,
            previous,
        );
        let behaviour_s = started.elapsed().as_secs_f64();
        // The model table, with the technique's instance cap shared out
        // over the models (each its first instances, in proportion).
        let mut table = [CrowdModelGpu::default(); MAX_SCENE_MODELS];
        let models = self.scene.table.len().min(MAX_SCENE_MODELS);
        table[..models].copy_from_slice(&self.scene.table[..models]);
        let cap = self
            .technique
            .instance_cap(uniform.behaviour != 0, &table[..models]);
        CrowdModelGpu::share_cap(&mut table[..models], cap.unwrap_or(u32::MAX));
        self.data
            .crowd
            .write_models(&self.gpu.queue, &table[..models]);
        self.culler.set_drawn(&table[..models]);
        let started = Instant::now();
        let ctx = self.data.frame(&self.gpu, &uniform);
        let prepared = self.technique.prepare(&ctx);
        if let Some(impostors) = &mut self.impostors {
            impostors.prepare(&ctx);
        }
        Ok(Frame {
            uniform,
            jitter,
            drawn: prepared.drawn,
            upload_bytes: prepared.upload_bytes,
            // The cull goes over every instance up to the last model's last
            // drawn one and skips those its model does not draw
            // (`instance_drawn`).
            cull_count: if self.hide_crowd {
                0
            } else {
                table[..models]
                    .iter()
                    .map(|e| e.first_instance + e.drawn())
                    .max()
                    .unwrap_or(0)
            },
            behaviour_s,
            cpu_s: started.elapsed().as_secs_f64(),
            draw_calls: 0,
        })
    }

    /// The camera's cull (phase 1 with occlusion culling) and each shadow
    /// cascade's.
    fn cull_early(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        camera: &Camera,
        frame: &mut Frame,
    ) {
        let started = Instant::now();
        let cull_view = self.cull_view(camera);
        let frustum = self.shadow_frustum(camera, &frame.uniform);
        let (x, w) = self.view_span();
        // The projection the early pass draws with, jitter and all, so that
        // the rectangles fall on the pixels the pyramid holds.
        let occlusion_camera = OcclusionCamera {
            view: camera.view(),
            proj: motion::jittered(
                camera.projection(self.aspect()),
                frame.jitter,
                w,
                self.targets.height,
            ),
            viewport: [x as f32, 0.0, w as f32, self.targets.height as f32],
        };
        self.culler.prepare_occlusion(
            &self.gpu.device,
            &self.gpu.queue,
            &self.targets,
            occlusion_camera,
            frame.cull_count,
        );
        let viewport = [x as f32, 0.0, w as f32, self.targets.height as f32];
        let timed = self.begin_cull_span(encoder, frame.cull_count);
        self.prepare_splats(encoder, viewport, camera.clip_planes());
        let ctx = self.data.frame(&self.gpu, &frame.uniform);
        let group = self.frame_group.group();
        // The camera's pass lists the casters in the cascades' boxes; the
        // cascades' passes then go over that list.
        let fit = self.shadows.fit(ctx.frame, ctx.models, &frustum);
        self.culler.set_caster_gate(self.shadows.caster_gate(&fit));
        self.culler
            .encode(&ctx, encoder, group, &cull_view, frame.cull_count);
        let cascades = self
            .cascade_cull_timer
            .as_ref()
            .filter(|t| timed && t.ready());
        if let Some(t) = cascades {
            t.mark(encoder, true);
        }
        self.shadows.cull(
            &ctx,
            encoder,
            group,
            &mut self.culler,
            &fit,
            frame.cull_count,
        );
        if let Some(t) = cascades {
            t.mark(encoder, false);
        }
        self.end_cull_span(encoder, timed);
        frame.cpu_s += started.elapsed().as_secs_f64();
    }

    /// The depth pyramid of the early pass and phase 2's cull.
    fn cull_late(&mut self, encoder: &mut wgpu::CommandEncoder, frame: &Frame) {
        let ctx = self.data.frame(&self.gpu, &frame.uniform);
        let group = self.frame_group.group();
        self.culler
            .encode_late(&ctx, encoder, group, frame.cull_count);
    }

    /// The technique's own step (compute skinning skins here) over what the
    /// passes of `part` will draw: the early or whole scene pass and the
    /// shadow cascades, or the late pass's additions.
    fn technique_step(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        frame: &Frame,
        part: ScenePart,
    ) {
        if frame.cull_count == 0 {
            return;
        }
        let mut views = CrowdViews::default();
        if part == ScenePart::Late {
            match self.culler.late_draw(frame.drawn) {
                Some(draw) => views.push(draw),
                None => return,
            }
        } else {
            views.push(self.culler.draw(frame.drawn));
            self.shadows
                .views(&self.culler, frame.cull_count, &mut views);
        }
        let ctx = self.data.frame(&self.gpu, &frame.uniform);
        self.technique
            .before_passes(&ctx, encoder, self.frame_group.group(), &views);
    }

    fn draw_shadows(&mut self, encoder: &mut wgpu::CommandEncoder, frame: &mut Frame) {
        let started = Instant::now();
        let ctx = self.data.frame(&self.gpu, &frame.uniform);
        frame.draw_calls += self.shadows.draw(
            &ctx,
            encoder,
            self.technique.as_ref(),
            &self.culler,
            self.impostors.as_ref(),
            frame.cull_count,
        );
        frame.cpu_s += started.elapsed().as_secs_f64();
    }

    /// Writes the frame's uniform, now that the cull pass has decided.
    fn write_frame(&mut self, frame: &mut Frame) {
        let uniform = &mut frame.uniform;
        uniform.culled = self.culler.culled() as u32;
        uniform.resolved = self.culler.lists_bound_whole() as u32;
        uniform.lod_tint = (self.culler.culled() && self.culler.settings.lod_tint) as u32;
        self.frame_group.write(&self.gpu.queue, uniform);
        self.last_frame = Some(*uniform);
    }

    /// One scene pass: the whole scene, or occlusion culling's early pass
    /// (phase 1's crowd and the ground, depth kept, colour not yet
    /// resolved) or late pass (phase 2's crowd and the sky over it,
    /// resolved).
    fn scene_pass(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        frame: &mut Frame,
        part: ScenePart,
    ) {
        let pyramid_view = part == ScenePart::Late && self.prepare_pyramid_view();
        let first = part != ScenePart::Late;
        let last = part != ScenePart::Early;
        let timestamp_writes = self
            .timer
            .as_ref()
            .filter(|t| t.ready())
            .and_then(|t| t.span_writes(first, last));
        let depth_load = if first {
            wgpu::LoadOp::Clear(1.0)
        } else {
            wgpu::LoadOp::Load
        };
        // The early pass's depth is reduced into the pyramid and drawn over;
        // with the velocity target it is kept (the tests read it back with
        // the velocity), and where the targets say so.
        let depth_store =
            if last && !self.targets.has_velocity() && !self.targets.options.keep_depth {
                wgpu::StoreOp::Discard
            } else {
                wgpu::StoreOp::Store
            };
        let attachments = self.scene_attachments(target, first, last);
        let bound = 1 + attachments[1].is_some() as usize;
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some(match part {
                ScenePart::Whole => "scene pass",
                ScenePart::Early => "early scene pass",
                ScenePart::Late => "late scene pass",
            }),
            color_attachments: &attachments[..bound],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &self.targets.depth,
                depth_ops: Some(wgpu::Operations {
                    load: depth_load,
                    store: depth_store,
                }),
                stencil_ops: None,
            }),
            timestamp_writes,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_bind_group(0, self.frame_group.group(), &[]);
        self.set_scene_viewport(&mut pass);
        let started = Instant::now();
        if !self.hide_crowd {
            let (draw, impostors) = match part {
                ScenePart::Late => (
                    self.culler.late_draw(frame.drawn),
                    self.culler.late_impostor_draw(),
                ),
                _ => (
                    Some(self.culler.draw(frame.drawn)),
                    self.culler.impostor_draw(),
                ),
            };
            if let Some(draw) = draw {
                self.technique
                    .draw(&mut pass, &self.data.model, &draw, CrowdPass::Scene);
                frame.draw_calls += draw.calls();
            }
            if let (Some(pass_impostors), Some(draw)) = (&self.impostors, impostors) {
                pass_impostors.draw(&mut pass, &draw);
                frame.draw_calls += draw.calls();
            }
        }
        frame.cpu_s += started.elapsed().as_secs_f64();
        if first {
            self.backdrop.draw_ground(&mut pass);
        }
        if last {
            self.backdrop.draw_sky(&mut pass);
        }
        if let (true, Some(splats)) = (last && self.culler.splats_drawn(), &self.splats) {
            splats.draw(&mut pass);
            frame.draw_calls += 1;
        }
        if let (true, Some(v)) = (pyramid_view, &self.pyramid_view) {
            v.draw(&mut pass, (self.targets.width, self.targets.height));
        }
    }

    /// TAA's resolve and the motion view, into the output.
    fn post_passes(&mut self, encoder: &mut wgpu::CommandEncoder, target: &wgpu::TextureView) {
        let (x, w) = self.view_span();
        let viewport = [x as f32, 0.0, w as f32, self.targets.height as f32];
        self.post
            .encode(&self.gpu, encoder, &self.targets, target, viewport);
    }

    /// Points the pyramid's debug view at this frame's pyramid when it is
    /// asked for and there is one.
    fn prepare_pyramid_view(&mut self) -> bool {
        let Some(mip) = self.culler.settings.pyramid_mip else {
            return false;
        };
        let (Some(occlusion), Some(view)) = (
            self.culler
                .occlusion()
                .filter(|_| self.culler.occlusion_active()),
            &mut self.pyramid_view,
        ) else {
            return false;
        };
        view.prepare(&self.gpu.device, &self.gpu.queue, &occlusion.pyramid, mip)
    }

    /// The frame's costs, and the GPU timer's resolve when it was timed.
    fn finish_frame(&mut self, encoder: &mut wgpu::CommandEncoder, frame: &Frame) {
        self.costs = TechniqueCosts {
            kind: self.technique.kind(),
            cpu_ms: (frame.cpu_s * 1000.0) as f32,
            behaviour_ms: (frame.behaviour_s * 1000.0) as f32,
            upload_bytes: frame.upload_bytes,
            drawn: frame.drawn,
            requested: self.data.crowd.count(),
            draw_calls: frame.draw_calls,
            ..self.costs
        };
        if let Some(t) = &self.timer
            && t.ready()
        {
            t.resolve(encoder);
        }
    }
}
