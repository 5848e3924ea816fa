//! The skin pass's GPU objects: its layouts and four compute pipelines (a
//! layout each, holding only what its entry reads: every adapter allows 8
//! storage buffers per stage), the level data, the dispatch parameters' buffer (its slots: `params.rs`), the
//! views' list groups, and the buffers sized for a crowd ([`Output`]).

use crate::render::passes::techniques::compute_skinning::params::{self, VIEW_SLOTS};
use crate::render::passes::techniques::compute_skinning::{
    MAX_SKIN_LEVELS, SKINNED_VERTEX_BYTES, STATE_HEADER,
};
use crate::render::passes::techniques::compute_skinning::levels::{LevelSource, level_data};
use crate::gpu::compute_storage;
use crate::render::passes::techniques::skinning::PREVIOUS_BINDING;
use crate::render::data::gpu_data::SkinParams;
use crate::render::util::pipeline::{
    bind_group, compute_pipeline, storage_entry, texture_entry, uniform_entry,
};
use crate::render::passes::techniques::{BuildContext, TechniqueKind};
use wgpu::util::DeviceExt;

/// A 1×1 stand-in for the bone texture of the draws' group.
pub fn no_bone_texture(device: &wgpu::Device) -> wgpu::TextureView {
    device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some("no bone texture"),
            size: wgpu::Extent3d {
                width: 1,
                height: 1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba32Float,
            usage: wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        })
        .create_view(&Default::default())
}

/// Workgroups of 64 for `items`, within one dispatch dimension (the
/// shaders loop over the rest).
pub fn groups_for(items: u32) -> u32 {
    items.div_ceil(64).clamp(1, 65_535)
}

/// The buffers sized for `capacity` instances, and the groups over them.
pub struct Output {
    pub capacity: u32,
    /// Skinned vertices the output holds (each instance its model's).
    pub vertex_capacity: u64,
    pub state: wgpu::Buffer,
    pub skinned: wgpu::Buffer,
    pub dispatch: wgpu::Buffer,
    pub mark: wgpu::BindGroup,
    pub weight: wgpu::BindGroup,
    pub args: wgpu::BindGroup,
    /// Over the palettes, one per palette buffer (`PaletteSampler::parity`;
    /// `None` until made): the skinning's, and group 1 of the scene and
    /// shadow draws (which also binds the previous frame's palettes).
    pub skin: [Option<wgpu::BindGroup>; 2],
    pub draw: [Option<wgpu::BindGroup>; 2],
}

impl Output {
    pub fn gpu_bytes(&self) -> u64 {
        self.state.size() + self.skinned.size() + self.dispatch.size()
    }
}

/// A view's list bound for the marking, kept while the culler keeps the
/// same buffers.
struct ListGroup {
    visible: wgpu::Buffer,
    args: wgpu::Buffer,
    group: wgpu::BindGroup,
}

pub struct Layouts {
    pub draw: wgpu::BindGroupLayout,
    mark: wgpu::BindGroupLayout,
    weight: wgpu::BindGroupLayout,
    args: wgpu::BindGroupLayout,
    skin: wgpu::BindGroupLayout,
    list: wgpu::BindGroupLayout,
    /// The crowd's model table alone (group 2 of the marking and the
    /// skinning: each instance's slot, `palette_slot`).
    models: wgpu::BindGroupLayout,
}

pub struct Pipelines {
    pub mark: wgpu::ComputePipeline,
    pub weight: wgpu::ComputePipeline,
    pub args: wgpu::ComputePipeline,
    pub skin: wgpu::ComputePipeline,
}

/// What the pass keeps whatever the crowd's size.
pub struct SkinPass {
    pub layouts: Layouts,
    pub pipelines: Pipelines,
    /// The level data (`skin_levels`).
    pub levels: wgpu::Buffer,
    /// Each level's vertex-list length.
    pub level_lengths: Vec<u32>,
    pub params: wgpu::Buffer,
    /// Group 3 of direct views and of the skinning dispatches.
    pub no_list: wgpu::BindGroup,
    _no_list_buffer: wgpu::Buffer,
    /// Each view slot's list group (by bank, then view).
    list_groups: [Option<ListGroup>; VIEW_SLOTS],
}

fn layout(
    device: &wgpu::Device,
    label: &str,
    entries: &[wgpu::BindGroupLayoutEntry],
) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries,
    })
}


impl Layouts {
    pub fn new(device: &wgpu::Device) -> Self {
        let uniform = |b| wgpu::BindGroupLayoutEntry {
            visibility: wgpu::ShaderStages::COMPUTE,
            ..uniform_entry(b)
        };
        let params = wgpu::BindGroupLayoutEntry {
            binding: 3,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only: true },
                has_dynamic_offset: true,
                min_binding_size: wgpu::BufferSize::new(std::mem::size_of::<SkinParams>() as u64),
            },
            count: None,
        };
        let rw = |b| compute_storage(b, false);
        let ro = |b| compute_storage(b, true);
        Self {
            draw: layout(
                device,
                "compute skinning draw layout",
                &[
                    storage_entry(1),
                    storage_entry(2),
                    uniform_entry(3),
                    storage_entry(4),
                    storage_entry(6),
                    texture_entry(10),
                    storage_entry(PREVIOUS_BINDING),
                ],
            ),
            mark: layout(device, "compute skinning mark layout", &[rw(7)]),
            weight: layout(device, "compute skinning weight layout", &[ro(2), rw(7)]),
            args: layout(
                device,
                "compute skinning args layout",
                &[rw(7), ro(8), rw(9)],
            ),
            skin: layout(
                device,
                "compute skinning skin layout",
                &[ro(0), ro(1), uniform(3), rw(5), rw(7), ro(8)],
            ),
            list: layout(
                device,
                "compute skinning list layout",
                &[ro(1), ro(2), params],
            ),
            models: layout(device, "compute skinning models layout", &[ro(7)]),
        }
    }
}

fn list_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    visible: &wgpu::Buffer,
    args: &wgpu::Buffer,
    params: &wgpu::Buffer,
) -> wgpu::BindGroup {
    let params = wgpu::BindingResource::Buffer(wgpu::BufferBinding {
        buffer: params,
        offset: 0,
        size: wgpu::BufferSize::new(std::mem::size_of::<SkinParams>() as u64),
    });
    bind_group(
        device,
        "compute skinning list group",
        layout,
        &[
            (1, visible.as_entire_binding()),
            (2, args.as_entire_binding()),
            (3, params),
        ],
    )
}

impl SkinPass {
    /// The pass of technique `kind` (its crowd module holds the entries)
    /// for the model of `ctx` over `layouts` (the draws' among them);
    /// `crowd_layout` is the crowd's group 2.
    pub fn new(
        ctx: &BuildContext<'_>,
        kind: TechniqueKind,
        layouts: Layouts,
        crowd_layout: &wgpu::BindGroupLayout,
    ) -> Self {
        let device = ctx.device;
        let module = kind.crowd_module().create(device);
        let l = &layouts;
        let pipelines = Pipelines {
            mark: compute_pipeline(
                device,
                "compute skinning mark",
                &[None, Some(&l.mark), Some(&l.models), Some(&l.list)],
                &module,
                "cs_skin_mark",
            ),
            weight: compute_pipeline(
                device,
                "compute skinning weight",
                &[Some(ctx.frame_layout), Some(&l.weight), Some(crowd_layout)],
                &module,
                "cs_skin_weight",
            ),
            args: compute_pipeline(
                device,
                "compute skinning args",
                &[None, Some(&l.args)],
                &module,
                "cs_skin_args",
            ),
            skin: compute_pipeline(
                device,
                "compute skinning skin",
                &[None, Some(&l.skin), Some(&l.models), Some(&l.list)],
                &module,
                "cs_skin",
            ),
        };
        let sources: Vec<LevelSource<'_>> = ctx
            .members
            .iter()
            .map(|m| (&*m.lod, m.base_vertex, m.model.vertex_count()))
            .collect();
        let (data, level_lengths) = level_data(&sources);
        let levels = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("compute skinning levels"),
            contents: bytemuck::cast_slice(&data),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("compute skinning params"),
            contents: &params::initial_bytes(),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        });
        let no_list_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("compute skinning no list"),
            size: 64,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let no_list = list_group(
            device,
            &layouts.list,
            &no_list_buffer,
            &no_list_buffer,
            &params,
        );
        Self {
            layouts,
            pipelines,
            levels,
            level_lengths,
            params,
            no_list,
            _no_list_buffer: no_list_buffer,
            list_groups: Default::default(),
        }
    }

    /// GPU bytes of the level data and the parameters.
    pub fn gpu_bytes(&self) -> u64 {
        self.levels.size() + self.params.size()
    }

    /// The model table's group for the marking and the skinning (the
    /// crowd's `models` buffer, which lives as long as its crowd).
    pub fn models_group(&self, device: &wgpu::Device, models: &wgpu::Buffer) -> wgpu::BindGroup {
        bind_group(
            device,
            "compute skinning models group",
            &self.layouts.models,
            &[(7, models.as_entire_binding())],
        )
    }

    /// Binds view slot `i`'s list (`first_slot` of its step plus the
    /// view) for the marking; made again only when the culler's buffers
    /// changed.
    pub fn bind_list(
        &mut self,
        device: &wgpu::Device,
        i: usize,
        visible: &wgpu::Buffer,
        args: &wgpu::Buffer,
    ) {
        let current = self.list_groups[i]
            .as_ref()
            .is_some_and(|g| g.visible == *visible && g.args == *args);
        if !current {
            self.list_groups[i] = Some(ListGroup {
                group: list_group(device, &self.layouts.list, visible, args, &self.params),
                visible: visible.clone(),
                args: args.clone(),
            });
        }
    }

    /// View slot `i`'s list group, once bound.
    pub fn list(&self, i: usize) -> Option<&wgpu::BindGroup> {
        self.list_groups.get(i)?.as_ref().map(|g| &g.group)
    }

    /// The buffers for `capacity` instances and `vertex_capacity` skinned
    /// vertices (none above `limit` bytes), with their groups; `clips` is
    /// the technique's clip table.
    pub fn output(
        &self,
        device: &wgpu::Device,
        capacity: u32,
        vertex_capacity: u64,
        limit: u64,
        clips: &wgpu::Buffer,
    ) -> Output {
        let regions = 3 + self.level_lengths.len().max(1) as u64;
        let buffer = |label, size: u64, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: size.min(limit).max(16),
                usage,
                mapped_at_creation: false,
            })
        };
        let storage = wgpu::BufferUsages::STORAGE;
        let state = buffer(
            "compute skinning state",
            (STATE_HEADER as u64 + regions * capacity as u64) * 4,
            storage | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        );
        let skinned = buffer(
            "compute skinned vertices",
            vertex_capacity.max(1) * SKINNED_VERTEX_BYTES,
            storage,
        );
        let dispatch = buffer(
            "compute skinning dispatch",
            MAX_SKIN_LEVELS as u64 * 12,
            storage | wgpu::BufferUsages::INDIRECT,
        );
        let l = &self.layouts;
        let group = |label, layout, entries: &[(u32, wgpu::BindingResource<'_>)]| {
            bind_group(device, label, layout, entries)
        };
        Output {
            capacity,
            vertex_capacity,
            mark: group(
                "compute skinning mark group",
                &l.mark,
                &[(7, state.as_entire_binding())],
            ),
            weight: group(
                "compute skinning weight group",
                &l.weight,
                &[(2, clips.as_entire_binding()), (7, state.as_entire_binding())],
            ),
            args: group(
                "compute skinning args group",
                &l.args,
                &[
                    (7, state.as_entire_binding()),
                    (8, self.levels.as_entire_binding()),
                    (9, dispatch.as_entire_binding()),
                ],
            ),
            skin: [None, None],
            draw: [None, None],
            state,
            skinned,
            dispatch,
        }
    }

    /// Group 1 of the draws of `out`: the skinned vertices, and for the
    /// velocity target's previous pose the skin data with the previous
    /// frame's palettes or the bone texture; `clips` is the clip table the
    /// draws read (the bone texture's, with it).
    pub fn draw_group(
        &self,
        device: &wgpu::Device,
        out: &Output,
        (previous, bones): (&wgpu::Buffer, &wgpu::TextureView),
        [clips, skin_vertices, info]: [&wgpu::Buffer; 3],
    ) -> wgpu::BindGroup {
        bind_group(
            device,
            "compute skinning draw group",
            &self.layouts.draw,
            &[
                (1, skin_vertices.as_entire_binding()),
                (2, clips.as_entire_binding()),
                (3, info.as_entire_binding()),
                (4, out.skinned.as_entire_binding()),
                (6, out.state.as_entire_binding()),
                (10, wgpu::BindingResource::TextureView(bones)),
                (PREVIOUS_BINDING, previous.as_entire_binding()),
            ],
        )
    }

    /// The skinning group of `out`, over `palettes` and the skin data.
    pub fn skin_group(
        &self,
        device: &wgpu::Device,
        out: &Output,
        palettes: &wgpu::Buffer,
        [skin_vertices, info]: [&wgpu::Buffer; 2],
    ) -> wgpu::BindGroup {
        bind_group(
            device,
            "compute skinning skin group",
            &self.layouts.skin,
            &[
                (0, palettes.as_entire_binding()),
                (1, skin_vertices.as_entire_binding()),
                (3, info.as_entire_binding()),
                (5, out.skinned.as_entire_binding()),
                (7, out.state.as_entire_binding()),
                (8, self.levels.as_entire_binding()),
            ],
        )
    }
}
