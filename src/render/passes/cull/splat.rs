//! The camera's cull pass with the splat level (shaders/splat.wgsl): its
//! pipelines, the plain one and occlusion culling's phase 1, bind the
//! splat planes beside the clip table in group 1; every other view (the
//! shadow cascades, phase 2) culls without them.

use crate::render::passes::cull::{CullDispatch, Culler};
use crate::render::passes::splat::Splats;
use crate::render::util::pipeline::{bind_group, compute_pipeline};
use crate::render::util::shaders;

pub(super) struct SplatCull {
    layout: wgpu::BindGroupLayout,
    pub plain: wgpu::ComputePipeline,
    /// Occlusion culling's phase 1 with splats (made on first use).
    pub early: Option<wgpu::ComputePipeline>,
    /// Group 1 with the planes of a `Splats` generation.
    group: Option<(u64, wgpu::BindGroup)>,
}

impl SplatCull {
    pub fn group(&self) -> Option<&wgpu::BindGroup> {
        self.group.as_ref().map(|(_, g)| g)
    }
}

impl Culler {
    /// The splat variant's pipeline for `kind` and its group 1, when the
    /// camera's cull writes splats this frame (`splats`: the camera's).
    pub(super) fn splat_dispatch(
        &self,
        kind: CullDispatch<'_>,
        splats: bool,
    ) -> Option<(&wgpu::ComputePipeline, &wgpu::BindGroup)> {
        let s = self
            .splat
            .as_ref()
            .filter(|_| splats && self.splat_this_frame)?;
        let pipeline = match kind {
            CullDispatch::Plain => Some(&s.plain),
            CullDispatch::Early(_) => s.early.as_ref(),
            CullDispatch::Late(..) | CullDispatch::Listed(..) => None,
        };
        Some((pipeline?, s.group()?))
    }

    /// Whether the camera's last cull wrote splats (the scene pass then
    /// draws them).
    pub fn splats_drawn(&self) -> bool {
        self.splat_this_frame && self.culled_this_frame
    }

    /// Draws the camera's far instances as `splats` from the next cull
    /// (`None`: as impostors). Returns why splats cannot be drawn, if
    /// they cannot.
    pub fn set_splats(&mut self, device: &wgpu::Device, splats: Option<&Splats>) -> Option<String> {
        self.splat_this_frame = false;
        let splats = splats?;
        let occlusion = self.occlusion_active();
        if let Some(why) = crate::render::passes::splat::unsupported_reason(device, occlusion) {
            return Some(why);
        }
        let buffer = splats.buffer()?;
        let frame_layout = &self.frame_layout;
        let crowd_layout = self.crowd.layout();
        let cull = self.splat.get_or_insert_with(|| {
            let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("cull clip layout (splats)"),
                entries: &[
                    crate::gpu::compute_storage(2, true),
                    crate::gpu::compute_storage(3, false),
                ],
            });
            let module = if super::params::params_as_uniform(device) {
                shaders::CULL_SPLAT_UNIFORM.create(device)
            } else {
                shaders::CULL_SPLAT.create(device)
            };
            let plain = compute_pipeline(
                device,
                "cull pipeline (splats)",
                &[
                    Some(frame_layout),
                    Some(&layout),
                    Some(crowd_layout),
                    Some(&self.out_layout),
                ],
                &module,
                "cs_cull",
            );
            SplatCull {
                layout,
                plain,
                early: None,
                group: None,
            }
        });
        if occlusion && cull.early.is_none() {
            let o = self.occlusion.as_ref()?;
            let module = shaders::CULL_OCCLUSION_SPLAT.create(device);
            cull.early = Some(compute_pipeline(
                device,
                "cull pipeline (occlusion, splats)",
                &[
                    Some(frame_layout),
                    Some(&cull.layout),
                    Some(crowd_layout),
                    Some(&o.layout),
                ],
                &module,
                "cs_cull",
            ));
        }
        if cull
            .group
            .as_ref()
            .is_none_or(|(g, _)| *g != splats.generation)
        {
            let group = bind_group(
                device,
                "cull clip group (splats)",
                &cull.layout,
                &[
                    (2, self.clip_buffer.as_entire_binding()),
                    (3, buffer.as_entire_binding()),
                ],
            );
            cull.group = Some((splats.generation, group));
        }
        self.splat_this_frame = true;
        None
    }
}
