//! The VAT technique: the baked textures, the clip table and one pipeline
//! that draws the whole crowd with one instanced `draw_indexed`.

use super::crowd::CrowdBuffer;
use super::gpu_data::VatClipGpu;
use super::model_gpu::ModelGpu;
use super::{Targets, Technique, shaders};
use crate::vat::{Precision, Vat};
use wgpu::util::DeviceExt;

/// The clip table as the shader reads it.
/// `ground_speeds[i]` is clip i's ground speed (missing = 0).
pub fn clip_table(vat: &Vat, ground_speeds: &[f32]) -> Vec<VatClipGpu> {
    vat.clips
        .iter()
        .enumerate()
        .map(|(i, c)| VatClipGpu {
            layer: c.layer,
            first_row: c.first_row,
            frame_count: c.frame_count.max(1),
            looping: c.looping as u32,
            duration: c.duration,
            rows_per_frame: vat.layout.rows_per_frame,
            width: vat.layout.width,
            ground_speed: ground_speeds.get(i).copied().unwrap_or(0.0),
        })
        .collect()
}

/// The uploaded VAT (group 1 of every shader that calls `vat_sample`).
pub struct VatResources {
    pub positions: wgpu::Texture,
    pub normals: wgpu::Texture,
    pub clips: wgpu::Buffer,
    pub layout: wgpu::BindGroupLayout,
    pub bind_group: wgpu::BindGroup,
    pub clip_count: u32,
    pub bytes: u64,
}

impl VatResources {
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        vat: &Vat,
        ground_speeds: &[f32],
    ) -> Self {
        let format = match vat.precision {
            Precision::F16 => wgpu::TextureFormat::Rgba16Float,
            Precision::F32 => wgpu::TextureFormat::Rgba32Float,
        };
        let size = wgpu::Extent3d {
            width: vat.layout.width,
            height: vat.layout.height,
            depth_or_array_layers: vat.layout.layers,
        };
        let upload = |label: &'static str, bytes: &[u8]| {
            device.create_texture_with_data(
                queue,
                &wgpu::TextureDescriptor {
                    label: Some(label),
                    size,
                    mip_level_count: 1,
                    sample_count: 1,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
                    view_formats: &[],
                },
                wgpu::util::TextureDataOrder::LayerMajor,
                bytes,
            )
        };
        let positions = upload("vat positions", vat.positions.bytes());
        let normals = upload("vat normals", vat.normals.bytes());
        let table = clip_table(vat, ground_speeds);
        let clips = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("vat clip table"),
            contents: bytemuck::cast_slice(&table),
            usage: wgpu::BufferUsages::STORAGE,
        });
        // textureLoad only: no filtering needed, so f32 works everywhere.
        let texture_entry = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: false },
                view_dimension: wgpu::TextureViewDimension::D2Array,
                multisampled: false,
            },
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("vat layout"),
            entries: &[
                texture_entry(0),
                texture_entry(1),
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Storage { read_only: true },
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
            ],
        });
        let view = |t: &wgpu::Texture, label| {
            t.create_view(&wgpu::TextureViewDescriptor {
                label: Some(label),
                dimension: Some(wgpu::TextureViewDimension::D2Array),
                ..Default::default()
            })
        };
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("vat bind group"),
            layout: &layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&view(
                        &positions,
                        "vat positions view",
                    )),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::TextureView(&view(
                        &normals,
                        "vat normals view",
                    )),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: clips.as_entire_binding(),
                },
            ],
        });
        Self {
            positions,
            normals,
            clips,
            layout,
            bind_group,
            clip_count: table.len() as u32,
            bytes: (vat.positions.bytes().len() + vat.normals.bytes().len()) as u64,
        }
    }
}

/// Draws the crowd from the VAT: no per-instance CPU work, one draw call.
pub struct VatTechnique {
    resources: VatResources,
    pipeline: wgpu::RenderPipeline,
    crowd_layout: wgpu::BindGroupLayout,
    crowd_bind_group: Option<(u64, wgpu::BindGroup)>,
}

impl VatTechnique {
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        vat: &Vat,
        ground_speeds: &[f32],
        model: &ModelGpu,
        targets: &Targets,
        frame_layout: &wgpu::BindGroupLayout,
    ) -> Self {
        let resources = VatResources::new(device, queue, vat, ground_speeds);
        let crowd_layout = super::crowd_layout(device, "vat crowd layout");
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("vat pipeline layout"),
            bind_group_layouts: &[
                Some(frame_layout),
                Some(&resources.layout),
                Some(&crowd_layout),
            ],
            immediate_size: 0,
        });
        let module = shaders::module(device, "crowd");
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("vat crowd pipeline"),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &[Some(super::gpu_data::StaticVertex::layout())],
            },
            primitive: wgpu::PrimitiveState {
                cull_mode: if model.double_sided {
                    None
                } else {
                    Some(wgpu::Face::Back)
                },
                ..Default::default()
            },
            depth_stencil: Some(targets.depth_state(true)),
            multisample: targets.multisample(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: &[Some(targets.format.into())],
            }),
            multiview_mask: None,
            cache: None,
        });
        Self {
            resources,
            pipeline,
            crowd_layout,
            crowd_bind_group: None,
        }
    }

    pub fn resources(&self) -> &VatResources {
        &self.resources
    }
}

impl Technique for VatTechnique {
    fn name(&self) -> &'static str {
        "VAT"
    }

    fn prepare(&mut self, device: &wgpu::Device, crowd: &CrowdBuffer, model: &ModelGpu) {
        if self
            .crowd_bind_group
            .as_ref()
            .is_none_or(|(g, _)| *g != crowd.generation)
        {
            let group = super::crowd_bind_group(device, &self.crowd_layout, crowd, model);
            self.crowd_bind_group = Some((crowd.generation, group));
        }
    }

    fn draw(&self, pass: &mut wgpu::RenderPass<'_>, model: &ModelGpu, count: u32) {
        let Some((_, crowd_group)) = &self.crowd_bind_group else {
            log::warn!("VAT technique drawn before prepare");
            return;
        };
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(1, &self.resources.bind_group, &[]);
        pass.set_bind_group(2, crowd_group, &[]);
        pass.set_vertex_buffer(0, model.vertices.slice(..));
        pass.set_index_buffer(model.indices.slice(..), wgpu::IndexFormat::Uint32);
        // The whole crowd: one instanced draw.
        pass.draw_indexed(0..model.index_count, 0, 0..count);
    }
}
