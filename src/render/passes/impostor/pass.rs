//! Drawing the impostors in the scene pass: one quad per instance of the
//! cull pass's impostor region, fitted to its atlas cell's covered texels
//! (`bounds`), one indirect draw (shaders/impostor.wgsl);
//! and into each shadow cascade, the casters the camera draws as
//! impostors, seen from the sun.
//! The same for every technique: it poses nothing, it reads the atlas.

use crate::render::passes::impostor::atlas::ImpostorAtlas;
use crate::render::passes::targets::Targets;
use crate::render::passes::techniques::{ARGS_WORDS, CrowdGroup, FrameContext, shadow_depth_state};
use crate::render::util::pipeline::{bind_group, filtered_array_entry, storage_entry};
use crate::render::util::shaders;
use std::sync::Arc;
use wgpu::util::DeviceExt;

/// The impostor regions' indirect draw, as the cull pass made it: one
/// region per model, consecutive.
pub struct ImpostorDraw<'a> {
    pub args: &'a wgpu::Buffer,
    /// Byte offset of the first region's `DrawIndexedIndirect` in `args`.
    pub offset: u64,
    /// The impostor regions (one per model of the scene).
    pub regions: u32,
    /// The visible list (group 3) and the first region's dynamic offset.
    pub group: &'a wgpu::BindGroup,
    pub dynamic_offset: u32,
    /// `Some(bytes)`: one draw per region, each bound `bytes` after the
    /// one before; `None`: one multi-draw, each region's first instance
    /// its start in the list.
    pub region_bytes: Option<u32>,
    /// Quads fitted to each cell's covered texels (else the sphere's
    /// squares); a shadow cascade's casters are always the squares.
    pub tight: bool,
}

impl ImpostorDraw<'_> {
    /// The draw calls `ImpostorPass` records for this: one, or one per
    /// region where the adapter has no multi-draw with first instances.
    pub fn calls(&self) -> u32 {
        match self.region_bytes {
            Some(_) => self.regions,
            None => 1,
        }
    }
}

pub struct ImpostorPass {
    pub atlas: Arc<ImpostorAtlas>,
    pipeline: wgpu::RenderPipeline,
    /// The scene's writing nothing, when the targets keep their depth.
    probe: Option<wgpu::RenderPipeline>,
    /// Depth only, into a shadow cascade: the casters the camera draws as
    /// impostors, seen from the sun.
    shadow_pipeline: wgpu::RenderPipeline,
    /// Group 1 with the tight quads' bounds, and with the squares'.
    groups: [wgpu::BindGroup; 2],
    crowd: CrowdGroup,
    quad: wgpu::Buffer,
}

impl ImpostorPass {
    pub fn new(
        device: &wgpu::Device,
        atlas: Arc<ImpostorAtlas>,
        targets: &Targets,
        frame_layout: &wgpu::BindGroupLayout,
        visible_layout: &wgpu::BindGroupLayout,
        clip_table: &wgpu::Buffer,
    ) -> Self {
        let fragment = wgpu::ShaderStages::FRAGMENT;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("impostor layout"),
            entries: &[
                filtered_array_entry(0),
                filtered_array_entry(1),
                storage_entry(2),
                wgpu::BindGroupLayoutEntry {
                    binding: 3,
                    visibility: fragment,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                    ..storage_entry(4)
                },
                storage_entry(5),
                // Each cell's bounds: a texture (the vertex stage's storage
                // buffers are at WebGPU's limit of 10).
                wgpu::BindGroupLayoutEntry {
                    binding: 6,
                    visibility: wgpu::ShaderStages::VERTEX,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Uint,
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
            ],
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("impostor sampler"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: wgpu::MipmapFilterMode::Linear,
            ..Default::default()
        });
        // Tight quads (the measured bounds), then the squares (every cell
        // whole).
        let groups = [&atlas.bounds.tight, &atlas.bounds.full].map(|bounds| {
            bind_group(
                device,
                "impostor group",
                &layout,
                &[
                    (0, wgpu::BindingResource::TextureView(&atlas.albedo_view)),
                    (1, wgpu::BindingResource::TextureView(&atlas.normal_view)),
                    (2, clip_table.as_entire_binding()),
                    (3, wgpu::BindingResource::Sampler(&sampler)),
                    (4, atlas.params.as_entire_binding()),
                    (5, atlas.clips.as_entire_binding()),
                    (6, wgpu::BindingResource::TextureView(bounds)),
                ],
            )
        });
        let crowd = CrowdGroup::new(device, "impostor crowd layout");
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("impostor pipeline layout"),
            bind_group_layouts: &[
                Some(frame_layout),
                Some(&layout),
                Some(crowd.layout()),
                Some(visible_layout),
            ],
            immediate_size: 0,
        });
        let module = shaders::IMPOSTOR.create(device);
        let msaa = targets.samples > 1;
        // The alpha only decides the samples covered: the target's alpha
        // stays opaque.
        let mut colour = targets.color_targets(None);
        if let Some(c) = colour[0].as_mut() {
            c.write_mask = wgpu::ColorWrites::COLOR;
        }
        let entry = targets.fragment_entry("fs_impostor");
        let scene = |colour: &[Option<wgpu::ColorTargetState>], depth_write: bool| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("impostor pipeline"),
                layout: Some(&pipeline_layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some("vs_impostor"),
                    compilation_options: Default::default(),
                    buffers: &[],
                },
                primitive: Default::default(),
                depth_stencil: Some(targets.depth_state(depth_write)),
                // A far impostor reads a small mip, whose coverage is a
                // fraction: with MSAA it covers that share of the samples
                // (as the mesh would), instead of vanishing under an alpha
                // test.
                multisample: wgpu::MultisampleState {
                    alpha_to_coverage_enabled: msaa,
                    ..targets.multisample()
                },
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some(&entry),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants: &[("atlas_msaa", f64::from(u32::from(msaa)))],
                        ..Default::default()
                    },
                    targets: colour,
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let pipeline = scene(&colour, true);
        // The exact visibility count's: writes nothing, for occlusion
        // queries.
        let probe = targets.options.keep_depth.then(|| {
            Targets::mask_colour(&mut colour);
            scene(&colour, false)
        });
        let shadow_pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("impostor shadow pipeline"),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_impostor_shadow"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            primitive: Default::default(),
            depth_stencil: Some(shadow_depth_state()),
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_impostor_shadow"),
                compilation_options: Default::default(),
                targets: &[],
            }),
            multiview_mask: None,
            cache: None,
        });
        // Two triangles over the corners 0..4 (x = bit 0, y = bit 1).
        let quad = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("impostor quad"),
            contents: bytemuck::cast_slice(&[0u32, 1, 2, 2, 1, 3]),
            usage: wgpu::BufferUsages::INDEX,
        });
        Self {
            atlas,
            pipeline,
            probe,
            shadow_pipeline,
            groups,
            crowd,
            quad,
        }
    }

    /// Keeps the crowd group current (after the crowd or behaviour
    /// buffers changed).
    pub fn prepare(&mut self, ctx: &FrameContext<'_>) {
        self.crowd.update(ctx);
    }

    /// Records the impostors' draw; group 0 (the frame) is already set.
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>, draw: &ImpostorDraw<'_>) {
        self.record(pass, &self.pipeline, draw);
    }

    /// Records the impostors' draw writing nothing, for occlusion queries
    /// (the exact visibility count; with the depth kept, else as `draw`).
    pub fn draw_probe(&self, pass: &mut wgpu::RenderPass<'_>, draw: &ImpostorDraw<'_>) {
        self.record(pass, self.probe.as_ref().unwrap_or(&self.pipeline), draw);
    }

    /// Records a cascade's impostor casters; group 0 (the cascade's caster
    /// group) is already set.
    pub fn draw_shadow(&self, pass: &mut wgpu::RenderPass<'_>, draw: &ImpostorDraw<'_>) {
        self.record(pass, &self.shadow_pipeline, draw);
    }

    fn record(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        pipeline: &wgpu::RenderPipeline,
        draw: &ImpostorDraw<'_>,
    ) {
        let Some(crowd) = self.crowd.get() else {
            return;
        };
        pass.set_pipeline(pipeline);
        pass.set_bind_group(1, &self.groups[usize::from(!draw.tight)], &[]);
        pass.set_bind_group(2, crowd, &[]);
        pass.set_index_buffer(self.quad.slice(..), wgpu::IndexFormat::Uint32);
        match draw.region_bytes {
            Some(bytes) => {
                for r in 0..draw.regions {
                    pass.set_bind_group(3, draw.group, &[draw.dynamic_offset + r * bytes]);
                    let offset = draw.offset + (r as usize * ARGS_WORDS * 4) as u64;
                    pass.draw_indexed_indirect(draw.args, offset);
                }
            }
            None if draw.regions == 1 => {
                pass.set_bind_group(3, draw.group, &[draw.dynamic_offset]);
                pass.draw_indexed_indirect(draw.args, draw.offset);
            }
            None => {
                pass.set_bind_group(3, draw.group, &[draw.dynamic_offset]);
                pass.multi_draw_indexed_indirect(draw.args, draw.offset, draw.regions);
            }
        }
    }

    /// GPU bytes of the atlas and the quad.
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.atlas.bytes + self.quad.size()
    }
}
