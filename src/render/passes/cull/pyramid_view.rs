//! The depth pyramid's debug view (shaders/pyramid_view.wgsl): one mip
//! drawn over the picture at the end of the late scene pass, so the
//! occluders the second phase tested against can be seen.

use crate::render::passes::cull::pyramid::DepthPyramid;
use crate::render::passes::targets::Targets;
use crate::render::util::fullscreen::{self, Fullscreen};
use crate::render::util::pipeline::bind_group;
use bytemuck::{Pod, Zeroable};

/// `PyramidView` in pyramid_view.wgsl (checked by tests/gpu_layout.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq, Eq)]
pub struct PyramidViewUniform {
    pub size: [u32; 2],
    pub mip: u32,
    pub offset: u32,
}

pub struct PyramidView {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    uniform: wgpu::Buffer,
    /// The group and the pyramid generation it binds.
    group: Option<(u64, wgpu::BindGroup)>,
}

impl PyramidView {
    pub fn new(device: &wgpu::Device, targets: &Targets) -> Self {
        // Over the colour only (the velocity target keeps the scene's).
        let mut colour = targets.color_targets(None);
        if let Some(Some(v)) = colour.get_mut(1) {
            v.write_mask = wgpu::ColorWrites::empty();
        }
        let mut depth = targets.depth_state(false);
        depth.depth_compare = Some(wgpu::CompareFunction::Always);
        let (layout, pipeline) = Fullscreen {
            label: "pyramid view",
            shader: crate::render::util::shaders::PYRAMID_VIEW,
            entries: &[fullscreen::uniform(0), fullscreen::storage(1)],
            targets: &colour,
            depth: Some(depth),
            multisample: targets.multisample(),
        }
        .build(device);
        let uniform =
            fullscreen::uniform_buffer::<PyramidViewUniform>(device, "pyramid view uniform");
        Self {
            pipeline,
            layout,
            uniform,
            group: None,
        }
    }

    /// Readies the view of `mip` (clamped to the pyramid's) of `pyramid`;
    /// false when there is no pyramid to show.
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        pyramid: &DepthPyramid,
        mip: u32,
    ) -> bool {
        let (Some(buffer), Some(size)) = (pyramid.buffer(), pyramid.size()) else {
            return false;
        };
        let sizes = pyramid.mip_sizes();
        let mip = mip.min(sizes.len().saturating_sub(1) as u32);
        let (offsets, _) = crate::crowd::occlusion::mip_offsets(sizes);
        let u = PyramidViewUniform {
            size: [size.0, size.1],
            mip,
            offset: offsets[mip as usize],
        };
        queue.write_buffer(&self.uniform, 0, bytemuck::bytes_of(&u));
        if self
            .group
            .as_ref()
            .is_none_or(|(g, _)| *g != pyramid.generation)
        {
            let group = bind_group(
                device,
                "pyramid view group",
                &self.layout,
                &[
                    (0, self.uniform.as_entire_binding()),
                    (1, buffer.as_entire_binding()),
                ],
            );
            self.group = Some((pyramid.generation, group));
        }
        true
    }

    /// Draws the prepared mip over the whole `width × height` target.
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>, (width, height): (u32, u32)) {
        if let Some((_, group)) = &self.group {
            pass.set_viewport(0.0, 0.0, width as f32, height as f32, 0.0, 1.0);
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, group, &[]);
            pass.draw(0..3, 0..1);
        }
    }
}
