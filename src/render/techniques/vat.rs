//! The VAT technique: the baked textures, the clip table and one pipeline
//! that draws the whole crowd with one instanced `draw_indexed`.

use crate::render::gpu_data::VatClipGpu;
use crate::render::model_gpu::ModelGpu;
use crate::render::RenderError;
use super::{
    BuildContext, CrowdGroup, FrameContext, Prepared, Technique, TechniqueKind, clip_buffer, draw_crowd,
};
use crate::render::pipeline::{bind_group, storage_entry, texture_entry};
use crate::vat::{Precision, Vat, VatClip};
use wgpu::util::DeviceExt;

/// The clip table as the shader reads it.
/// `ground_speeds[i]` is clip i's ground speed (missing = 0).
pub fn clip_table(vat: &Vat, ground_speeds: &[f32]) -> Vec<VatClipGpu> {
    clip_table_for(
        &vat.clips,
        vat.layout.rows_per_frame,
        vat.layout.width,
        ground_speeds,
    )
}

/// A clip table for `clips` placed in a texture with this row layout.
pub fn clip_table_for(
    clips: &[VatClip],
    rows_per_frame: u32,
    width: u32,
    ground_speeds: &[f32],
) -> Vec<VatClipGpu> {
    clips
        .iter()
        .enumerate()
        .map(|(i, c)| VatClipGpu {
            layer: c.layer,
            first_row: c.first_row,
            frame_count: c.frame_count.max(1),
            looping: c.looping as u32,
            duration: c.duration,
            rows_per_frame,
            width,
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
        Self::with_table(device, queue, vat, &clip_table(vat, ground_speeds))
    }

    /// The VAT with an already built clip table.
    pub fn with_table(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        vat: &Vat,
        table: &[VatClipGpu],
    ) -> Self {
        let format = match vat.precision {
            Precision::F16 => wgpu::TextureFormat::Rgba16Float,
            Precision::F32 => wgpu::TextureFormat::Rgba32Float,
            // Renderer::new refuses a packed VAT first (RenderError::PackedNotDrawn).
            Precision::Packed => unreachable!("the packed precision is not drawn yet"),
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
        let clips = clip_buffer(device, "vat clip table", table);
        // textureLoad only: no filtering needed, so f32 works everywhere.
        let array_entry = |binding| wgpu::BindGroupLayoutEntry {
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: false },
                view_dimension: wgpu::TextureViewDimension::D2Array,
                multisampled: false,
            },
            ..texture_entry(binding)
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("vat layout"),
            entries: &[array_entry(0), array_entry(1), storage_entry(2)],
        });
        let view = |t: &wgpu::Texture, label| {
            t.create_view(&wgpu::TextureViewDescriptor {
                label: Some(label),
                dimension: Some(wgpu::TextureViewDimension::D2Array),
                ..Default::default()
            })
        };
        let bind_group = bind_group(
            device,
            "vat bind group",
            &layout,
            &[
                (
                    0,
                    wgpu::BindingResource::TextureView(&view(&positions, "vat positions view")),
                ),
                (
                    1,
                    wgpu::BindingResource::TextureView(&view(&normals, "vat normals view")),
                ),
                (2, clips.as_entire_binding()),
            ],
        );
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
    crowd: CrowdGroup,
}

impl Technique for VatTechnique {
    fn build(ctx: &BuildContext<'_>) -> Result<Self, RenderError> {
        let resources = VatResources::with_table(ctx.device, ctx.queue, ctx.vat, ctx.clip_table);
        let (crowd, pipeline) =
            ctx.crowd_pipeline("vat", TechniqueKind::Vat.crowd_module(), &resources.layout);
        Ok(Self {
            resources,
            pipeline,
            crowd,
        })
    }

    fn kind(&self) -> TechniqueKind {
        TechniqueKind::Vat
    }

    fn prepare(&mut self, ctx: &FrameContext<'_>) -> Prepared {
        self.crowd.prepare_gpu_only(ctx)
    }

    fn draw(&self, pass: &mut wgpu::RenderPass<'_>, model: &ModelGpu, count: u32) {
        // The whole crowd: one instanced draw.
        draw_crowd(
            pass,
            &self.pipeline,
            &self.resources.bind_group,
            &self.crowd,
            model,
            count,
        );
    }

    fn group(&self) -> Option<(&wgpu::BindGroupLayout, &wgpu::BindGroup)> {
        Some((&self.resources.layout, &self.resources.bind_group))
    }

    fn gpu_memory_bytes(&self) -> u64 {
        self.resources.bytes + self.resources.clips.size()
    }
}
