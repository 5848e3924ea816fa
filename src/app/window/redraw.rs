//! One frame of the window: behaviour and camera, the scene, the panel and
//! its actions, presentation and the frame-time statistics.

use super::super::ViewerArgs;
use super::super::costs_ui::CostsView;
use super::super::ui::{self, Action};
use super::{Running, present_mode};
use crate::crowd::FrameSettings;
use web_time::Instant;

impl Running {
    /// What this frame draws: the scene time and the panel's settings.
    pub(super) fn frame_settings(&self) -> FrameSettings {
        FrameSettings {
            time: self.scene_time,
            playback: 1.0,
            spread: self.ui.spread,
            interpolate: self.ui.interpolate,
            stride: 1.0,
        }
    }

    pub(super) fn redraw(&mut self, args: &ViewerArgs) -> anyhow::Result<()> {
        if self.config.width == 0 || self.config.height == 0 {
            return Ok(());
        }
        let cpu_start = Instant::now();
        let now = Instant::now();
        let dt = now.duration_since(self.last_frame).as_secs_f32();
        self.last_frame = now;
        self.frame_ms
            .add(self.started.elapsed().as_secs_f64(), dt * 1000.0);
        if !self.ui.paused {
            // A long stall (a bake, a drag of the window) must not jump the herd.
            self.scene_time += (dt.min(0.25) * self.ui.playback) as f64;
        }
        if args.resize_test {
            self.resize_test_step();
        }
        if args.measure_all && self.frames == 0 {
            self.apply(Action::MeasureAll);
        }
        self.update_parity();
        if args.lose_device_at == Some(self.frames) && self.losses == 0 {
            log::warn!("lose-device test: destroying the GPU device");
            self.gpu.device.destroy();
        }
        if let Some(reason) = self.gpu.lost() {
            // Nothing on the old device can be used, this frame included.
            self.recover(&reason)?;
            return Ok(());
        }

        let frame = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(f)
            | wgpu::CurrentSurfaceTexture::Suboptimal(f) => f,
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => {
                return Ok(());
            }
            wgpu::CurrentSurfaceTexture::Outdated => {
                self.surface.configure(&self.gpu.device, &self.config);
                return Ok(());
            }
            wgpu::CurrentSurfaceTexture::Lost => {
                log::warn!("surface lost; recreating it");
                self.surface = self.gpu.instance.create_surface(self.window.clone())?;
                self.surface.configure(&self.gpu.device, &self.config);
                return Ok(());
            }
            wgpu::CurrentSurfaceTexture::Validation => {
                // A destroyed device shows here first (wgpu reports it to no
                // handler): rebuild once; failing again right after a
                // rebuild is not a lost device.
                if self.rebuilt_at != Some(self.frames) {
                    let reason = self
                        .gpu
                        .lost()
                        .unwrap_or_else(|| "the window surface failed validation".to_string());
                    self.recover(&reason)?;
                    return Ok(());
                }
                anyhow::bail!("the window surface failed validation (see the log above)");
            }
        };
        let view = frame.texture.create_view(&Default::default());
        let ui_view = frame.texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some("egui view"),
            format: Some(self.config.format.remove_srgb_suffix()),
            ..Default::default()
        });

        // The UI.
        let raw_input = self.egui_state.take_egui_input(&self.window);
        let before = self.ui.clone();
        let mut actions = Vec::new();
        let scene = self.scene_rows();
        let scene_info = self.scene_info();
        let stats = ui::Stats {
            scene: &scene,
            scene_info: &scene_info,
            adapter: &self.gpu.description(),
            limitations: &self.gpu.limitations,
            frame_ms: &self.frame_ms,
            cpu_ms: self.cpu_ms,
            gpu_ms: self.renderer.gpu_ms(),
            vat: &self.prepared.vat,
            model_name: &self.prepared.model.name(),
            vertices: self.prepared.model.vertex_count(),
            triangles: self.prepared.model.triangle_count(),
            capacity: self.renderer.crowd().capacity(),
            allocations: self.renderer.crowd().allocations,
            message: self.message.as_deref(),
            behaviour_chooses_clips: self.renderer.behaviour().active(),
            clips: std::iter::once(&self.prepared)
                .chain(self.scene_rest.iter().map(|(l, _)| l))
                .map(|l| crate::app::clip_ui::ClipChoice {
                    model: l.choice.label(),
                    clips: l.vat.clips.iter().map(|c| c.name.as_str()).collect(),
                })
                .collect(),
            cull: crate::app::cull_ui::CullView {
                stats: self.renderer.cull_stats(),
                levels: self
                    .renderer
                    .scene()
                    .models
                    .iter()
                    .map(|m| (m.name.as_str(), m.lod.levels.as_slice()))
                    .collect(),
                requested: self.renderer.crowd().count(),
                technique: self.renderer.technique_kind(),
                lod_build_ms: self
                    .renderer
                    .scene()
                    .models
                    .iter()
                    .map(|m| m.lod.build_ms)
                    .sum(),
                atlas: crate::app::atlas_ui::AtlasView::of(&self.renderer),
                occlusion: crate::app::occlusion_ui::OcclusionView::of(&self.renderer),
                splat_error: self.renderer.splat_error.clone(),
                resolved_state: self.renderer.culler().resolved_state(),
                caster_list_error: self.renderer.culler().caster_list_unsupported(),
                gpu_ms: self.renderer.cull_gpu_ms(),
                cascades_ms: self.renderer.cascade_cull_gpu_ms(),
            },
            shadows: crate::app::shadow_ui::ShadowView {
                gpu_ms: self.renderer.shadow_gpu_ms(),
                gpu_bytes: self.renderer.shadows().gpu_memory_bytes(),
                cascades: crate::app::shadow_ui::ShadowView::cascades_of(
                    &self.renderer.shadow_stats(),
                ),
            },
            aa: crate::app::aa_ui::AaView {
                resolve_ms: self.renderer.resolve_gpu_ms(),
                history_bytes: self.renderer.post.gpu_memory_bytes(&self.renderer.targets),
                samples: self.renderer.targets.samples,
            },
            costs: CostsView {
                costs: self.renderer.costs(),
                parity: self.parity.map(|(_, p)| p),
                measure: &self.measure,
            },
        };
        let mut panel_width = 0.0;
        let show_panel = self.show_panel;
        let output = self.egui_ctx.run_ui(raw_input, |ui| {
            if show_panel {
                (actions, panel_width) = ui::panel(ui, &mut self.ui, &stats);
            }
        });
        // The 3D view is drawn beside the panel, not under it.
        let scale = self.egui_ctx.pixels_per_point();
        self.renderer
            .set_view_left((panel_width * scale).round().max(0.0) as u32);
        self.egui_state
            .handle_platform_output(&self.window, output.platform_output);
        for action in actions {
            self.apply(action);
        }
        if self.ui.count != before.count {
            // A scene's models share the count in proportion.
            if let Err(e) = self.renderer.set_count(self.ui.count) {
                self.message = Some(e.to_string());
                self.ui.count = self.renderer.crowd().count();
            }
            let counts = self.renderer.crowd().counts();
            for ((_, count), &c) in self.scene_rest.iter_mut().zip(counts.iter().skip(1)) {
                *count = c;
            }
        }
        if self.ui.technique != before.technique {
            let kind = self.ui.technique;
            self.switch(kind);
        }
        if self.ui.cull != before.cull {
            self.renderer.set_cull_settings(self.ui.cull);
        }
        if self.ui.shadows != before.shadows {
            self.renderer.set_shadow_settings(self.ui.shadows);
        }
        self.renderer.post.motion_blur = self.ui.motion_blur;
        if self.ui.targets != before.targets {
            self.renderer.post.show_motion = self.ui.targets.velocity;
            if let Err(e) = self.renderer.set_target_options(self.ui.targets) {
                self.message = Some(e.to_string());
            }
        }
        if self.ui.behaviour != before.behaviour {
            self.renderer.set_behaviour(self.ui.behaviour);
        }
        if self.ui.follow_herd
            && let Some(target) = self.renderer.herd_target(self.scene_time, 1.0)
        {
            self.camera.target = target;
        }
        // The flock lives on the GPU: look where it is every half second
        // (a read-back), take its whole view after the first frame, and
        // ease the target towards it in between.
        if self.ui.follow_herd && self.renderer.behaviour().flock_sim().is_some() {
            if self.frames % 30 == 1
                && let Some(c) = self.renderer.flock_camera()
            {
                if self.flock_goal.is_none() && args.camera.is_none() {
                    self.camera = c;
                }
                self.flock_goal = Some(c.target);
            }
            if let Some(goal) = self.flock_goal {
                self.camera.target = self.camera.target.lerp(goal, 0.05);
            }
        }
        if self.ui.vsync != before.vsync {
            self.config.present_mode = present_mode(self.ui.vsync);
            self.surface.configure(&self.gpu.device, &self.config);
        }

        // The scene, then the panel on top.
        self.renderer.set_clip(0, self.ui.clip);
        for (m, &clip) in self.ui.scene_clips.iter().enumerate() {
            self.renderer.set_clip(m + 1, clip);
        }
        let settings = self.frame_settings();
        let device = &self.gpu.device;
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("frame"),
        });
        let scene_format = self.renderer.targets.format;
        let stage = super::stage::Stage::needed(self.config.format, scene_format).then(|| {
            let size = (self.config.width, self.config.height);
            super::stage::Stage::fit(&mut self.stage, device, scene_format, size)
        });
        let scene_view = stage.map_or(&view, |s| &s.view);
        let encoded = self
            .renderer
            .encode(&mut encoder, scene_view, &self.camera, &settings);
        if let Some(stage) = stage {
            stage.copy_to(&mut encoder, &frame.texture);
        }
        if let Err(e) = encoded {
            // A lost device is rebuilt at the start of the next frame.
            if self.gpu.lost().is_some() {
                return Ok(());
            }
            return Err(e.into());
        }

        let pixels_per_point = egui_winit::pixels_per_point(&self.egui_ctx, &self.window);
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [self.config.width, self.config.height],
            pixels_per_point,
        };
        let jobs = self.egui_ctx.tessellate(output.shapes, pixels_per_point);
        let mut textures = output.textures_delta;
        for (id, deltas) in textures.set.drain() {
            for delta in &deltas {
                self.egui_renderer
                    .update_texture(device, &self.gpu.queue, id, delta);
            }
        }
        let egui_commands = self.egui_renderer.update_buffers(
            device,
            &self.gpu.queue,
            &mut encoder,
            &jobs,
            &screen,
        );
        {
            let pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("egui pass"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &ui_view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Load,
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            let mut pass = pass.forget_lifetime();
            self.egui_renderer.render(&mut pass, &jobs, &screen);
        }
        for id in textures.free.drain() {
            self.egui_renderer.free_texture(&id);
        }
        self.gpu
            .queue
            .submit(egui_commands.into_iter().chain([encoder.finish()]));
        self.cpu_ms = Some(cpu_start.elapsed().as_secs_f32() * 1000.0);
        self.window.pre_present_notify();
        self.gpu.queue.present(frame);
        self.renderer.after_submit();
        self.frames += 1;
        let measuring = self.measure.running().is_some();
        if let Some(next) = self
            .measure
            .after_frame(Instant::now(), &self.renderer.costs())
        {
            self.switch(next);
        }
        if measuring && self.measure.running().is_none() {
            for r in &self.measure.rows {
                log::info!(
                    "measure all: {} count {} drawn {} fps {:.2} CPU {:.2} ms GPU {} ms upload {:.1} MB/s memory {} B",
                    r.kind,
                    r.count,
                    r.drawn,
                    r.fps,
                    r.cpu_ms,
                    r.gpu_ms.map_or("n/a".into(), |g| format!("{g:.2}")),
                    r.upload_mb_s,
                    r.memory_bytes
                );
            }
            log::info!("measure all finished");
        }
        Ok(())
    }
}
