//! The one small interface every crowd technique implements, what a
//! technique reports about its cost, and the pieces they share: the crowd
//! bind group (group 2), the clip table, bind-group-layout entries and the
//! crowd pipeline.

use super::behaviour::Behaviour;
use super::crowd::CrowdBuffer;
use super::gpu_data::{FrameUniform, StaticVertex, VatClipGpu};
use super::model_gpu::ModelGpu;
use super::{Targets, shaders};
use crate::Model;
use crate::vat::VatClip;
use std::sync::Arc;
use wgpu::util::DeviceExt;

/// The techniques the viewer offers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum TechniqueKind {
    /// Vertex animation texture: one instanced draw, no per-instance CPU work.
    #[default]
    Vat,
    /// Live bone-matrix skinning: the CPU samples every palette each frame.
    Skinning,
    /// Every frame's palette baked once into a texture, skinned on the GPU.
    #[value(name = "bone-texture")]
    BoneTexture,
    /// The CPU skins every vertex of every instance and uploads them.
    Cpu,
    /// One stored pose, the same motion: the cost floor.
    Static,
}

impl TechniqueKind {
    pub const ALL: &[TechniqueKind] = &[
        TechniqueKind::Vat,
        TechniqueKind::Skinning,
        TechniqueKind::BoneTexture,
        TechniqueKind::Cpu,
        TechniqueKind::Static,
    ];

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            TechniqueKind::Vat => "vat",
            TechniqueKind::Skinning => "skinning",
            TechniqueKind::BoneTexture => "bone-texture",
            TechniqueKind::Cpu => "cpu",
            TechniqueKind::Static => "static",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            TechniqueKind::Vat => "VAT (vertex animation texture)",
            TechniqueKind::Skinning => "Live GPU skinning (bone matrices)",
            TechniqueKind::BoneTexture => "Baked bone texture",
            TechniqueKind::Cpu => "CPU skinning",
            TechniqueKind::Static => "Static (no animation)",
        }
    }
}

impl std::fmt::Display for TechniqueKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What the active technique cost in the last frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TechniqueCosts {
    pub kind: TechniqueKind,
    /// CPU milliseconds of the technique's part of the last frame: sampling,
    /// skinning, uploads and recording its draw.
    pub cpu_ms: f32,
    /// Bytes the technique wrote to the GPU in the last frame.
    pub upload_bytes: u64,
    /// Bytes of the technique's own GPU resources (not the shared crowd,
    /// mesh and textures).
    pub gpu_memory_bytes: u64,
    /// GPU milliseconds of the last timed scene pass, when timestamps exist.
    pub gpu_ms: Option<f32>,
    /// Instances actually drawn.
    pub drawn: u32,
    /// Instances requested (the crowd's count).
    pub requested: u32,
    /// The most instances this technique draws, when it has a cap.
    pub cap: Option<u32>,
    /// The model has morph targets and this technique does not apply them.
    pub morphs_ignored: bool,
}

impl TechniqueCosts {
    /// True when the cap cut the crowd this frame.
    pub fn capped(&self) -> bool {
        self.drawn < self.requested
    }
}

/// Everything a technique may read while preparing a frame.
pub struct FrameContext<'a> {
    pub device: &'a wgpu::Device,
    pub queue: &'a wgpu::Queue,
    pub crowd: &'a CrowdBuffer,
    pub model: &'a ModelGpu,
    /// This frame's uniform (already written): time, clip, spread, count.
    pub frame: &'a FrameUniform,
    /// The herd or flock (bound in group 2; the CPU techniques mirror it).
    pub behaviour: &'a Behaviour,
}

/// Everything a technique needs to be built (at startup or on a switch).
pub struct BuildContext<'a> {
    pub device: &'a wgpu::Device,
    pub queue: &'a wgpu::Queue,
    pub caps: &'a crate::gpu::Capabilities,
    /// The CPU model, for the techniques that animate on the CPU.
    pub model: &'a Arc<Model>,
    /// The VAT's clips: timing shared by every technique.
    pub clips: &'a [VatClip],
    /// The VAT's clip table as the shaders read it (with ground speeds).
    pub clip_table: &'a [VatClipGpu],
    pub model_gpu: &'a ModelGpu,
    pub targets: &'a Targets,
    pub frame_layout: &'a wgpu::BindGroupLayout,
}

/// What `prepare` did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prepared {
    /// Instances to draw (the crowd's count, or less under a cap).
    pub drawn: u32,
    pub upload_bytes: u64,
}

/// A way of drawing the crowd. Each one owns its pipeline and buffers; the
/// instance data (`CrowdBuffer`) and the model's static data are shared, so
/// switching keeps the same crowd.
pub trait Technique {
    fn kind(&self) -> TechniqueKind;
    /// Per-frame preparation: bind groups after the crowd buffer grew, and
    /// whatever CPU work and uploads the technique needs.
    fn prepare(&mut self, ctx: &FrameContext<'_>) -> Prepared;
    /// Records the crowd's draw calls for `count` instances (what `prepare`
    /// returned); group 0 (the frame) is already set.
    fn draw(&self, pass: &mut wgpu::RenderPass<'_>, model: &ModelGpu, count: u32);
    /// Bytes of the technique's own GPU resources.
    fn gpu_memory_bytes(&self) -> u64;
    /// The most instances it can draw, when capped.
    fn cap(&self) -> Option<u32> {
        None
    }
    /// Its group 1 (layout and bind group, visible to compute too), so the
    /// GPU tests can run its WGSL vertex function; `None` before `prepare`.
    fn group(&self) -> Option<(&wgpu::BindGroupLayout, &wgpu::BindGroup)>;
    /// True when it ignores morph targets.
    fn ignores_morphs(&self) -> bool {
        false
    }
}

/// A storage-buffer layout entry visible to the vertex and compute stages
/// (compute so the GPU tests can run the same functions).
pub fn storage_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: true },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// A uniform-buffer layout entry (vertex and compute).
pub fn uniform_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        ..storage_entry(binding)
    }
}

/// A non-filterable 2D float texture entry (`textureLoad` only).
pub fn texture_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable: false },
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled: false,
        },
        ..storage_entry(binding)
    }
}

/// Uploads a clip table (group 1, binding 2 of every technique).
pub fn clip_buffer(
    device: &wgpu::Device,
    label: &'static str,
    table: &[VatClipGpu],
) -> wgpu::Buffer {
    let fallback = [VatClipGpu::default()];
    let table = if table.is_empty() {
        &fallback[..]
    } else {
        table
    };
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: bytemuck::cast_slice(table),
        usage: wgpu::BufferUsages::STORAGE,
    })
}

/// Group 2 of the crowd shaders: instances and base-colour textures.
pub fn crowd_layout(device: &wgpu::Device, label: &str) -> wgpu::BindGroupLayout {
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
            // The herd table, the herd path and the flock (behaviour.rs).
            uniform_entry(3),
            storage_entry(4),
            storage_entry(5),
        ],
    })
}

pub fn crowd_bind_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    crowd: &CrowdBuffer,
    model: &ModelGpu,
    behaviour: &Behaviour,
) -> wgpu::BindGroup {
    let [table, path, boids] = behaviour.buffers();
    bind_group(
        device,
        "crowd bind group",
        layout,
        &[
            (0, crowd.buffer.as_entire_binding()),
            (1, wgpu::BindingResource::TextureView(&model.texture_view)),
            (2, wgpu::BindingResource::Sampler(&model.sampler)),
            (3, table.as_entire_binding()),
            (4, path.as_entire_binding()),
            (5, boids.as_entire_binding()),
        ],
    )
}

/// A bind group of `(binding, resource)` entries.
pub fn bind_group(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    entries: &[(u32, wgpu::BindingResource<'_>)],
) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry<'_>> = entries
        .iter()
        .map(|(binding, resource)| wgpu::BindGroupEntry {
            binding: *binding,
            resource: resource.clone(),
        })
        .collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout,
        entries: &entries,
    })
}

/// Group 2 of a technique, rebuilt only when the crowd buffer or a
/// behaviour buffer was replaced. The flock's state alternates between two
/// buffers, so the last two groups are kept.
pub struct CrowdGroup {
    layout: wgpu::BindGroupLayout,
    /// (crowd generation, behaviour key, group), most recent last.
    groups: Vec<(u64, u64, wgpu::BindGroup)>,
}

impl CrowdGroup {
    pub fn new(device: &wgpu::Device, label: &str) -> Self {
        Self {
            layout: crowd_layout(device, label),
            groups: Vec::with_capacity(2),
        }
    }

    pub fn layout(&self) -> &wgpu::BindGroupLayout {
        &self.layout
    }

    /// `prepare` of a technique with no per-frame CPU work or uploads (VAT,
    /// bone texture, static): keep the crowd group current, draw everyone.
    pub fn prepare_gpu_only(&mut self, ctx: &FrameContext<'_>) -> Prepared {
        self.update(ctx);
        Prepared {
            drawn: ctx.crowd.count(),
            upload_bytes: 0,
        }
    }

    pub fn update(&mut self, ctx: &FrameContext<'_>) {
        let key = (ctx.crowd.generation, ctx.behaviour.binding_key());
        if let Some(i) = self.groups.iter().position(|(c, b, _)| (*c, *b) == key) {
            let g = self.groups.remove(i);
            self.groups.push(g);
            return;
        }
        let group = crowd_bind_group(
            ctx.device,
            &self.layout,
            ctx.crowd,
            ctx.model,
            ctx.behaviour,
        );
        if self.groups.len() >= 2 {
            self.groups.remove(0);
        }
        self.groups.push((key.0, key.1, group));
    }

    pub fn get(&self) -> Option<&wgpu::BindGroup> {
        self.groups.last().map(|(_, _, g)| g)
    }
}

/// A technique's crowd pipeline: groups 0 (frame), 1 (the technique's own)
/// and 2 (crowd), the static vertex buffer, `vs_main` and the shared
/// `fs_main` of the composed module `shader`. Labels: `"{name} crowd
/// layout"` (group 2) and `"{name} crowd pipeline"`.
pub struct PipelineSpec<'a> {
    pub name: &'a str,
    pub shader: &'static str,
    pub frame_layout: &'a wgpu::BindGroupLayout,
    pub technique_layout: &'a wgpu::BindGroupLayout,
}

/// Builds the crowd group (group 2) and the crowd pipeline of `spec`.
pub fn crowd_pipeline(
    device: &wgpu::Device,
    spec: &PipelineSpec<'_>,
    model: &ModelGpu,
    targets: &Targets,
) -> (CrowdGroup, wgpu::RenderPipeline) {
    let crowd = CrowdGroup::new(device, &format!("{} crowd layout", spec.name));
    let label = format!("{} crowd pipeline", spec.name);
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(&label),
        bind_group_layouts: &[
            Some(spec.frame_layout),
            Some(spec.technique_layout),
            Some(crowd.layout()),
        ],
        immediate_size: 0,
    });
    let pipeline = target_pipeline(
        device,
        &TargetPipeline {
            label: &label,
            layout: &layout,
            shader: spec.shader,
            buffers: &[Some(StaticVertex::layout())],
            primitive: wgpu::PrimitiveState {
                cull_mode: if model.double_sided {
                    None
                } else {
                    Some(wgpu::Face::Back)
                },
                ..Default::default()
            },
            depth_write: true,
        },
        targets,
    );
    (crowd, pipeline)
}

impl BuildContext<'_> {
    /// [`crowd_pipeline`] for a technique built from this context.
    pub fn crowd_pipeline(
        &self,
        name: &str,
        shader: &'static str,
        technique_layout: &wgpu::BindGroupLayout,
    ) -> (CrowdGroup, wgpu::RenderPipeline) {
        let spec = PipelineSpec {
            name,
            shader,
            frame_layout: self.frame_layout,
            technique_layout,
        };
        crowd_pipeline(self.device, &spec, self.model_gpu, self.targets)
    }
}

/// A pipeline drawing into the scene targets: `vs_main` and `fs_main` of
/// the composed module `shader`, the targets' depth (written when
/// `depth_write`), multisampling and colour format.
pub struct TargetPipeline<'a> {
    pub label: &'a str,
    pub layout: &'a wgpu::PipelineLayout,
    pub shader: &'static str,
    pub buffers: &'a [Option<wgpu::VertexBufferLayout<'a>>],
    pub primitive: wgpu::PrimitiveState,
    pub depth_write: bool,
}

pub fn target_pipeline(
    device: &wgpu::Device,
    spec: &TargetPipeline<'_>,
    targets: &Targets,
) -> wgpu::RenderPipeline {
    let module = shaders::module(device, spec.shader);
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(spec.label),
        layout: Some(spec.layout),
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs_main"),
            compilation_options: Default::default(),
            buffers: spec.buffers,
        },
        primitive: spec.primitive,
        depth_stencil: Some(targets.depth_state(spec.depth_write)),
        multisample: targets.multisample(),
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fs_main"),
            compilation_options: Default::default(),
            targets: &[Some(targets.format.into())],
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// Records the shared part of a crowd draw: pipeline, groups 1 and 2, the
/// static vertices and indices, and ONE instanced `draw_indexed`.
pub fn draw_crowd(
    pass: &mut wgpu::RenderPass<'_>,
    pipeline: &wgpu::RenderPipeline,
    technique_group: &wgpu::BindGroup,
    crowd: &CrowdGroup,
    model: &ModelGpu,
    count: u32,
) {
    let Some(crowd_group) = crowd.get() else {
        log::warn!("crowd technique drawn before prepare");
        return;
    };
    if count == 0 {
        return;
    }
    pass.set_pipeline(pipeline);
    pass.set_bind_group(1, technique_group, &[]);
    pass.set_bind_group(2, crowd_group, &[]);
    pass.set_vertex_buffer(0, model.vertices.slice(..));
    pass.set_index_buffer(model.indices.slice(..), wgpu::IndexFormat::Uint32);
    pass.draw_indexed(0..model.index_count, 0, 0..count);
}

/// Grows a buffer geometrically: returns a new buffer when `needed` bytes
/// do not fit (the caller rebuilds its bind group), `None` when they do.
pub fn grow_buffer(
    device: &wgpu::Device,
    current: Option<&wgpu::Buffer>,
    label: &'static str,
    needed: u64,
    limit: u64,
    usage: wgpu::BufferUsages,
) -> Option<wgpu::Buffer> {
    let have = current.map_or(0, |b| b.size());
    if needed <= have && current.is_some() {
        return None;
    }
    let size = needed
        .max(have.saturating_mul(2))
        .max(256)
        .next_power_of_two()
        .min(limit.max(needed))
        .div_ceil(16)
        * 16;
    Some(device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage,
        mapped_at_creation: false,
    }))
}
