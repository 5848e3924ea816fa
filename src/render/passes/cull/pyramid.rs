//! The depth pyramid (shaders/pyramid.wgsl): after the early scene pass,
//! one compute pass reduces the scene's depth (every MSAA sample) into mip
//! 0, then each mip into the next, all in one storage buffer; the cull
//! pass's second phase reads it. The mips' shapes are
//! `crowd::occlusion::mip_sizes`.

use crate::crowd::occlusion::{Pyramid, mip_offsets, mip_sizes};
use crate::render::util::pipeline::bind_group;
use crate::render::util::shaders;
use bytemuck::{Pod, Zeroable};

/// One dispatch's parameters (`PyramidStep` in pyramid.wgsl; checked by
/// tests/gpu_layout.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq, Eq)]
pub struct PyramidStep {
    pub src_size: [u32; 2],
    pub dst_size: [u32; 2],
    pub src_offset: u32,
    pub dst_offset: u32,
    pub _pad: [u32; 2],
}

/// Bytes between two steps in the step buffer (the dynamic offset
/// alignment every adapter accepts).
const STEP_STRIDE: u64 = 256;

/// What the pyramid was made for: the depth's size, samples and which
/// depth texture (the targets' generation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Key {
    width: u32,
    height: u32,
    samples: u32,
    generation: u64,
}

struct Made {
    key: Key,
    buffer: wgpu::Buffer,
    steps: wgpu::Buffer,
    depth_group: wgpu::BindGroup,
    reduce_group: wgpu::BindGroup,
    sizes: Vec<(u32, u32)>,
}

pub struct DepthPyramid {
    depth_pipeline: wgpu::ComputePipeline,
    msaa_pipeline: wgpu::ComputePipeline,
    reduce_pipeline: wgpu::ComputePipeline,
    depth_layout: wgpu::BindGroupLayout,
    msaa_layout: wgpu::BindGroupLayout,
    reduce_layout: wgpu::BindGroupLayout,
    made: Option<Made>,
    /// Bumped whenever the buffer is made again (the cull pass's groups
    /// that bind it are then made again too).
    pub generation: u64,
}

fn step_entry() -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding: 0,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: true,
            min_binding_size: wgpu::BufferSize::new(std::mem::size_of::<PyramidStep>() as u64),
        },
        count: None,
    }
}

fn depth_entry(binding: u32, multisampled: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Depth,
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled,
        },
        count: None,
    }
}

impl DepthPyramid {
    pub fn new(device: &wgpu::Device) -> Self {
        let module = shaders::PYRAMID.create(device);
        let layout = |label, extra: Option<wgpu::BindGroupLayoutEntry>| {
            let mut entries = vec![step_entry(), crate::gpu::compute_storage(1, false)];
            entries.extend(extra);
            device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(label),
                entries: &entries,
            })
        };
        let depth_layout = layout("pyramid depth layout", Some(depth_entry(2, false)));
        let msaa_layout = layout("pyramid msaa depth layout", Some(depth_entry(3, true)));
        let reduce_layout = layout("pyramid reduce layout", None);
        let pipeline = |layout: &wgpu::BindGroupLayout, entry| {
            crate::render::util::pipeline::compute_pipeline(
                device,
                entry,
                &[Some(layout)],
                &module,
                entry,
            )
        };
        Self {
            depth_pipeline: pipeline(&depth_layout, "cs_depth"),
            msaa_pipeline: pipeline(&msaa_layout, "cs_depth_msaa"),
            reduce_pipeline: pipeline(&reduce_layout, "cs_reduce"),
            depth_layout,
            msaa_layout,
            reduce_layout,
            made: None,
            generation: 0,
        }
    }

    /// Makes the buffer and groups for a `width × height` depth of
    /// `samples` (the targets' `generation`), when they changed.
    pub fn ensure(
        &mut self,
        device: &wgpu::Device,
        depth: &wgpu::TextureView,
        (width, height): (u32, u32),
        samples: u32,
        generation: u64,
    ) {
        let key = Key {
            width: width.max(1),
            height: height.max(1),
            samples,
            generation,
        };
        if self.made.as_ref().is_some_and(|m| m.key == key) {
            return;
        }
        let sizes = mip_sizes(key.width, key.height);
        let (offsets, texels) = mip_offsets(&sizes);
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("depth pyramid"),
            size: texels as u64 * 4,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let mut bytes = vec![0u8; sizes.len() * STEP_STRIDE as usize];
        for (m, &(w, h)) in sizes.iter().enumerate() {
            let (src_size, src_offset) = if m == 0 {
                ([key.width, key.height], 0)
            } else {
                ([sizes[m - 1].0, sizes[m - 1].1], offsets[m - 1])
            };
            let step = PyramidStep {
                src_size,
                dst_size: [w, h],
                src_offset,
                dst_offset: offsets[m],
                _pad: [0; 2],
            };
            let at = m * STEP_STRIDE as usize;
            bytes[at..at + std::mem::size_of::<PyramidStep>()]
                .copy_from_slice(bytemuck::bytes_of(&step));
        }
        let steps = wgpu::util::DeviceExt::create_buffer_init(
            device,
            &wgpu::util::BufferInitDescriptor {
                label: Some("pyramid steps"),
                contents: &bytes,
                usage: wgpu::BufferUsages::UNIFORM,
            },
        );
        let step_binding = wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer: &steps,
            offset: 0,
            size: wgpu::BufferSize::new(std::mem::size_of::<PyramidStep>() as u64),
        });
        let (layout, binding) = if samples > 1 {
            (&self.msaa_layout, 3)
        } else {
            (&self.depth_layout, 2)
        };
        let depth_group = bind_group(
            device,
            "pyramid depth group",
            layout,
            &[
                (0, step_binding.clone()),
                (1, buffer.as_entire_binding()),
                (binding, wgpu::BindingResource::TextureView(depth)),
            ],
        );
        let reduce_group = bind_group(
            device,
            "pyramid reduce group",
            &self.reduce_layout,
            &[(0, step_binding), (1, buffer.as_entire_binding())],
        );
        self.generation += 1;
        self.made = Some(Made {
            key,
            buffer,
            steps,
            depth_group,
            reduce_group,
            sizes,
        });
    }

    /// The pyramid's buffer (`None` before [`Self::ensure`]).
    pub fn buffer(&self) -> Option<&wgpu::Buffer> {
        self.made.as_ref().map(|m| &m.buffer)
    }

    /// The depth's size the pyramid is made for.
    pub fn size(&self) -> Option<(u32, u32)> {
        self.made.as_ref().map(|m| (m.key.width, m.key.height))
    }

    /// Its mips' sizes.
    pub fn mip_sizes(&self) -> &[(u32, u32)] {
        self.made.as_ref().map_or(&[], |m| &m.sizes)
    }

    /// GPU bytes of the pyramid.
    pub fn gpu_bytes(&self) -> u64 {
        self.made
            .as_ref()
            .map_or(0, |m| m.buffer.size() + m.steps.size())
    }

    /// Records the reduction of the depth drawn so far into every mip.
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder) {
        let Some(made) = &self.made else {
            return;
        };
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("depth pyramid"),
            timestamp_writes: None,
        });
        for (m, &(w, h)) in made.sizes.iter().enumerate() {
            let offset = (m as u64 * STEP_STRIDE) as u32;
            if m == 0 {
                let pipeline = if made.key.samples > 1 {
                    &self.msaa_pipeline
                } else {
                    &self.depth_pipeline
                };
                pass.set_pipeline(pipeline);
                pass.set_bind_group(0, &made.depth_group, &[offset]);
            } else {
                if m == 1 {
                    pass.set_pipeline(&self.reduce_pipeline);
                }
                pass.set_bind_group(0, &made.reduce_group, &[offset]);
            }
            pass.dispatch_workgroups(w.div_ceil(8), h.div_ceil(8), 1);
        }
    }

    /// Reads every mip back, waiting for the GPU (tests and diagnostics).
    pub fn read(
        &self,
        gpu: &crate::gpu::GpuContext,
    ) -> Result<Option<Pyramid>, crate::gpu::GpuError> {
        let Some(made) = &self.made else {
            return Ok(None);
        };
        let words: Vec<f32> = gpu.read_words(&made.buffer, 0, made.buffer.size())?;
        Ok(Some(Pyramid::from_words(
            &words,
            made.key.width,
            made.key.height,
        )))
    }
}
