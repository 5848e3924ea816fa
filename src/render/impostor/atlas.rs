//! The impostor atlas on the GPU: drawn once per device from the model's
//! VAT (`shaders/impostor_atlas.wgsl`, multisampled and resolved), then
//! its mip levels (`shaders/impostor_mip.wgsl`). Two texture arrays: the
//! albedo with coverage (sRGB), and the normal with the depth (linear),
//! both premultiplied by coverage.

use super::super::gpu_data::{AtlasClipGpu, AtlasParamsGpu, StaticVertex};
use super::super::model_gpu::ModelGpu;
use super::super::pipeline::{bind_group, storage_entry};
use super::super::shaders;
use super::super::techniques::vat::VatResources;
use crate::gpu::{GpuContext, GpuError};
use crate::impostor::AtlasLayout;
use crate::vat::{Precision, Vat};
use std::sync::Arc;
use std::time::Instant;
use wgpu::util::DeviceExt;

/// The albedo's format (sRGB: the 8 bits go where the eye needs them).
pub const ALBEDO_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
/// The normal and depth's format.
pub const NORMAL_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// Why no atlas could be made.
#[derive(Debug, thiserror::Error)]
pub enum AtlasError {
    #[error(
        "the impostor atlas needs {layers} layers of {width}×{height} texels, more than this GPU allows ({max_side}² × {max_layers} layers)"
    )]
    TooLarge {
        width: u32,
        height: u32,
        layers: u32,
        max_side: u32,
        max_layers: u32,
    },
    #[error(transparent)]
    Gpu(#[from] GpuError),
}

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
const JOB_STRIDE: usize = 256;

/// One layer read back: the albedo with coverage, and the normal with the
/// depth, RGBA8 texels, rows top to bottom.
pub type LayerTexels = (Vec<[u8; 4]>, Vec<[u8; 4]>);

/// The atlas and what the impostor pass binds of it.
pub struct ImpostorAtlas {
    pub layout: Arc<AtlasLayout>,
    pub albedo: wgpu::Texture,
    pub normal_depth: wgpu::Texture,
    pub albedo_view: wgpu::TextureView,
    pub normal_view: wgpu::TextureView,
    /// `AtlasParams` and the `AtlasClip` table.
    pub params: wgpu::Buffer,
    pub clips: wgpu::Buffer,
    /// Bytes of the two textures, every mip level.
    pub bytes: u64,
    /// Wall time of drawing it (GPU included), milliseconds.
    pub build_ms: f64,
    /// MSAA samples it was drawn with.
    pub samples: u32,
}

/// One layer and mip level of an atlas texture, as a render target or a
/// source.
fn layer_view(texture: &wgpu::Texture, layer: u32, mip: u32) -> wgpu::TextureView {
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

impl ImpostorAtlas {
    /// Draws the atlas of `layout` for `vat` and its static vertices and
    /// base colours in `model` (level 0 of its indices).
    pub fn build(
        gpu: &GpuContext,
        layout: Arc<AtlasLayout>,
        vat: &Vat,
        model: &ModelGpu,
    ) -> Result<Self, AtlasError> {
        let started = Instant::now();
        let device = &gpu.device;
        let caps = gpu.caps;
        let (width, height) = layout.layer_size();
        if width > caps.max_texture_dimension_2d
            || height > caps.max_texture_dimension_2d
            || layout.layers > caps.max_texture_array_layers
        {
            return Err(AtlasError::TooLarge {
                width,
                height,
                layers: layout.layers,
                max_side: caps.max_texture_dimension_2d,
                max_layers: caps.max_texture_array_layers,
            });
        }
        let mips = layout.mips();
        let layers = crate::gpu::array_layers(device, layout.layers);
        let texture = |label, format| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size: wgpu::Extent3d {
                    width,
                    height,
                    depth_or_array_layers: layers,
                },
                mip_level_count: mips,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                    | wgpu::TextureUsages::TEXTURE_BINDING
                    | wgpu::TextureUsages::COPY_SRC
                    | wgpu::TextureUsages::COPY_DST,
                view_formats: &[],
            })
        };
        let albedo = texture("impostor albedo", ALBEDO_FORMAT);
        let normal_depth = texture("impostor normal and depth", NORMAL_FORMAT);
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("impostor atlas params"),
            contents: bytemuck::bytes_of(&AtlasParamsGpu::new(&layout)),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let clips = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("impostor atlas clips"),
            contents: bytemuck::cast_slice(&AtlasClipGpu::table(&layout)),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let samples = gpu
            .msaa_samples(ALBEDO_FORMAT, DEPTH_FORMAT)
            .min(gpu.msaa_samples(NORMAL_FORMAT, DEPTH_FORMAT));
        let baker = Baker::new(device, &gpu.queue, &layout, vat, model, &params, samples);
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("impostor atlas"),
        });
        for layer in 0..layout.layers {
            baker.draw_layer(&mut encoder, model, layer, [&albedo, &normal_depth]);
        }
        let mipper = Mipper::new(device);
        for mip in 1..mips {
            for layer in 0..layout.layers {
                mipper.draw(device, &mut encoder, [&albedo, &normal_depth], layer, mip);
            }
        }
        gpu.queue.submit([encoder.finish()]);
        gpu.wait_idle("the impostor atlas")?;
        let view = |t: &wgpu::Texture, label| {
            t.create_view(&wgpu::TextureViewDescriptor {
                label: Some(label),
                dimension: Some(wgpu::TextureViewDimension::D2Array),
                ..Default::default()
            })
        };
        Ok(Self {
            albedo_view: view(&albedo, "impostor albedo view"),
            normal_view: view(&normal_depth, "impostor normal view"),
            albedo,
            normal_depth,
            params,
            clips,
            bytes: layout.bytes(),
            build_ms: started.elapsed().as_secs_f64() * 1e3,
            samples,
            layout,
        })
    }

    /// Reads layer `layer` at mip level `mip` back: (albedo, normal and
    /// depth), RGBA8 rows top to bottom (tests, export).
    pub fn read_layer(
        &self,
        gpu: &GpuContext,
        layer: u32,
        mip: u32,
    ) -> Result<LayerTexels, GpuError> {
        let (w, h) = self.layout.layer_size();
        let (w, h) = ((w >> mip).max(1), (h >> mip).max(1));
        let padded = (w * 4).div_ceil(256) * 256;
        let read = |texture: &wgpu::Texture| -> Result<Vec<[u8; 4]>, GpuError> {
            let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("impostor atlas read-back"),
                size: padded as u64 * h as u64,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let mut encoder = gpu.device.create_command_encoder(&Default::default());
            encoder.copy_texture_to_buffer(
                wgpu::TexelCopyTextureInfo {
                    texture,
                    mip_level: mip,
                    origin: wgpu::Origin3d {
                        x: 0,
                        y: 0,
                        z: layer,
                    },
                    aspect: wgpu::TextureAspect::All,
                },
                wgpu::TexelCopyBufferInfo {
                    buffer: &buffer,
                    layout: wgpu::TexelCopyBufferLayout {
                        offset: 0,
                        bytes_per_row: Some(padded),
                        rows_per_image: Some(h),
                    },
                },
                wgpu::Extent3d {
                    width: w,
                    height: h,
                    depth_or_array_layers: 1,
                },
            );
            gpu.queue.submit([encoder.finish()]);
            let bytes = gpu.read(&buffer, padded as u64 * h as u64)?;
            Ok(bytes
                .chunks(padded as usize)
                .flat_map(|row| row[..(w * 4) as usize].chunks_exact(4))
                .map(|p| [p[0], p[1], p[2], p[3]])
                .collect())
        };
        Ok((read(&self.albedo)?, read(&self.normal_depth)?))
    }
}

/// The pipeline and targets that draw the atlas's layers.
struct Baker {
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
    fn new(
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
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: true },
                        view_dimension: wgpu::TextureViewDimension::D2Array,
                        multisampled: false,
                    },
                    count: None,
                },
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
                cull_mode: if model.double_sided {
                    None
                } else {
                    Some(wgpu::Face::Back)
                },
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
    fn draw_layer(
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

/// The pipeline that makes one mip level from the one above.
struct Mipper {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
}

impl Mipper {
    fn new(device: &wgpu::Device) -> Self {
        let source = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("impostor mip layout"),
            entries: &[
                source(0),
                source(1),
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("impostor mip pipeline layout"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let module = shaders::IMPOSTOR_MIP.create(device);
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("impostor mip pipeline"),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_mip"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            primitive: Default::default(),
            depth_stencil: None,
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_mip"),
                compilation_options: Default::default(),
                targets: &[Some(ALBEDO_FORMAT.into()), Some(NORMAL_FORMAT.into())],
            }),
            multiview_mask: None,
            cache: None,
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("impostor mip sampler"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        Self {
            pipeline,
            layout,
            sampler,
        }
    }

    /// Records level `mip` of `layer` of both textures from level `mip - 1`.
    fn draw(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        [albedo, normal]: [&wgpu::Texture; 2],
        layer: u32,
        mip: u32,
    ) {
        let (src_a, src_n) = (
            layer_view(albedo, layer, mip - 1),
            layer_view(normal, layer, mip - 1),
        );
        let (dst_a, dst_n) = (
            layer_view(albedo, layer, mip),
            layer_view(normal, layer, mip),
        );
        let group = bind_group(
            device,
            "impostor mip group",
            &self.layout,
            &[
                (0, wgpu::BindingResource::TextureView(&src_a)),
                (1, wgpu::BindingResource::TextureView(&src_n)),
                (2, wgpu::BindingResource::Sampler(&self.sampler)),
            ],
        );
        let target = |view| {
            Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                    store: wgpu::StoreOp::Store,
                },
            })
        };
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("impostor mip"),
            color_attachments: &[target(&dst_a), target(&dst_n)],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.draw(0..3, 0..1);
    }
}
