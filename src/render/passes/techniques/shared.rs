//! What the crowd techniques share: the crowd bind group (group 2), the clip
//! table, the crowd pipeline around the shared `vs_main`, the instanced draw
//! and geometric buffer growth.

use crate::render::data::behaviour::Behaviour;
use crate::render::data::crowd_buffer::CrowdBuffer;
use crate::render::data::gpu_data::{StaticVertex, VatClipGpu};
use crate::render::data::model_gpu::ModelGpu;
use crate::render::passes::targets::Targets;
use crate::render::passes::techniques::{BuildContext, FrameContext, Prepared};
use crate::render::util::pipeline::{
    TargetPipeline, Writes, bind_group, filtered_array_entry, storage_entry, target_pipeline,
    uniform_entry,
};
use crate::render::util::shaders::ModuleSpec;
use wgpu::util::DeviceExt;

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
pub fn crowd_group_layout(device: &wgpu::Device, label: &str) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries: &[
            // The instances (vertex and the cull pass).
            storage_entry(0),
            filtered_array_entry(1),
            wgpu::BindGroupLayoutEntry {
                binding: 2,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                count: None,
            },
            // The herd table, the herd path, the flock and its previous
            // state (behaviour.rs).
            uniform_entry(3),
            storage_entry(4),
            storage_entry(5),
            storage_entry(6),
            // The scene's models (crowd_buffer.rs).
            storage_entry(7),
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
    let [table, path, boids, previous_boids] = behaviour.buffers();
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
            (6, previous_boids.as_entire_binding()),
            (7, crowd.models.as_entire_binding()),
        ],
    )
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
            layout: crowd_group_layout(device, label),
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
    pub shader: ModuleSpec,
    pub frame_layout: &'a wgpu::BindGroupLayout,
    pub technique_layout: &'a wgpu::BindGroupLayout,
    /// Group 3: the cull pass's visible list.
    pub visible_layout: &'a wgpu::BindGroupLayout,
}

/// Which pass a crowd draw is recorded in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CrowdPass {
    /// The scene pass: `vs_main` and the shaded `fs_main`.
    Scene,
    /// A cascade of the shadow pass: `vs_shadow`, depth only.
    Shadow,
    /// The scene's pipeline writing nothing, for occlusion queries (made
    /// when the targets keep their depth: the exact visibility count).
    Probe,
}

/// A technique's crowd pipelines over the same layout: the scene's, the
/// depth-only casters' (both pose through the technique's hook) and, when
/// the targets keep their depth, the scene's writing nothing.
pub struct CrowdPipelines {
    pub scene: wgpu::RenderPipeline,
    pub shadow: wgpu::RenderPipeline,
    pub probe: Option<wgpu::RenderPipeline>,
}

impl CrowdPipelines {
    pub fn get(&self, which: CrowdPass) -> &wgpu::RenderPipeline {
        match which {
            CrowdPass::Scene => &self.scene,
            CrowdPass::Shadow => &self.shadow,
            // `Renderer::exact_visibility` asks for it only with the depth
            // kept, which builds it.
            CrowdPass::Probe => self.probe.as_ref().unwrap_or(&self.scene),
        }
    }
}

/// The shadow maps' depth format.
pub use crate::render::passes::targets::DEPTH_FORMAT as SHADOW_FORMAT;

/// How every caster pipeline writes a shadow map: nearest depth, no bias
/// (the receivers offset their lookups instead).
pub fn shadow_depth_state() -> wgpu::DepthStencilState {
    wgpu::DepthStencilState {
        format: SHADOW_FORMAT,
        depth_write_enabled: Some(true),
        depth_compare: Some(wgpu::CompareFunction::LessEqual),
        stencil: Default::default(),
        bias: Default::default(),
    }
}

/// The depth-only caster pipeline: `vs_shadow` of the composed module, no
/// fragment stage, both faces (a thin leg casts whichever way it faces).
fn shadow_pipeline(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
) -> wgpu::RenderPipeline {
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(label),
        layout: Some(layout),
        vertex: wgpu::VertexState {
            module,
            entry_point: Some("vs_shadow"),
            compilation_options: Default::default(),
            buffers: &[Some(StaticVertex::layout())],
        },
        primitive: wgpu::PrimitiveState {
            cull_mode: None,
            ..Default::default()
        },
        depth_stencil: Some(shadow_depth_state()),
        multisample: Default::default(),
        fragment: None,
        multiview_mask: None,
        cache: None,
    })
}

/// Builds the crowd group (group 2) and the crowd pipelines of `spec`.
pub fn crowd_pipeline(
    device: &wgpu::Device,
    spec: &PipelineSpec<'_>,
    model: &ModelGpu,
    targets: &Targets,
) -> (CrowdGroup, CrowdPipelines) {
    let crowd = CrowdGroup::new(device, &format!("{} crowd layout", spec.name));
    let label = format!("{} crowd pipeline", spec.name);
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(&label),
        bind_group_layouts: &[
            Some(spec.frame_layout),
            Some(spec.technique_layout),
            Some(crowd.layout()),
            Some(spec.visible_layout),
        ],
        immediate_size: 0,
    });
    let scene = |writes| {
        target_pipeline(
            device,
            &TargetPipeline {
                label: &label,
                layout: &layout,
                shader: spec.shader,
                buffers: &[Some(StaticVertex::layout())],
                primitive: wgpu::PrimitiveState {
                    cull_mode: model.face_culling(),
                    ..Default::default()
                },
                writes,
                loses_ties: false,
            },
            targets,
        )
    };
    let pipeline = scene(Writes::All);
    let probe = targets.options.keep_depth.then(|| scene(Writes::Nothing));
    let module = spec.shader.create(device);
    let shadow = shadow_pipeline(
        device,
        &format!("{} shadow pipeline", spec.name),
        &layout,
        &module,
    );
    (
        crowd,
        CrowdPipelines {
            scene: pipeline,
            shadow,
            probe,
        },
    )
}

impl BuildContext<'_> {
    /// [`crowd_pipeline`] for a technique built from this context.
    pub fn crowd_pipeline(
        &self,
        name: &str,
        shader: ModuleSpec,
        technique_layout: &wgpu::BindGroupLayout,
    ) -> (CrowdGroup, CrowdPipelines) {
        let spec = PipelineSpec {
            name,
            shader,
            frame_layout: self.frame_layout,
            technique_layout,
            visible_layout: self.visible_layout,
        };
        crowd_pipeline(self.device, &spec, self.model_gpu, self.targets)
    }
}

/// Words of one `DrawIndexedIndirect`: index count, instance count, first
/// index, base vertex, first instance.
pub const ARGS_WORDS: usize = 5;

/// How the crowd is drawn this frame (what `Technique::draw` records).
pub enum CrowdDraw<'a> {
    /// Every drawn instance at full detail: one instanced draw per model.
    Direct {
        /// The drawn instances of every model together.
        count: u32,
        models: crate::render::passes::cull::DirectDraws,
        /// The visible-list group, unused (frame.culled is 0).
        group: &'a wgpu::BindGroup,
    },
    /// From the cull pass: the levels' indirect arguments.
    Indirect {
        args: &'a wgpu::Buffer,
        levels: u32,
        group: &'a wgpu::BindGroup,
        /// `Some(bytes)`: one draw per level, the group at `level × bytes`;
        /// `None`: one multi-draw, each level's first instance its region.
        region_bytes: Option<u32>,
        /// The visible list itself (level `l`'s entries start at `l ×
        /// region`), for a technique's own pass over what is drawn.
        visible: &'a wgpu::Buffer,
        /// Entries per level in `visible`.
        region: u32,
    },
    /// One entry of the visible list `group` binds (whole), drawn alone at
    /// its level's index range: the exact visibility count's draws.
    Single {
        group: &'a wgpu::BindGroup,
        first_index: u32,
        index_count: u32,
        base_vertex: i32,
        entry: u32,
    },
}

impl CrowdDraw<'_> {
    /// The draw calls `draw_crowd` records for this: one instanced draw,
    /// one multi-draw over every region, or one indirect draw per region
    /// where the adapter has no multi-draw with first instances.
    pub fn calls(&self) -> u32 {
        match self {
            CrowdDraw::Direct { models, .. } => models.calls(),
            CrowdDraw::Single { .. } => 1,
            CrowdDraw::Indirect {
                region_bytes: None, ..
            } => 1,
            CrowdDraw::Indirect { levels, .. } => *levels,
        }
    }
}

/// The most views that draw the crowd in one frame: the camera and every
/// shadow cascade.
pub const MAX_VIEWS: usize = 1 + crate::crowd::shadow::MAX_CASCADES;

/// Every view that draws the crowd this frame, known once all of the
/// frame's culls are recorded: the camera's first, then each shadow
/// cascade's (what `Technique::before_passes` reads). Fixed-size: no
/// allocation per frame.
#[derive(Default)]
pub struct CrowdViews<'a> {
    views: [Option<CrowdDraw<'a>>; MAX_VIEWS],
    len: usize,
}

impl<'a> CrowdViews<'a> {
    /// Adds a view (beyond [`MAX_VIEWS`] it is ignored, which the cascade
    /// count's own limit rules out).
    pub fn push(&mut self, draw: CrowdDraw<'a>) {
        if let Some(slot) = self.views.get_mut(self.len) {
            *slot = Some(draw);
            self.len += 1;
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &CrowdDraw<'a>> {
        self.views[..self.len].iter().flatten()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Records the shared part of a crowd draw: the pass's pipeline, groups 1 to 3, the
/// static vertices and the LOD chain's indices, then either ONE instanced
/// `draw_indexed` of every instance (culling and LOD off) or the cull
/// pass's indirect draws: one multi-draw, or one draw per level.
pub fn draw_crowd(
    pass: &mut wgpu::RenderPass<'_>,
    pipeline: &wgpu::RenderPipeline,
    technique_group: &wgpu::BindGroup,
    crowd: &CrowdGroup,
    model: &ModelGpu,
    draw: &CrowdDraw<'_>,
) {
    let Some(crowd_group) = crowd.get() else {
        log::warn!("crowd technique drawn before prepare");
        return;
    };
    if let CrowdDraw::Direct { count: 0, .. } = draw {
        return;
    }
    pass.set_pipeline(pipeline);
    pass.set_bind_group(1, technique_group, &[]);
    pass.set_bind_group(2, crowd_group, &[]);
    pass.set_vertex_buffer(0, model.vertices.slice(..));
    pass.set_index_buffer(model.indices.slice(..), wgpu::IndexFormat::Uint32);
    match *draw {
        CrowdDraw::Direct { models, group, .. } => {
            pass.set_bind_group(3, group, &[0]);
            for r in models.iter() {
                pass.draw_indexed(
                    r.first_index..r.first_index + r.index_count,
                    r.base_vertex as i32,
                    r.first_instance..r.first_instance + r.instances,
                );
            }
        }
        CrowdDraw::Indirect {
            args,
            levels,
            group,
            region_bytes: None,
            ..
        } => {
            pass.set_bind_group(3, group, &[0]);
            pass.multi_draw_indexed_indirect(args, 0, levels);
        }
        CrowdDraw::Indirect {
            args,
            levels,
            group,
            region_bytes: Some(bytes),
            ..
        } => {
            for level in 0..levels {
                pass.set_bind_group(3, group, &[level * bytes]);
                let offset = (level as usize * ARGS_WORDS * 4) as u64;
                pass.draw_indexed_indirect(args, offset);
            }
        }
        CrowdDraw::Single {
            group,
            first_index,
            index_count,
            base_vertex,
            entry,
        } => {
            pass.set_bind_group(3, group, &[0]);
            pass.draw_indexed(
                first_index..first_index + index_count,
                base_vertex,
                entry..entry + 1,
            );
        }
    }
}
