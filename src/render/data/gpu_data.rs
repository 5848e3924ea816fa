//! Every struct the GPU reads, mirrored once, with size checks so a padding
//! mistake fails the build.

use bytemuck::{Pod, Zeroable};

/// One clip's place in the VAT.
/// Mirrors `VatClip` in shaders/pose.wgsl (tests/gpu_layout.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct VatClipGpu {
    pub layer: u32,
    pub first_row: u32,
    pub frame_count: u32,
    pub looping: u32,
    pub duration: f32,
    pub rows_per_frame: u32,
    pub width: u32,
    pub ground_speed: f32,
    /// The clip's model's first vertex in the scene's vertex stream: a
    /// vertex's texel is found from its index less this (0 for a scene of
    /// one model).
    pub vertex_base: u32,
}
const _: () = assert!(std::mem::size_of::<VatClipGpu>() == 36);

/// How a packed VAT decodes: position = min + q × step.
/// Mirrors `VatPacking` in shaders/vat_packed.wgsl (tests/gpu_layout.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct VatPackingGpu {
    /// xyz = the bounds' minimum.
    pub min: [f32; 4],
    /// xyz = model units per quantization step (`vat::packed::step`).
    pub step: [f32; 4],
}
const _: () = assert!(std::mem::size_of::<VatPackingGpu>() == 32);

/// Per-vertex attributes that do not animate (the VAT holds the rest).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct StaticVertex {
    pub uv: [f32; 2],
    pub color: [f32; 4],
    /// Layer of the base-colour texture array, or -1 for none.
    pub texture_layer: i32,
}
const _: () = assert!(std::mem::size_of::<StaticVertex>() == 28);

impl StaticVertex {
    pub const ATTRIBUTES: [wgpu::VertexAttribute; 3] =
        wgpu::vertex_attr_array![0 => Float32x2, 1 => Float32x4, 2 => Sint32];

    pub fn layout() -> wgpu::VertexBufferLayout<'static> {
        wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<Self>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &Self::ATTRIBUTES,
        }
    }
}

/// One vertex's skin data for the bone-matrix techniques: bind-pose position
/// and normal, four palette indices (u16 pairs) and four weights.
/// Mirrors `SkinVertex` in shaders/skin.wgsl (tests/gpu_layout.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct SkinVertex {
    pub position: [f32; 3],
    pub joints01: u32,
    pub normal: [f32; 3],
    pub joints23: u32,
    pub weights: [f32; 4],
}
const _: () = assert!(std::mem::size_of::<SkinVertex>() == 48);

/// Sizes the skinning shaders index with.
/// Mirrors `SkinInfo` in shaders/pose.wgsl (tests/gpu_layout.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct SkinInfo {
    pub joints: u32,
    pub vertices: u32,
    /// Instances whose previous pose the technique kept (the velocity
    /// target's `previous_pose` reads it below this).
    pub previous: u32,
    pub _pad: u32,
}
const _: () = assert!(std::mem::size_of::<SkinInfo>() == 16);

/// One joint of a palette as the skinning shaders read it (`bones::JointRows`).
/// Read as three vec4 per joint by `palettes` in shaders/techniques/skinning.wgsl.
pub const JOINT_ROWS_BYTES: u64 = 48;
const _: () = assert!(std::mem::size_of::<crate::bones::JointRows>() == JOINT_ROWS_BYTES as usize);

/// Where the impostor atlas's cells look from and how big they are.
/// Mirrors `AtlasParams` in shaders/impostor_common.wgsl (tests/gpu_layout.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct AtlasParamsGpu {
    /// xyz = the model-space sphere's centre, w = its radius.
    pub sphere: [f32; 4],
    pub cell: u32,
    pub yaws: u32,
    pub rows: u32,
    /// The model's atlas frames.
    pub layers: u32,
    /// Half the side of a cell's view, model units.
    pub extent: f32,
    /// The model's first layer in the textures (0 but in a scene's).
    pub first_layer: u32,
    /// Texels of a layer (a scene's may be taller than the model's: its
    /// rows of cells then pack across layers, `impostor::ModelPlace`).
    pub layer_width: f32,
    pub layer_height: f32,
    /// The rows' elevations, radians (row `r` at `[r / 4][r % 4]`).
    pub elevations: [[f32; 4]; 2],
    /// The model's first cell in the cells' bounds (`impostor::CellBounds`,
    /// row by row of its grid; 0 but in a scene's).
    pub first_bound: u32,
    pub _pad: [u32; 3],
}
const _: () = assert!(std::mem::size_of::<AtlasParamsGpu>() == 96);

/// One clip's frames in the atlas.
/// Mirrors `AtlasClip` in shaders/impostor_common.wgsl (tests/gpu_layout.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct AtlasClipGpu {
    pub first_layer: u32,
    pub frames: u32,
    pub duration: f32,
    pub looping: u32,
}
const _: () = assert!(std::mem::size_of::<AtlasClipGpu>() == 16);

impl AtlasParamsGpu {
    pub fn new(layout: &crate::impostor::AtlasLayout) -> Self {
        let mut elevations = [[0.0; 4]; 2];
        for (r, e) in layout.elevations.iter().take(8).enumerate() {
            elevations[r / 4][r % 4] = *e;
        }
        let (w, h) = layout.layer_size();
        Self {
            sphere: layout.centre.extend(layout.radius).to_array(),
            cell: layout.cell,
            yaws: layout.yaws,
            rows: layout.elevations.len().min(crate::impostor::MAX_ELEVATIONS) as u32,
            layers: layout.layers,
            extent: layout.extent(),
            first_layer: 0,
            layer_width: w as f32,
            layer_height: h as f32,
            elevations,
            first_bound: 0,
            _pad: [0; 3],
        }
    }
}

impl AtlasClipGpu {
    pub fn table(layout: &crate::impostor::AtlasLayout) -> Vec<Self> {
        let mut table: Vec<Self> = layout
            .clips
            .iter()
            .map(|c| Self {
                first_layer: c.first_layer,
                frames: c.frames,
                duration: c.duration,
                looping: c.looping as u32,
            })
            .collect();
        if table.is_empty() {
            table.push(Self {
                frames: 1,
                ..Self::default()
            });
        }
        table
    }
}
/// One compute-skinned vertex: the model-space position and the unit
/// normal in octahedral coordinates, two snorm16 (`pack2x16snorm`).
/// Mirrors `SkinnedVertex` in shaders/techniques/compute_skinning.wgsl
/// (tests/gpu_layout.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct SkinnedVertex {
    pub position: [f32; 3],
    pub normal: u32,
}
const _: () = assert!(std::mem::size_of::<SkinnedVertex>() == 16);

/// One dispatch of the compute-skinning pass: a view's list shape or a
/// level. Mirrors `SkinParams` in shaders/techniques/compute_skinning.wgsl
/// (tests/gpu_layout.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct SkinParams {
    pub region: u32,
    pub levels: u32,
    pub direct: u32,
    pub index_mask: u32,
    pub level: u32,
    pub _pad: [u32; 3],
}
const _: () = assert!(std::mem::size_of::<SkinParams>() == 32);
