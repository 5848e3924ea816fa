//! The VAT technique: the baked textures, the clip table and one pipeline
//! that draws the whole crowd with one instanced `draw_indexed`.

use crate::render::data::gpu_data::{VatClipGpu, VatPackingGpu};
use crate::render::data::model_gpu::ModelGpu;
use crate::render::config::RenderError;
use crate::render::passes::techniques::{CrowdDraw, CrowdPass, CrowdPipelines};
use crate::render::passes::techniques::{
    BuildContext, CrowdGroup, FrameContext, Prepared, Technique, TechniqueKind, clip_buffer, draw_crowd,
};
use crate::render::util::pipeline::{bind_group, storage_entry, texture_entry};
use crate::vat::{Precision, Texels, Vat, VatClip, VatSet, packed};
use std::sync::Arc;

/// Where a VAT texture's texels come from.
#[derive(Clone, Copy)]
pub enum TexelSource<'a> {
    /// The bake's own texels, as they are laid out.
    Own(&'a Vat),
    /// A scene's array: each clip's rows written from its model's own bake
    /// (in the order the set was planned) to its place, one copy each; no
    /// combined copy is made on the CPU.
    Set(&'a VatSet, &'a [Arc<Vat>]),
}
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
            vertex_base: 0,
        })
        .collect()
}

/// The clip table of a scene of several models sharing one VAT array
/// (`set`, planned from `vats` in this order): each model's clips with
/// their places in the array, its own row layout, its ground speeds
/// (`ground_speeds[m]`) and its first vertex.
pub fn set_clip_table(
    set: &crate::vat::VatSet,
    vats: &[&Vat],
    ground_speeds: &[&[f32]],
) -> Vec<VatClipGpu> {
    let mut table = Vec::with_capacity(set.clips.len());
    for (m, (model, vat)) in set.models.iter().zip(vats).enumerate() {
        let speeds = ground_speeds.get(m).copied().unwrap_or_default();
        table.extend(
            clip_table_for(
                &set.placed_clips(m, vat),
                model.rows_per_frame,
                model.width,
                speeds,
            )
            .into_iter()
            .map(|c| VatClipGpu {
                vertex_base: model.vertex_base,
                ..c
            }),
        );
    }
    table
}

/// The uploaded VAT (group 1 of every shader that calls `vat_sample`).
pub struct VatResources {
    /// The positions (f16, f32) or the packed texels.
    pub positions: wgpu::Texture,
    /// Binding 1: the normals texture, or the packed decode's bounds (a
    /// read-only storage buffer).
    pub second: Second,
    pub clips: wgpu::Buffer,
    pub layout: wgpu::BindGroupLayout,
    pub bind_group: wgpu::BindGroup,
    pub bytes: u64,
}

/// What binding 1 of the VAT group holds for the bake's precision.
pub enum Second {
    Normals(wgpu::Texture),
    Packing(wgpu::Buffer),
}

impl VatResources {
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        vat: &Vat,
        ground_speeds: &[f32],
    ) -> Self {
        let table = clip_buffer(device, "vat clip table", &clip_table(vat, ground_speeds));
        Self::with_clips(device, queue, vat, table)
    }

    /// The VAT read through `clips`, a clip table already on the GPU (the
    /// renderer's, which the cull pass and the impostors read too).
    pub fn with_clips(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        vat: &Vat,
        clips: wgpu::Buffer,
    ) -> Self {
        Self::with_source(device, queue, vat, TexelSource::Own(vat), clips)
    }

    /// The VAT `vat` describes (its layout, clips, precision and bounds),
    /// its texels taken from `source`.
    pub fn with_source(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        vat: &Vat,
        source: TexelSource<'_>,
        clips: wgpu::Buffer,
    ) -> Self {
        let layers = crate::gpu::array_layers(device, vat.layout.layers);
        let size = wgpu::Extent3d {
            width: vat.layout.width,
            height: vat.layout.height,
            depth_or_array_layers: layers,
        };
        let descriptor = |label, format| wgpu::TextureDescriptor {
            label: Some(label),
            size,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        };
        let upload = |label: &'static str, format, texels: fn(&Vat) -> &Texels| {
            let own = match source {
                TexelSource::Own(own) => own,
                TexelSource::Set(set, vats) => {
                    // Unwritten texels (and spare layers) stay zero, as
                    // `VatSet::combine` leaves them.
                    let texture = device.create_texture(&descriptor(label, format));
                    set.upload(vats, texels, |c, bytes, width| {
                        queue.write_texture(
                            wgpu::TexelCopyTextureInfo {
                                texture: &texture,
                                mip_level: 0,
                                origin: wgpu::Origin3d {
                                    x: 0,
                                    y: c.first_row,
                                    z: c.layer,
                                },
                                aspect: wgpu::TextureAspect::All,
                            },
                            bytes,
                            wgpu::TexelCopyBufferLayout {
                                offset: 0,
                                bytes_per_row: Some(width * set.precision.bytes_per_texel() as u32),
                                rows_per_image: Some(c.rows),
                            },
                            wgpu::Extent3d {
                                width,
                                height: c.rows,
                                depth_or_array_layers: 1,
                            },
                        );
                    });
                    return texture;
                }
            };
            let bytes = texels(own).bytes();
            // Spare layers (see `array_layers`) are zeros.
            let layer = bytes.len() / vat.layout.layers.max(1) as usize;
            let mut padded = Vec::new();
            let bytes = if layers > vat.layout.layers {
                padded.extend_from_slice(bytes);
                padded.resize(layer * layers as usize, 0);
                &padded[..]
            } else {
                bytes
            };
            device.create_texture_with_data(
                queue,
                &descriptor(label, format),
                wgpu::util::TextureDataOrder::LayerMajor,
                bytes,
            )
        };
        let view = |t: &wgpu::Texture, label| {
            t.create_view(&wgpu::TextureViewDescriptor {
                label: Some(label),
                dimension: Some(wgpu::TextureViewDimension::D2Array),
                ..Default::default()
            })
        };
        // textureLoad only: no filtering needed, so f32 works everywhere.
        let array_entry = |binding, sample_type| wgpu::BindGroupLayoutEntry {
            ty: wgpu::BindingType::Texture {
                sample_type,
                view_dimension: wgpu::TextureViewDimension::D2Array,
                multisampled: false,
            },
            ..texture_entry(binding)
        };
        let float = wgpu::TextureSampleType::Float { filterable: false };
        let (format, second_entry) = match vat.precision {
            Precision::F16 => (wgpu::TextureFormat::Rgba16Float, array_entry(1, float)),
            Precision::F32 => (wgpu::TextureFormat::Rgba32Float, array_entry(1, float)),
            Precision::Packed => (wgpu::TextureFormat::Rgba16Uint, storage_entry(1)),
        };
        let first_type = match vat.precision {
            Precision::Packed => wgpu::TextureSampleType::Uint,
            _ => float,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("vat layout"),
            entries: &[array_entry(0, first_type), second_entry, storage_entry(2)],
        });
        let positions = upload("vat positions", format, |v| &v.positions);
        // The second binding: the normals texture, or the packed decode.
        let second = match vat.precision {
            Precision::Packed => Second::Packing(device.create_buffer_init(
                &wgpu::util::BufferInitDescriptor {
                    label: Some("vat packing"),
                    contents: bytemuck::bytes_of(&VatPackingGpu {
                        min: vat.bounds.min.extend(0.0).to_array(),
                        step: packed::step(&vat.bounds).extend(0.0).to_array(),
                    }),
                    usage: wgpu::BufferUsages::STORAGE,
                },
            )),
            _ => Second::Normals(upload("vat normals", format, |v| &v.normals)),
        };
        let positions_view = view(&positions, "vat positions view");
        let second_view;
        let second_resource = match &second {
            Second::Normals(t) => {
                second_view = view(t, "vat normals view");
                wgpu::BindingResource::TextureView(&second_view)
            }
            Second::Packing(b) => b.as_entire_binding(),
        };
        let bind_group = bind_group(
            device,
            "vat bind group",
            &layout,
            &[
                (0, wgpu::BindingResource::TextureView(&positions_view)),
                (1, second_resource),
                (2, clips.as_entire_binding()),
            ],
        );
        Self {
            positions,
            second,
            clips,
            layout,
            bind_group,
            bytes: match source {
                TexelSource::Own(own) => own.total_bytes() as u64,
                TexelSource::Set(set, _) => {
                    set.texture_bytes() * if vat.precision == Precision::Packed { 1 } else { 2 }
                }
            },
        }
    }
}

/// Draws the crowd from the VAT: no per-instance CPU work, one draw call.
pub struct VatTechnique {
    resources: VatResources,
    pipelines: CrowdPipelines,
    crowd: CrowdGroup,
}

impl Technique for VatTechnique {
    fn build(ctx: &BuildContext<'_>) -> Result<Self, RenderError> {
        let resources = VatResources::with_source(
            ctx.device,
            ctx.queue,
            ctx.vat,
            ctx.texels,
            ctx.clip_buffer.clone(),
        );
        // A packed bake decodes in its own fetch (shaders/vat_packed.wgsl).
        let module = match ctx.vat.precision {
            Precision::Packed => crate::render::util::shaders::CROWD_VAT_PACKED,
            _ => TechniqueKind::Vat.crowd_module(),
        };
        let (crowd, pipelines) = ctx.crowd_pipeline("vat", module, &resources.layout);
        Ok(Self {
            resources,
            pipelines,
            crowd,
        })
    }

    fn kind(&self) -> TechniqueKind {
        TechniqueKind::Vat
    }

    fn prepare(&mut self, ctx: &FrameContext<'_>) -> Prepared {
        self.crowd.prepare_gpu_only(ctx)
    }

    fn draw(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        model: &ModelGpu,
        draw: &CrowdDraw<'_>,
        which: CrowdPass,
    ) {
        // The whole crowd: one instanced draw.
        draw_crowd(
            pass,
            self.pipelines.get(which),
            &self.resources.bind_group,
            &self.crowd,
            model,
            draw,
        );
    }

    fn group(&self) -> Option<(&wgpu::BindGroupLayout, &wgpu::BindGroup)> {
        Some((&self.resources.layout, &self.resources.bind_group))
    }

    fn gpu_memory_bytes(&self) -> u64 {
        // The clip table is the renderer's, counted with the shared memory.
        self.resources.bytes
    }
}
