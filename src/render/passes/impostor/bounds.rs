//! Each atlas cell's covered texels, measured on the GPU once the atlas is
//! drawn (shaders/impostor_bounds.wgsl; the CPU rule is
//! `impostor::cell_bounds`): the impostor's quad is fitted to them. No
//! read-back, so it works where the GPU cannot be waited for (a browser).

use crate::impostor::{AtlasLayout, CellBounds, empty_bounds, full_bounds};
use crate::render::util::pipeline::{bind_group, storage_entry};
use crate::render::util::shaders;
use wgpu::util::DeviceExt;

/// Both quads' bounds of an atlas's cells (every model's, in the model
/// order): the measured ones (tight quads) and every cell whole (the
/// sphere's squares).
pub struct AtlasBounds {
    pub tight: wgpu::Buffer,
    pub full: wgpu::Buffer,
    /// Cells (4 words each).
    pub cells: u32,
}

fn buffer(device: &wgpu::Device, label: &str, bounds: &[CellBounds]) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: bytemuck::cast_slice(bounds),
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
    })
}

impl AtlasBounds {
    /// Records the measure of `layout`'s cells over the atlas `albedo`
    /// (the model's own textures, `params` its `AtlasParams`).
    pub fn measure(
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        layout: &AtlasLayout,
        params: &wgpu::Buffer,
        albedo: &wgpu::TextureView,
    ) -> Self {
        let tight = buffer(device, "impostor cell bounds", &empty_bounds(layout));
        let group_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("impostor bounds layout"),
            entries: &[
                storage_entry(0),
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: false },
                        view_dimension: wgpu::TextureViewDimension::D2Array,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Storage { read_only: false },
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
            ],
        });
        let group = bind_group(
            device,
            "impostor bounds",
            &group_layout,
            &[
                (0, params.as_entire_binding()),
                (1, wgpu::BindingResource::TextureView(albedo)),
                (2, tight.as_entire_binding()),
            ],
        );
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("impostor bounds pipeline layout"),
            bind_group_layouts: &[Some(&group_layout)],
            immediate_size: 0,
        });
        let module = shaders::IMPOSTOR_BOUNDS.create(device);
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("impostor bounds"),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("cs_bounds"),
            compilation_options: Default::default(),
            cache: None,
        });
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("impostor bounds"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups(layout.yaws, layout.elevations.len() as u32, layout.layers);
        drop(pass);
        Self {
            tight,
            full: buffer(device, "impostor whole cells", &full_bounds(layout)),
            cells: layout.cells(),
        }
    }

    /// Every part's bounds one after another (a scene's atlas, the parts in
    /// the crowd's model order); each part's first cell in them.
    pub fn concat(
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        parts: &[(&AtlasBounds, &AtlasLayout)],
    ) -> (Self, Vec<u32>) {
        let cells: u32 = parts.iter().map(|(b, _)| b.cells).sum();
        let tight = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("scene impostor cell bounds"),
            size: (cells.max(1) as usize * std::mem::size_of::<CellBounds>()) as u64,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut firsts = Vec::with_capacity(parts.len());
        let mut full = Vec::with_capacity(cells as usize);
        let mut first = 0u32;
        let bytes = std::mem::size_of::<CellBounds>() as u64;
        for (part, layout) in parts {
            firsts.push(first);
            encoder.copy_buffer_to_buffer(
                &part.tight,
                0,
                &tight,
                first as u64 * bytes,
                part.cells as u64 * bytes,
            );
            full.extend(full_bounds(layout));
            first += part.cells;
        }
        let full = buffer(device, "scene impostor whole cells", &full);
        (Self { tight, full, cells }, firsts)
    }

    /// The measured bounds read back (tests).
    pub fn read(
        &self,
        gpu: &crate::gpu::GpuContext,
    ) -> Result<Vec<CellBounds>, crate::gpu::GpuError> {
        let bytes = self.cells as u64 * std::mem::size_of::<CellBounds>() as u64;
        let staging = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("impostor cell bounds read-back"),
            size: bytes.max(16),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        encoder.copy_buffer_to_buffer(&self.tight, 0, &staging, 0, bytes);
        gpu.queue.submit([encoder.finish()]);
        let raw = crate::gpu::read_buffer(&gpu.device, &staging, bytes)?;
        Ok(bytemuck::pod_collect_to_vec(&raw))
    }
}
