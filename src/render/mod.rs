//! The crowd renderer: the scene (sky, ground, light, fog) and one technique
//! that draws the whole crowd from a shared instance buffer.
//!
//! `Model → Vat → VatResources + ModelGpu + CrowdBuffer → one draw`.

pub mod camera;
pub mod crowd;
pub mod gpu_data;
pub mod headless;
pub mod model_gpu;
pub mod scene;
pub mod shaders;
pub mod timing;
pub mod vat_technique;

use crate::gpu::{GpuContext, GpuError};
use crate::vat::Vat;
use crate::{Aabb, Model};
pub use camera::Camera;
pub use crowd::{CrowdBuffer, CrowdError, Motion};
use gpu_data::FrameUniform;
use model_gpu::ModelGpu;
pub use scene::{CrowdLayout, FrameSettings, Scene};
use std::sync::Arc;
pub use timing::{GpuTimer, History};
pub use vat_technique::{VatResources, VatTechnique};

pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// Why the renderer cannot be built or used.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error(transparent)]
    Crowd(#[from] CrowdError),
    #[error(
        "the VAT is {width}×{height}×{layers} texels, more than this GPU allows ({max_side}² × {max_layers} layers); bake with a smaller --max-width or --fps"
    )]
    VatTooLarge {
        width: u32,
        height: u32,
        layers: u32,
        max_side: u32,
        max_layers: u32,
    },
    #[error("the image size must be between 1×1 and {max}×{max}, not {width}×{height}")]
    BadSize { width: u32, height: u32, max: u32 },
}

/// A way of drawing the crowd. Each one owns its pipeline and buffers; the
/// instance data (`CrowdBuffer`) and the model's static data are shared, so
/// switching keeps the same crowd.
pub trait Technique {
    fn name(&self) -> &'static str;
    /// Per-frame preparation (bind groups after the crowd buffer grew,
    /// uploads a technique needs). The frame uniform is already written.
    fn prepare(&mut self, device: &wgpu::Device, crowd: &CrowdBuffer, model: &ModelGpu);
    /// Records the crowd's draw calls; group 0 (the frame) is already set.
    fn draw(&self, pass: &mut wgpu::RenderPass<'_>, model: &ModelGpu, count: u32);
}

/// The techniques the viewer offers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum TechniqueKind {
    /// Vertex animation texture: one instanced draw, no per-instance CPU work.
    #[default]
    Vat,
}

impl TechniqueKind {
    pub const ALL: &[TechniqueKind] = &[TechniqueKind::Vat];

    pub fn label(self) -> &'static str {
        match self {
            TechniqueKind::Vat => "VAT (vertex animation texture)",
        }
    }
}

/// Colour format, MSAA and depth of what the renderer draws into.
pub struct Targets {
    pub format: wgpu::TextureFormat,
    pub samples: u32,
    pub width: u32,
    pub height: u32,
    msaa: Option<wgpu::TextureView>,
    depth: wgpu::TextureView,
}

impl Targets {
    pub fn new(gpu: &GpuContext, format: wgpu::TextureFormat, width: u32, height: u32) -> Self {
        let samples = gpu.msaa_samples(format, DEPTH_FORMAT);
        let (msaa, depth) = Self::make(&gpu.device, format, samples, width, height);
        Self {
            format,
            samples,
            width,
            height,
            msaa,
            depth,
        }
    }

    fn make(
        device: &wgpu::Device,
        format: wgpu::TextureFormat,
        samples: u32,
        width: u32,
        height: u32,
    ) -> (Option<wgpu::TextureView>, wgpu::TextureView) {
        let size = wgpu::Extent3d {
            width: width.max(1),
            height: height.max(1),
            depth_or_array_layers: 1,
        };
        let texture = |label, format| {
            device
                .create_texture(&wgpu::TextureDescriptor {
                    label: Some(label),
                    size,
                    mip_level_count: 1,
                    sample_count: samples,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                    view_formats: &[],
                })
                .create_view(&Default::default())
        };
        let msaa = (samples > 1).then(|| texture("msaa colour", format));
        (msaa, texture("depth", DEPTH_FORMAT))
    }

    pub fn resize(&mut self, device: &wgpu::Device, width: u32, height: u32) {
        if (width, height) != (self.width, self.height) {
            (self.msaa, self.depth) = Self::make(device, self.format, self.samples, width, height);
            (self.width, self.height) = (width, height);
        }
    }

    pub fn aspect(&self) -> f32 {
        self.width.max(1) as f32 / self.height.max(1) as f32
    }

    pub fn depth_state(&self, write: bool) -> wgpu::DepthStencilState {
        wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(write),
            depth_compare: Some(wgpu::CompareFunction::LessEqual),
            stencil: Default::default(),
            bias: Default::default(),
        }
    }

    pub fn multisample(&self) -> wgpu::MultisampleState {
        wgpu::MultisampleState {
            count: self.samples,
            ..Default::default()
        }
    }
}

/// Group 2 of the crowd shaders: instances and base-colour textures.
pub fn crowd_layout(device: &wgpu::Device, label: &'static str) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries: &[
            wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: true },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            },
            wgpu::BindGroupLayoutEntry {
                binding: 1,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: true },
                    view_dimension: wgpu::TextureViewDimension::D2Array,
                    multisampled: false,
                },
                count: None,
            },
            wgpu::BindGroupLayoutEntry {
                binding: 2,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                count: None,
            },
        ],
    })
}

pub fn crowd_bind_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    crowd: &CrowdBuffer,
    model: &ModelGpu,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("crowd bind group"),
        layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: crowd.buffer.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::TextureView(&model.texture_view),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: wgpu::BindingResource::Sampler(&model.sampler),
            },
        ],
    })
}

/// How to build a renderer.
#[derive(Clone, Debug)]
pub struct RendererConfig {
    pub format: wgpu::TextureFormat,
    pub width: u32,
    pub height: u32,
    pub count: u32,
    pub seed: u64,
    pub motion: Motion,
    /// Each clip's ground speed in model units per second of clip time
    /// (0 = animate in place).
    pub ground_speeds: Vec<f32>,
}

/// The scene, the crowd and the active technique.
pub struct Renderer {
    pub gpu: Arc<GpuContext>,
    pub targets: Targets,
    frame_buffer: wgpu::Buffer,
    frame_layout: wgpu::BindGroupLayout,
    frame_bind_group: wgpu::BindGroup,
    scene: Scene,
    pub model: ModelGpu,
    pub crowd: CrowdBuffer,
    technique: Box<dyn Technique>,
    pub layout: CrowdLayout,
    pub timer: Option<GpuTimer>,
    /// The last uniform written, for tests and the panel.
    pub last_frame: Option<FrameUniform>,
    timed_pending: bool,
}

impl Renderer {
    pub fn new(
        gpu: Arc<GpuContext>,
        model: &Model,
        vat: &Vat,
        config: &RendererConfig,
    ) -> Result<Self, RenderError> {
        let caps = gpu.caps;
        let max_side = caps.max_texture_dimension_2d;
        if vat.layout.width > max_side
            || vat.layout.height > max_side
            || vat.layout.layers > caps.max_texture_array_layers
        {
            return Err(RenderError::VatTooLarge {
                width: vat.layout.width,
                height: vat.layout.height,
                layers: vat.layout.layers,
                max_side,
                max_layers: caps.max_texture_array_layers,
            });
        }
        if config.width == 0
            || config.height == 0
            || config.width > max_side
            || config.height > max_side
        {
            return Err(RenderError::BadSize {
                width: config.width,
                height: config.height,
                max: max_side,
            });
        }
        let device = &gpu.device;
        let targets = Targets::new(&gpu, config.format, config.width, config.height);
        let frame_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("frame uniform"),
            size: std::mem::size_of::<FrameUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let frame_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("frame layout"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let frame_bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("frame bind group"),
            layout: &frame_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: frame_buffer.as_entire_binding(),
            }],
        });
        let scene = Scene::new(device, &targets, &frame_layout);
        let model_gpu = ModelGpu::new(device, &gpu.queue, model);
        let crowd = CrowdBuffer::new(
            device,
            &gpu.queue,
            config.seed,
            config.count,
            caps.max_storage_buffer_binding_size,
        )?;
        let technique = Box::new(VatTechnique::new(
            device,
            &gpu.queue,
            vat,
            &config.ground_speeds,
            &model_gpu,
            &targets,
            &frame_layout,
        ));
        let layout = CrowdLayout {
            motion: config.motion,
            model_size: vat.bounds.diagonal().max(1e-3),
            ground_y: 0.0,
            clip_count: vat.clips.len() as u32,
        };
        let timer = GpuTimer::new(device, &caps);
        Ok(Self {
            targets,
            frame_buffer,
            frame_layout,
            frame_bind_group,
            scene,
            model: model_gpu,
            crowd,
            technique,
            layout,
            timer,
            last_frame: None,
            timed_pending: false,
            gpu,
        })
    }

    pub fn technique_name(&self) -> &'static str {
        self.technique.name()
    }

    /// The frame uniform layout, for techniques built later.
    pub fn frame_layout(&self) -> &wgpu::BindGroupLayout {
        &self.frame_layout
    }

    pub fn set_count(&mut self, count: u32) -> Result<(), CrowdError> {
        self.crowd
            .set_count(&self.gpu.device, &self.gpu.queue, count)
    }

    pub fn resize(&mut self, width: u32, height: u32) {
        self.targets.resize(&self.gpu.device, width, height);
    }

    /// A box around the whole crowd at the current count.
    pub fn crowd_bounds(&self) -> Aabb {
        self.layout.bounds(self.crowd.count())
    }

    /// The opening view: low, beside the track, the herd coming past.
    pub fn default_camera(&self) -> Camera {
        let r = self.layout.field_radius(self.crowd.count());
        let size = self.layout.model_size;
        match self.layout.motion {
            Motion::Track => Camera {
                target: glam::Vec3::new(r * 0.81, size * 0.2, 0.0),
                yaw: 2.3,
                pitch: 0.16,
                distance: r * 0.45 + size * 2.0,
                ..Camera::default()
            },
            Motion::Flock => Camera {
                target: glam::Vec3::new(0.0, size * 7.0, 0.0),
                yaw: 0.6,
                pitch: 0.05,
                distance: r * 1.6 + size * 6.0,
                ..Camera::default()
            },
            Motion::Stand => {
                let mut c = Camera {
                    yaw: 0.6,
                    pitch: 0.35,
                    ..Camera::default()
                };
                c.frame(&self.crowd_bounds(), self.targets.aspect());
                c.distance *= 0.8;
                c
            }
        }
    }

    /// Records one frame into `target` (a view of the swap-chain or offscreen
    /// texture, in `targets.format`).
    pub fn encode(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        camera: &Camera,
        settings: &FrameSettings,
    ) {
        let count = self.crowd.count();
        let uniform = scene::frame_uniform(
            camera.view_proj(self.targets.aspect()),
            camera.eye(),
            settings,
            &self.layout,
            count,
        );
        self.gpu
            .queue
            .write_buffer(&self.frame_buffer, 0, bytemuck::bytes_of(&uniform));
        self.last_frame = Some(uniform);
        self.technique
            .prepare(&self.gpu.device, &self.crowd, &self.model);
        let (view, resolve) = match &self.targets.msaa {
            Some(msaa) => (msaa, Some(target)),
            None => (target, None),
        };
        let timestamp_writes = self.timer.as_ref().and_then(|t| t.pass_writes());
        let timed = timestamp_writes.is_some();
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("scene pass"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target: resolve,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &self.targets.depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, &self.frame_bind_group, &[]);
            self.technique.draw(&mut pass, &self.model, count);
            self.scene.draw_ground(&mut pass);
            self.scene.draw_sky(&mut pass);
        }
        if timed && let Some(t) = &self.timer {
            t.resolve(encoder);
        }
        self.timed_pending = timed;
    }

    /// Call after submitting the frame's commands: starts the GPU-time
    /// read-back and collects an earlier one.
    pub fn after_submit(&mut self) {
        if let Some(t) = &mut self.timer {
            if self.timed_pending {
                t.start_read();
                self.timed_pending = false;
            }
            t.collect(&self.gpu.device);
        }
    }

    /// GPU milliseconds of the last timed frame, `None` when unsupported or
    /// not yet known.
    pub fn gpu_ms(&self) -> Option<f32> {
        self.timer.as_ref().and_then(|t| t.last_ms)
    }
}
