//! Temporal anti-aliasing's resolve (shaders/taa.wgsl): after the scene
//! pass, this frame's jittered colour (TAA's own single-sample target)
//! and the history reprojected by the velocity target make the output and
//! the next history. The history is two float textures, read one and
//! written the other, made again with the targets.

use crate::gpu::GpuContext;
use crate::render::passes::targets::Targets;
use crate::render::passes::targets::{TAA_COLOR_FORMAT, VELOCITY_FORMAT};
use crate::render::util::fullscreen::{self, Fullscreen};
use crate::render::util::pipeline::bind_group;
use crate::render::util::timing::GpuTimer;
use bytemuck::{Pod, Zeroable};

/// `TaaParams` in taa.wgsl (checked by tests/gpu_layout.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct TaaUniform {
    pub viewport: [f32; 4],
    pub size: [f32; 2],
    pub blend: f32,
    pub frames: u32,
}

/// The current frame's least weight: the history remembers about ten
/// frames (a running mean before that).
pub const TAA_BLEND: f32 = 0.1;
/// Frames the history counts up to (beyond, the weight is `TAA_BLEND`).
const MAX_FRAMES: u32 = 1024;

struct History {
    generation: u64,
    /// Bind group `i` reads history `i` (and writes the other).
    groups: [wgpu::BindGroup; 2],
    views: [wgpu::TextureView; 2],
    /// The previous frame's velocity target (copied after the resolve).
    previous_velocity: wgpu::Texture,
}

pub struct Taa {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
    uniform: wgpu::Buffer,
    history: Option<History>,
    /// The history that holds the last output.
    read: usize,
    /// Frames accumulated (0 = none yet, or dropped).
    frames: u32,
    /// The resolve's GPU time.
    pub timer: Option<GpuTimer>,
}

impl Taa {
    pub fn new(gpu: &GpuContext, targets: &Targets) -> Self {
        let device = &gpu.device;
        let (layout, pipeline) = Fullscreen {
            label: "taa resolve",
            shader: crate::render::util::shaders::TAA,
            entries: &[
                fullscreen::texture(0, false),
                fullscreen::texture(1, false),
                fullscreen::texture(2, true),
                fullscreen::sampler(3),
                fullscreen::uniform(4),
                fullscreen::texture(5, false),
            ],
            targets: &[Some(targets.format.into()), Some(TAA_COLOR_FORMAT.into())],
            depth: None,
            multisample: Default::default(),
        }
        .build(device);
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("taa history sampler"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            address_mode_u: wgpu::AddressMode::ClampToEdge,
            address_mode_v: wgpu::AddressMode::ClampToEdge,
            ..Default::default()
        });
        let uniform = fullscreen::uniform_buffer::<TaaUniform>(device, "taa uniform");
        Self {
            pipeline,
            layout,
            sampler,
            uniform,
            history: None,
            read: 0,
            frames: 0,
            timer: GpuTimer::new(device, &gpu.caps),
        }
    }

    /// The history the last resolve wrote (its output, as a float
    /// texture), and which of the two it is.
    pub fn last_output(&self) -> Option<(usize, &wgpu::TextureView)> {
        let h = self.history.as_ref()?;
        Some((self.read, &h.views[self.read]))
    }

    /// Frames the history holds (0 right after a reset).
    pub fn frames(&self) -> u32 {
        self.frames
    }

    /// Drops the history: the next frame starts it again (a time jump, a
    /// new model or count, a device rebuild).
    pub fn reset(&mut self) {
        self.frames = 0;
    }

    /// Bytes of the history textures and the previous velocity.
    pub fn gpu_memory_bytes(&self, targets: &Targets) -> u64 {
        (2 * 8 + 4) * targets.width as u64 * targets.height as u64
    }

    fn ensure_history(&mut self, device: &wgpu::Device, targets: &Targets) {
        if self
            .history
            .as_ref()
            .is_some_and(|h| h.generation == targets.generation)
        {
            return;
        }
        let (Some(color), Some((_, velocity))) = (&targets.taa_color, &targets.velocity) else {
            return;
        };
        let texture = |label, format, usage| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size: wgpu::Extent3d {
                    width: targets.width.max(1),
                    height: targets.height.max(1),
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage: usage | wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            })
        };
        let make = || {
            texture(
                "taa history",
                TAA_COLOR_FORMAT,
                wgpu::TextureUsages::RENDER_ATTACHMENT,
            )
            .create_view(&Default::default())
        };
        let views = [make(), make()];
        let previous_velocity = texture(
            "taa previous velocity",
            VELOCITY_FORMAT,
            wgpu::TextureUsages::COPY_DST,
        );
        let previous_view = previous_velocity.create_view(&Default::default());
        let group = |i: usize| {
            bind_group(
                device,
                "taa group",
                &self.layout,
                &[
                    (0, wgpu::BindingResource::TextureView(color)),
                    (1, wgpu::BindingResource::TextureView(velocity)),
                    (2, wgpu::BindingResource::TextureView(&views[i])),
                    (3, wgpu::BindingResource::Sampler(&self.sampler)),
                    (4, self.uniform.as_entire_binding()),
                    (5, wgpu::BindingResource::TextureView(&previous_view)),
                ],
            )
        };
        let groups = [group(0), group(1)];
        self.history = Some(History {
            generation: targets.generation,
            groups,
            views,
            previous_velocity,
        });
        self.frames = 0;
    }

    /// Records the resolve into `output` (in `targets.format`), over the
    /// scene's `viewport` (x, y, width, height in pixels).
    pub fn encode(
        &mut self,
        gpu: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        targets: &Targets,
        output: &wgpu::TextureView,
        viewport: [f32; 4],
    ) {
        let (device, queue) = (&gpu.device, &gpu.queue);
        self.ensure_history(device, targets);
        let Some(history) = &self.history else {
            return;
        };
        let u = TaaUniform {
            viewport,
            size: [targets.width as f32, targets.height as f32],
            blend: TAA_BLEND,
            frames: self.frames,
        };
        queue.write_buffer(&self.uniform, 0, bytemuck::bytes_of(&u));
        let write = 1 - self.read;
        let attachment = |view| {
            Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                    store: wgpu::StoreOp::Store,
                },
            })
        };
        let timer = self.timer.as_ref().filter(|t| t.ready());
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("taa resolve"),
            color_attachments: &[attachment(output), attachment(&history.views[write])],
            depth_stencil_attachment: None,
            timestamp_writes: timer.and_then(|t| t.pass_writes()),
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &history.groups[self.read], &[]);
        pass.draw(0..3, 0..1);
        drop(pass);
        if let Some(t) = timer {
            t.resolve(encoder);
        }
        if let Some((_, velocity)) = &targets.velocity {
            encoder.copy_texture_to_texture(
                velocity.texture().as_image_copy(),
                history.previous_velocity.as_image_copy(),
                history.previous_velocity.size(),
            );
        }
        self.read = write;
        self.frames = (self.frames + 1).min(MAX_FRAMES);
    }
}
