//! Pieces every pipeline of the renderer is built from: bind-group-layout
//! entries, bind groups from `(binding, resource)` lists, and the pipeline
//! that draws into the scene targets.

use crate::render::passes::targets::Targets;
use crate::render::util::shaders;

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

/// A filterable float 2D-array texture read by the fragment stage (base
/// colour, the impostor atlas).
pub fn filtered_array_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::FRAGMENT,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable: true },
            view_dimension: wgpu::TextureViewDimension::D2Array,
            multisampled: false,
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

/// What a scene pipeline writes into the targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writes {
    /// Colour and depth.
    All,
    /// Colour only (the sky, behind everything).
    Colour,
    /// Nothing: depth-tested only, for occlusion queries (the exact
    /// visibility count's probes).
    Nothing,
}

/// A pipeline drawing into the scene targets: `vs_main` and `fs_main` (or,
/// with the velocity target, `fs_velocity`) of the composed module
/// `shader`, the targets' depth (tested, written as `writes` says),
/// multisampling and colour targets.
pub struct TargetPipeline<'a> {
    pub label: &'a str,
    pub layout: &'a wgpu::PipelineLayout,
    pub shader: shaders::ModuleSpec,
    pub buffers: &'a [Option<wgpu::VertexBufferLayout<'a>>],
    pub primitive: wgpu::PrimitiveState,
    pub writes: Writes,
    /// Fails the depth test where the depth is already the same (`Less`),
    /// instead of passing (the targets' `LessEqual`): the ground's, so
    /// that a hoof standing on it keeps the samples where the two meet
    /// whether the ground is drawn before or after it.
    pub loses_ties: bool,
}

pub fn target_pipeline(
    device: &wgpu::Device,
    spec: &TargetPipeline<'_>,
    targets: &Targets,
) -> wgpu::RenderPipeline {
    let module = spec.shader.create(device);
    let entry = targets.fragment_entry("fs_main");
    let mut colour = targets.color_targets(None);
    if spec.writes == Writes::Nothing {
        Targets::mask_colour(&mut colour);
    }
    let mut depth = targets.depth_state(spec.writes == Writes::All);
    if spec.loses_ties {
        depth.depth_compare = Some(wgpu::CompareFunction::Less);
    }
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
        depth_stencil: Some(depth),
        multisample: targets.multisample(),
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some(&entry),
            compilation_options: Default::default(),
            targets: &colour,
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// A compute pipeline of `module`'s `entry` over the bind group layouts
/// `groups` (its own pipeline layout, both labelled `label`).
pub fn compute_pipeline(
    device: &wgpu::Device,
    label: &str,
    groups: &[Option<&wgpu::BindGroupLayout>],
    module: &wgpu::ShaderModule,
    entry: &str,
) -> wgpu::ComputePipeline {
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(label),
        bind_group_layouts: groups,
        immediate_size: 0,
    });
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(label),
        layout: Some(&layout),
        module,
        entry_point: Some(entry),
        compilation_options: Default::default(),
        cache: None,
    })
}
