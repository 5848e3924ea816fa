//! Everything around the crowd: the sky and the ground with each track
//! field's ring (the light and the fog come with the frame uniform,
//! `crowd::frame`; the rings with the model table, `crowd::tracks`).

use crate::crowd::tracks::GroundTracksGpu;
use crate::render::passes::targets::Targets;
use crate::render::util::pipeline::{
    TargetPipeline, Writes, bind_group, storage_entry, target_pipeline,
};
use crate::render::util::shaders::{self, ModuleSpec};

/// The ground and sky pipelines, and the ground's rings.
pub struct Backdrop {
    ground: wgpu::RenderPipeline,
    sky: wgpu::RenderPipeline,
    /// The rings (group 1 of the ground), written when they change.
    tracks: wgpu::Buffer,
    tracks_group: wgpu::BindGroup,
    written: Option<GroundTracksGpu>,
}

impl Backdrop {
    pub fn new(
        device: &wgpu::Device,
        targets: &Targets,
        frame_layout: &wgpu::BindGroupLayout,
    ) -> Self {
        let tracks_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("ground tracks layout"),
            entries: &[wgpu::BindGroupLayoutEntry {
                visibility: wgpu::ShaderStages::FRAGMENT,
                ..storage_entry(0)
            }],
        });
        let tracks = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("ground tracks"),
            size: std::mem::size_of::<GroundTracksGpu>() as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let tracks_group = bind_group(
            device,
            "ground tracks",
            &tracks_layout,
            &[(0, tracks.as_entire_binding())],
        );
        let ground_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("ground pipeline layout"),
            bind_group_layouts: &[Some(frame_layout), Some(&tracks_layout)],
            immediate_size: 0,
        });
        let sky_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("sky pipeline layout"),
            bind_group_layouts: &[Some(frame_layout)],
            immediate_size: 0,
        });
        let pipeline = |shader: ModuleSpec, layout, writes: Writes, loses_ties| {
            let spec = TargetPipeline {
                label: shader.name,
                layout,
                shader,
                buffers: &[],
                primitive: wgpu::PrimitiveState::default(),
                writes,
                loses_ties,
            };
            target_pipeline(device, &spec, targets)
        };
        // A hoof on the ground meets it at the same depth. The ground is
        // drawn after the crowd in one scene pass but before phase 2's
        // crowd with occlusion culling (its depth hides too), and the
        // crowd's depth test keeps the later of two equal depths; the
        // ground's keeps the earlier, so the hoof keeps every such sample
        // whatever the order, and the picture is the same either way.
        Self {
            ground: pipeline(shaders::GROUND, &ground_layout, Writes::All, true),
            sky: pipeline(shaders::SKY, &sky_layout, Writes::Colour, false),
            tracks,
            tracks_group,
            written: None,
        }
    }

    /// The rings the ground draws from the next frame (written only when
    /// they changed: a count or a clip changed the fields).
    pub fn set_tracks(&mut self, queue: &wgpu::Queue, tracks: GroundTracksGpu) {
        if self.written != Some(tracks) {
            queue.write_buffer(&self.tracks, 0, bytemuck::bytes_of(&tracks));
            self.written = Some(tracks);
        }
    }

    pub fn draw_ground(&self, pass: &mut wgpu::RenderPass<'_>) {
        pass.set_pipeline(&self.ground);
        pass.set_bind_group(1, &self.tracks_group, &[]);
        pass.draw(0..6, 0..1);
    }

    /// Draw last: it fills only what nothing else covered.
    pub fn draw_sky(&self, pass: &mut wgpu::RenderPass<'_>) {
        pass.set_pipeline(&self.sky);
        pass.draw(0..3, 0..1);
    }
}
