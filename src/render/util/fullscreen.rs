//! What the full-screen passes share (TAA's resolve, motion blur, the
//! motion view, the depth pyramid's view): one triangle over the target
//! (`vs_main` of shaders/fullscreen.wgsl), a group of fragment-stage
//! textures and buffers, and their uniform.

/// A layout entry of the fragment stage: a 2D float texture (`textureLoad`
/// only unless `filterable`).
pub fn texture(binding: u32, filterable: bool) -> wgpu::BindGroupLayoutEntry {
    entry(
        binding,
        wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable },
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled: false,
        },
    )
}

/// A layout entry of the fragment stage: a uniform buffer.
pub fn uniform(binding: u32) -> wgpu::BindGroupLayoutEntry {
    entry(binding, buffer(wgpu::BufferBindingType::Uniform))
}

/// A layout entry of the fragment stage: a read-only storage buffer.
pub fn storage(binding: u32) -> wgpu::BindGroupLayoutEntry {
    entry(
        binding,
        buffer(wgpu::BufferBindingType::Storage { read_only: true }),
    )
}

/// A layout entry of the fragment stage: a filtering sampler.
pub fn sampler(binding: u32) -> wgpu::BindGroupLayoutEntry {
    entry(
        binding,
        wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
    )
}

fn buffer(ty: wgpu::BufferBindingType) -> wgpu::BindingType {
    wgpu::BindingType::Buffer {
        ty,
        has_dynamic_offset: false,
        min_binding_size: None,
    }
}

fn entry(binding: u32, ty: wgpu::BindingType) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::FRAGMENT,
        ty,
        count: None,
    }
}

/// A full-screen pass's pipeline: its one group, `vs_main` and `fs_main`
/// of `shader`, the colour targets, and (over the scene) its depth state
/// and multisampling.
pub struct Fullscreen<'a> {
    pub label: &'a str,
    pub shader: crate::render::util::shaders::ModuleSpec,
    pub entries: &'a [wgpu::BindGroupLayoutEntry],
    pub targets: &'a [Option<wgpu::ColorTargetState>],
    pub depth: Option<wgpu::DepthStencilState>,
    pub multisample: wgpu::MultisampleState,
}

impl Fullscreen<'_> {
    /// The group's layout and the pipeline.
    pub fn build(&self, device: &wgpu::Device) -> (wgpu::BindGroupLayout, wgpu::RenderPipeline) {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(self.label),
            entries: self.entries,
        });
        let module = self.shader.create(device);
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(self.label),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(self.label),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: self.targets,
            }),
            primitive: Default::default(),
            depth_stencil: self.depth.clone(),
            multisample: self.multisample,
            multiview_mask: None,
            cache: None,
        });
        (layout, pipeline)
    }
}

/// A uniform buffer of `T`'s size that the pass writes each frame.
pub fn uniform_buffer<T>(device: &wgpu::Device, label: &str) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: std::mem::size_of::<T>() as u64,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// Records a full-screen pass over what `output` holds, within `viewport`
/// (x, y, width, height in pixels): `pipeline` with `group` at group 0.
pub fn draw_over(
    encoder: &mut wgpu::CommandEncoder,
    label: &str,
    output: &wgpu::TextureView,
    viewport: [f32; 4],
    pipeline: &wgpu::RenderPipeline,
    group: &wgpu::BindGroup,
) {
    let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some(label),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view: output,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Load,
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: None,
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    });
    let [x, y, w, h] = viewport;
    pass.set_viewport(x, y, w, h, 0.0, 1.0);
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, group, &[]);
    pass.draw(0..3, 0..1);
}
