//! The renderer's switches and readouts: culling and shadow settings, the
//! cull pass's and cascades' counts read back late, GPU times. The frame
//! itself is recorded by `passes.rs`.

use crate::crowd::cull::{CullSettings, CullView};
use crate::crowd::shadow::{CameraFrustum, ShadowSettings};
use crate::lod::LodChain;
use crate::render::util::timing::GpuTimer;
use crate::render::{Camera, PassStats, Renderer};
use std::sync::Arc;

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
    pub fn shadows(&self) -> &crate::render::ShadowMaps {
        &self.shadows
    }

    /// The camera's frustum as far as shadows reach: past the camera's
    /// target by the field's diameter and a few model lengths.
    pub(super) fn shadow_frustum(
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
    pub fn culler(&self) -> &crate::render::Culler {
        &self.culler
    }

    /// The cull pass itself (the tests force its per-level draws).
    pub fn culler_mut(&mut self) -> &mut crate::render::Culler {
        &mut self.culler
    }

    /// Model `model`'s mesh levels (the first model's for a model out
    /// of range).
    pub fn lod(&self, model: usize) -> &Arc<LodChain> {
        let models = &self.scene.models;
        &models[model.min(models.len() - 1)].lod
    }

    /// What the crowd drew: read back from the cull pass a frame or two
    /// late when it ran; otherwise every drawn instance at full detail.
    pub fn cull_stats(&self) -> crate::render::CullStats {
        if self.culler.active()
            && let Some(stats) = self.culler.stats()
        {
            return stats;
        }
        let drawn = self.costs.drawn;
        let mut s = crate::render::CullStats {
            levels: 1,
            ..Default::default()
        };
        // Each model's instances at its own full detail, in the crowd's
        // order (a cap keeps the first `drawn`).
        let mut left = drawn;
        for (m, member) in self.members.iter().enumerate().take(s.model_visible.len()) {
            let count = self.data.crowd.counts()[m].min(left);
            left -= count;
            s.model_visible[m] = count;
            s.model_triangles[m] = count as u64 * member.model.triangle_count() as u64;
            s.visible[0] += count;
            s.triangles[0] += s.model_triangles[m];
        }
        s
    }

    /// Waits for the cull pass's counts of the frames submitted so far
    /// (benchmarks and tests; the viewer reads them late instead).
    pub fn wait_for_cull_stats(&mut self) -> crate::render::CullStats {
        self.culler.wait_for_stats(&self.gpu.device);
        self.shadows.collect_stats(&self.gpu.device, true);
        self.cull_stats()
    }

    /// What each shadow cascade drew (casters and triangles per level) in
    /// the last frame read back; empty with shadows off.
    pub fn shadow_stats(&self) -> Vec<Option<crate::render::CullStats>> {
        self.shadows.cascade_stats()
    }

    /// The view the cull pass decides for: the camera's, with the pixels a
    /// model unit covers at distance 1 in the drawn viewport.
    pub(super) fn cull_view(&self, camera: &Camera) -> CullView {
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
            error_scale: 1.0,
        }
    }

    /// Call after submitting the frame's commands: starts the GPU-time and
    /// cull-count read-backs and collects earlier ones.
    pub fn after_submit(&mut self) {
        self.culler.after_submit(&self.gpu.device);
        self.technique.after_submit(&self.gpu.device, false);
        self.shadows.after_submit(&self.gpu.device);
        self.post.after_submit(&self.gpu.device);
        self.each_timer(|t, device| t.after_submit(device));
    }

    /// Runs `f` on each of the renderer's own span timers (the scene's,
    /// the cull passes' and the cascades' part of them) that exists.
    fn each_timer(&mut self, mut f: impl FnMut(&mut GpuTimer, &wgpu::Device)) {
        let device = &self.gpu.device;
        for t in [
            &mut self.timer,
            &mut self.cull_timer,
            &mut self.cascade_cull_timer,
        ]
        .into_iter()
        .flatten()
        {
            f(t, device);
        }
    }

    /// GPU milliseconds of the last timed TAA resolve (`None` without TAA
    /// or timestamps).
    pub fn resolve_gpu_ms(&self) -> Option<f32> {
        self.post.resolve_gpu_ms()
    }

    /// GPU milliseconds of the last timed frame, `None` when unsupported or
    /// not yet known.
    pub fn gpu_ms(&self) -> Option<f32> {
        self.timer.as_ref().and_then(|t| t.last_ms)
    }

    /// Forgets the last GPU times of the scene, cull and shadow passes and
    /// the technique's own pass.
    pub fn clear_gpu_times(&mut self) {
        self.each_timer(|t, _| t.clear());
        self.shadows.clear_gpu_ms();
        self.post.clear_gpu_ms();
        self.technique.clear_pass_stats();
    }

    /// Waits for the read-back of the technique's own pass (benchmarks and
    /// tests; the viewer reads it late instead).
    pub fn wait_for_pass_stats(&mut self) -> Option<PassStats> {
        self.technique.after_submit(&self.gpu.device, true);
        self.technique.pass_stats()
    }

    /// Marks the start of the cull passes' span when they run for `count`
    /// instances and the timer is ready; true when it did (pass it to
    /// [`Renderer::end_cull_span`]).
    pub(super) fn begin_cull_span(&self, encoder: &mut wgpu::CommandEncoder, count: u32) -> bool {
        let timer = self.cull_timer.as_ref().filter(|t| t.ready());
        match timer {
            Some(t) if self.culler.active() && count > 0 => {
                t.mark(encoder, true);
                true
            }
            _ => false,
        }
    }

    /// Marks the end of the span `begin_cull_span` started (`timed`).
    pub(super) fn end_cull_span(&self, encoder: &mut wgpu::CommandEncoder, timed: bool) {
        if let (true, Some(t)) = (timed, &self.cull_timer) {
            t.mark(encoder, false);
        }
    }

    /// GPU milliseconds of the last timed cull passes before the scene
    /// (the camera's, with the splats it writes, and every shadow
    /// cascade's), `None` when unsupported, not yet known, or nothing is
    /// culled (`--culling off --lod off`). Occlusion culling's depth
    /// pyramid and phase 2 are not among them: they run between the early
    /// and the late scene pass, inside the scene's span.
    pub fn cull_gpu_ms(&self) -> Option<f32> {
        self.culler
            .active()
            .then(|| self.cull_timer.as_ref().and_then(|t| t.last_ms))
            .flatten()
    }

    /// GPU milliseconds of the last timed cull passes of the shadow
    /// cascades (part of [`Renderer::cull_gpu_ms`]), `None` when
    /// unsupported, not yet known, nothing is culled or shadows are off.
    pub fn cascade_cull_gpu_ms(&self) -> Option<f32> {
        (self.culler.active() && self.shadows.settings.enabled)
            .then(|| self.cascade_cull_timer.as_ref().and_then(|t| t.last_ms))
            .flatten()
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
