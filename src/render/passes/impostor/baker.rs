//! Drawing the impostor atlas's layers: the model posed through its VAT
//! at each layer's clip time, one instanced draw per layer (instance =
//! cell), multisampled where the GPU can and resolved through a one-layer
//! texture (lavapipe resolves only into an array's layer 0).

use crate::impostor::AtlasLayout;
use crate::render::data::gpu_data::StaticVertex;
use crate::render::data::model_gpu::ModelGpu;
use crate::render::passes::techniques::vat::VatResources;
use crate::render::util::pipeline::{bind_group, filtered_array_entry, storage_entry};
use crate::render::util::shaders;
use crate::vat::{Precision, Vat};
use wgpu::util::DeviceExt;

/// The albedo's format (sRGB: the 8 bits go where the eye needs them).
pub const ALBEDO_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
/// The normal and depth's format.
pub const NORMAL_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
pub(super) use crate::render::passes::targets::DEPTH_FORMAT;

/// Per atlas layer: the clip and its time (mirrors `BakeLayer` in
/// shaders/impostor_atlas.wgsl), one per [`JOB_STRIDE`] bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BakeLayerGpu {
    pub clip: u32,
    pub time: f32,
    pub _pad: [u32; 2],
}

/// Bytes between two layers' jobs (the uniform offset alignment every
/// adapter accepts).
pub(super) const JOB_STRIDE: usize = 256;

/// One layer and mip level of an atlas texture, as a render target or a
/// source.
pub(super) fn layer_view(texture: &wgpu::Texture, layer: u32, mip: u32) -> wgpu::TextureView {
    texture.create_view(&wgpu::TextureViewDescriptor {
        label: Some("impostor atlas layer"),
        dimension: Some(wgpu::TextureViewDimension::D2),
        base_mip_level: mip,
        mip_level_count: Some(1),
        base_array_layer: layer,
        array_layer_count: Some(1),
        ..Default::default()
    })
}

/// The pipeline and targets that draw the atlas's layers.
pub(super) struct Baker {
    pipeline: wgpu::RenderPipeline,
    group: wgpu::BindGroup,
    vat: VatResources,
    textures: wgpu::BindGroup,
    msaa: Option<Msaa>,
    depth: wgpu::TextureView,
    cells: u32,
    /// The mesh level's range of the model's index buffer.
    indices: std::ops::Range<u32>,
}

impl Baker {
    pub(super) fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        layout: &AtlasLayout,
        vat: &Vat,
        model: &ModelGpu,
        params: &wgpu::Buffer,
        samples: u32,
    ) -> Self {
        // Each layer's clip and time (the layer's atlas frame), a uniform
        // slot each.
        let mut jobs = vec![0u8; layout.layers as usize * JOB_STRIDE];
        for (c, clip) in layout.clips.iter().enumerate() {
            for k in 0..clip.frames {
                let at = (clip.first_layer + k) as usize * JOB_STRIDE;
                if let Some(slot) = jobs.get_mut(at..at + std::mem::size_of::<BakeLayerGpu>()) {
                    slot.copy_from_slice(bytemuck::bytes_of(&BakeLayerGpu {
                        clip: c as u32,
                        time: clip.time(k),
                        _pad: [0; 2],
                    }));
                }
            }
        }
        let jobs = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("impostor atlas layers"),
            contents: &jobs,
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let vertex = wgpu::ShaderStages::VERTEX;
        let group_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("impostor atlas bake layout"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    visibility: vertex,
                    ..storage_entry(0)
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: vertex,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: true,
                        min_binding_size: wgpu::BufferSize::new(
                            std::mem::size_of::<BakeLayerGpu>() as u64,
                        ),
                    },
                    count: None,
                },
            ],
        });
        let group = bind_group(
            device,
            "impostor atlas bake group",
            &group_layout,
            &[
                (0, params.as_entire_binding()),
                (
                    1,
                    wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &jobs,
                        offset: 0,
                        size: wgpu::BufferSize::new(std::mem::size_of::<BakeLayerGpu>() as u64),
                    }),
                ),
            ],
        );
        let texture_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("impostor atlas base colour layout"),
            entries: &[
                filtered_array_entry(0),
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
            ],
        });
        let textures = bind_group(
            device,
            "impostor atlas base colour group",
            &texture_layout,
            &[
                (0, wgpu::BindingResource::TextureView(&model.texture_view)),
                (1, wgpu::BindingResource::Sampler(&model.sampler)),
            ],
        );
        // The VAT with its plain clip table (no ground speeds: only the
        // timing is read).
        let vat_resources = VatResources::new(device, queue, vat, &[]);
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("impostor atlas bake pipeline layout"),
            bind_group_layouts: &[
                Some(&group_layout),
                Some(&vat_resources.layout),
                Some(&texture_layout),
            ],
            immediate_size: 0,
        });
        let module = match vat.precision {
            Precision::Packed => shaders::IMPOSTOR_ATLAS_PACKED,
            _ => shaders::IMPOSTOR_ATLAS,
        }
        .create(device);
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("impostor atlas bake pipeline"),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_bake"),
                compilation_options: Default::default(),
                buffers: &[Some(StaticVertex::layout())],
            },
            primitive: wgpu::PrimitiveState {
                cull_mode: model.face_culling(),
                ..Default::default()
            },
            depth_stencil: Some(wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                depth_write_enabled: Some(true),
                depth_compare: Some(wgpu::CompareFunction::LessEqual),
                stencil: Default::default(),
                bias: Default::default(),
            }),
            multisample: wgpu::MultisampleState {
                count: samples,
                ..Default::default()
            },
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_bake"),
                compilation_options: Default::default(),
                targets: &[Some(ALBEDO_FORMAT.into()), Some(NORMAL_FORMAT.into())],
            }),
            multiview_mask: None,
            cache: None,
        });
        let (width, height) = layout.layer_size();
        let texture = |label, format, samples, usage| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size: wgpu::Extent3d {
                    width,
                    height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: samples,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        };
        let target = wgpu::TextureUsages::RENDER_ATTACHMENT;
        let msaa = (samples > 1).then(|| {
            let resolved = [
                texture(
                    "impostor bake albedo",
                    ALBEDO_FORMAT,
                    1,
                    target | wgpu::TextureUsages::COPY_SRC,
                ),
                texture(
                    "impostor bake normal",
                    NORMAL_FORMAT,
                    1,
                    target | wgpu::TextureUsages::COPY_SRC,
                ),
            ];
            Msaa {
                samples: [
                    texture(
                        "impostor bake albedo (msaa)",
                        ALBEDO_FORMAT,
                        samples,
                        target,
                    ),
                    texture(
                        "impostor bake normal (msaa)",
                        NORMAL_FORMAT,
                        samples,
                        target,
                    ),
                ]
                .map(|t| t.create_view(&Default::default())),
                resolved_views: [
                    resolved[0].create_view(&Default::default()),
                    resolved[1].create_view(&Default::default()),
                ],
                resolved,
            }
        });
        let depth = texture("impostor bake depth", DEPTH_FORMAT, samples, target)
            .create_view(&Default::default());
        Self {
            pipeline,
            group,
            vat: vat_resources,
            textures,
            msaa,
            depth,
            cells: layout.cells(),
            indices: if layout.index_count == 0 {
                0..model.index_count
            } else {
                layout.first_index..layout.first_index + layout.index_count
            },
        }
    }

    /// Records the pass drawing `layer` into level 0 of the two textures.
    /// Multisampled, it resolves into a one-layer texture and copies that
    /// into the layer: Mesa's lavapipe (22.3) resolves only into layer 0 of
    /// an array texture.
    pub(super) fn draw_layer(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        model: &ModelGpu,
        layer: u32,
        textures: [&wgpu::Texture; 2],
    ) {
        let clear = wgpu::Operations {
            load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
            store: wgpu::StoreOp::Store,
        };
        let direct = textures.map(|t| layer_view(t, layer, 0));
        let attachment = |i: usize| {
            let (view, resolve_target) = match &self.msaa {
                Some(msaa) => (&msaa.samples[i], Some(&msaa.resolved_views[i])),
                None => (&direct[i], None),
            };
            Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target,
                ops: clear,
            })
        };
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("impostor atlas layer"),
                color_attachments: &[attachment(0), attachment(1)],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &self.depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.group, &[layer * JOB_STRIDE as u32]);
            pass.set_bind_group(1, &self.vat.bind_group, &[]);
            pass.set_bind_group(2, &self.textures, &[]);
            pass.set_vertex_buffer(0, model.vertices.slice(..));
            pass.set_index_buffer(model.indices.slice(..), wgpu::IndexFormat::Uint32);
            pass.draw_indexed(self.indices.clone(), 0, 0..self.cells);
        }
        if let Some(msaa) = &self.msaa {
            for (source, target) in msaa.resolved.iter().zip(textures) {
                encoder.copy_texture_to_texture(
                    source.as_image_copy(),
                    wgpu::TexelCopyTextureInfo {
                        texture: target,
                        mip_level: 0,
                        origin: wgpu::Origin3d {
                            x: 0,
                            y: 0,
                            z: layer,
                        },
                        aspect: wgpu::TextureAspect::All,
                    },
                    source.size(),
                );
            }
        }
    }
}

/// The multisampled targets of the bake and the one-layer textures they
/// resolve into.
struct Msaa {
    samples: [wgpu::TextureView; 2],
    resolved: [wgpu::Texture; 2],
    resolved_views: [wgpu::TextureView; 2],
}
