//! The impostor atlas on the GPU: drawn once per device from the model's
//! VAT (`shaders/impostor_atlas.wgsl`, multisampled and resolved), then
//! its mip levels (`shaders/impostor_mip.wgsl`). Two texture arrays: the
//! albedo with coverage (sRGB), and the normal with the depth (linear),
//! both premultiplied by coverage.

use crate::gpu::{GpuContext, GpuError};
use crate::impostor::AtlasLayout;
use crate::render::data::gpu_data::{AtlasClipGpu, AtlasParamsGpu};
use crate::render::data::model_gpu::ModelGpu;
use crate::render::passes::impostor::baker::{
    ALBEDO_FORMAT, Baker, DEPTH_FORMAT, JOB_STRIDE, NORMAL_FORMAT, layer_view,
};
use crate::render::passes::impostor::bounds::AtlasBounds;
use crate::render::util::pipeline::bind_group;
use crate::render::util::shaders;
use crate::vat::Vat;
use std::sync::Arc;
use web_time::Instant;
use wgpu::util::DeviceExt;

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

/// One layer read back: the albedo with coverage, and the normal with the
/// depth, RGBA8 texels, rows top to bottom.
pub type LayerTexels = (Vec<[u8; 4]>, Vec<[u8; 4]>);

/// The atlas and what the impostor pass binds of it: one model's, or a
/// scene's (`scene_atlas`: every model's layers in one pair of textures).
pub struct ImpostorAtlas {
    /// The model's layout (a scene's: its first model's; each model's is
    /// in `models`).
    pub layout: Arc<AtlasLayout>,
    /// Each model's layout and its first layer in the textures.
    pub models: Vec<(Arc<AtlasLayout>, u32)>,
    /// Texels of a layer, and the layers (every model's).
    pub layer_size: (u32, u32),
    pub layers: u32,
    pub albedo: wgpu::Texture,
    pub normal_depth: wgpu::Texture,
    pub albedo_view: wgpu::TextureView,
    pub normal_view: wgpu::TextureView,
    /// `AtlasParams` (one per model) and the `AtlasClip` table.
    pub params: wgpu::Buffer,
    /// Each cell's covered texels (every model's), and every cell whole.
    pub bounds: AtlasBounds,
    pub clips: wgpu::Buffer,
    /// Bytes of the two textures, every mip level.
    pub bytes: u64,
    /// Wall time of drawing it (GPU included), milliseconds.
    pub build_ms: f64,
    /// MSAA samples it was drawn with.
    pub samples: u32,
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
        fits(&caps, (width, height), layout.layers)?;
        let mips = layout.mips();
        let [albedo, normal_depth] = textures(device, (width, height), layout.layers, mips);
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
        let mipper = Mipper::new(device, layout.layers);
        for mip in 1..mips {
            mipper.draw(device, &mut encoder, [&albedo, &normal_depth], mip);
        }
        let albedo_view = array_view(&albedo, "impostor albedo view");
        let bounds = AtlasBounds::measure(
            device,
            &gpu.queue,
            &mut encoder,
            &layout,
            &params,
            &albedo_view,
        );
        gpu.queue.submit([encoder.finish()]);
        gpu.wait_idle("the impostor atlas")?;
        Ok(Self {
            albedo_view,
            bounds,
            normal_view: array_view(&normal_depth, "impostor normal view"),
            albedo,
            normal_depth,
            params,
            clips,
            bytes: layout.bytes(),
            build_ms: started.elapsed().as_secs_f64() * 1e3,
            samples,
            models: vec![(layout.clone(), 0)],
            layer_size: (width, height),
            layers: layout.layers,
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
        let (w, h) = self.layer_size;
        let (w, h) = ((w >> mip).max(1), (h >> mip).max(1));
        let read = |texture: &wgpu::Texture| {
            gpu.read_texture_layer(texture, wgpu::TextureAspect::All, mip, layer, (w, h))
        };
        Ok((read(&self.albedo)?, read(&self.normal_depth)?))
    }
}

/// Refuses an atlas of `layers` layers of `width × height` texels that
/// the device cannot hold.
pub(super) fn fits(
    caps: &crate::gpu::Capabilities,
    (width, height): (u32, u32),
    layers: u32,
) -> Result<(), AtlasError> {
    if width > caps.max_texture_dimension_2d
        || height > caps.max_texture_dimension_2d
        || layers > caps.max_texture_array_layers
    {
        return Err(AtlasError::TooLarge {
            width,
            height,
            layers,
            max_side: caps.max_texture_dimension_2d,
            max_layers: caps.max_texture_array_layers,
        });
    }
    Ok(())
}

/// The atlas's two textures (albedo, normal and depth) of `layers` layers
/// of `width × height` texels with `mips` levels.
pub(super) fn textures(
    device: &wgpu::Device,
    (width, height): (u32, u32),
    layers: u32,
    mips: u32,
) -> [wgpu::Texture; 2] {
    let layers = crate::gpu::array_layers(device, layers);
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
    [
        texture("impostor albedo", ALBEDO_FORMAT),
        texture("impostor normal and depth", NORMAL_FORMAT),
    ]
}

/// Every layer of an atlas texture, as the impostor pass samples it.
pub(super) fn array_view(texture: &wgpu::Texture, label: &str) -> wgpu::TextureView {
    texture.create_view(&wgpu::TextureViewDescriptor {
        label: Some(label),
        dimension: Some(wgpu::TextureViewDimension::D2Array),
        ..Default::default()
    })
}

/// The layer the mip shader makes a level of (mirrors `MipLayer` in
/// shaders/impostor_mip.wgsl), one per [`JOB_STRIDE`] bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MipLayerGpu {
    pub layer: u32,
    pub _pad0: u32,
    pub _pad1: u32,
    pub _pad2: u32,
}

/// The mip shader's layer uniform's size.
const LAYER_UNIFORM: u64 = std::mem::size_of::<MipLayerGpu>() as u64;

/// Level `mip` of every layer of an atlas texture, as the next level's
/// source.
fn level_view(texture: &wgpu::Texture, mip: u32) -> wgpu::TextureView {
    texture.create_view(&wgpu::TextureViewDescriptor {
        label: Some("impostor atlas level"),
        dimension: Some(wgpu::TextureViewDimension::D2Array),
        base_mip_level: mip,
        mip_level_count: Some(1),
        ..Default::default()
    })
}

/// The pipeline that makes one mip level from the one above. The level
/// above is bound as an array of every layer (GL cannot sample one layer
/// of an array other than the first as a 2D texture: wgpu's GL backend
/// binds its first layer and says so), the layer chosen by a uniform.
struct Mipper {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
    /// Each layer's index, one per [`JOB_STRIDE`] bytes (a dynamic offset).
    layers: wgpu::Buffer,
    layer_count: u32,
}

impl Mipper {
    fn new(device: &wgpu::Device, layer_count: u32) -> Self {
        let source = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension: wgpu::TextureViewDimension::D2Array,
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
                wgpu::BindGroupLayoutEntry {
                    binding: 3,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: true,
                        min_binding_size: wgpu::BufferSize::new(LAYER_UNIFORM),
                    },
                    count: None,
                },
            ],
        });
        let mut indices = vec![0u8; layer_count.max(1) as usize * JOB_STRIDE];
        for layer in 0..layer_count {
            let at = layer as usize * JOB_STRIDE;
            let entry = MipLayerGpu {
                layer,
                ..Default::default()
            };
            indices[at..at + LAYER_UNIFORM as usize].copy_from_slice(bytemuck::bytes_of(&entry));
        }
        let layers = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("impostor mip layers"),
            contents: &indices,
            usage: wgpu::BufferUsages::UNIFORM,
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
            layers,
            layer_count,
        }
    }

    /// Records level `mip` of every layer of both textures from level
    /// `mip - 1`.
    fn draw(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        [albedo, normal]: [&wgpu::Texture; 2],
        mip: u32,
    ) {
        let (src_a, src_n) = (level_view(albedo, mip - 1), level_view(normal, mip - 1));
        let group = bind_group(
            device,
            "impostor mip group",
            &self.layout,
            &[
                (0, wgpu::BindingResource::TextureView(&src_a)),
                (1, wgpu::BindingResource::TextureView(&src_n)),
                (2, wgpu::BindingResource::Sampler(&self.sampler)),
                (
                    3,
                    wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &self.layers,
                        offset: 0,
                        size: wgpu::BufferSize::new(LAYER_UNIFORM),
                    }),
                ),
            ],
        );
        for layer in 0..self.layer_count {
            self.draw_layer(encoder, [albedo, normal], &group, layer, mip);
        }
    }

    /// Level `mip` of `layer`, with the level above bound in `group`.
    fn draw_layer(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        [albedo, normal]: [&wgpu::Texture; 2],
        group: &wgpu::BindGroup,
        layer: u32,
        mip: u32,
    ) {
        let (dst_a, dst_n) = (
            layer_view(albedo, layer, mip),
            layer_view(normal, layer, mip),
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
        pass.set_bind_group(0, group, &[layer * JOB_STRIDE as u32]);
        pass.draw(0..3, 0..1);
    }
}
