//! Per-vertex skin data (bind-pose position and normal, four joints, four
//! weights) in a storage buffer, for the bone-matrix techniques.

use crate::Model;
use crate::render::data::gpu_data::{SkinInfo, SkinVertex};
use crate::render::passes::techniques::members::{self, Member};
use wgpu::util::DeviceExt;

/// The skin data of every vertex, one [`SkinVertex`] each.
pub fn skin_vertices(model: &Model) -> Vec<SkinVertex> {
    let pack = |a: u16, b: u16| a as u32 | (b as u32) << 16;
    (0..model.vertex_count())
        .map(|v| {
            let j = model.joints.get(v).copied().unwrap_or_default();
            SkinVertex {
                position: model.positions[v].to_array(),
                joints01: pack(j[0], j[1]),
                normal: model.normals.get(v).copied().unwrap_or_default().to_array(),
                joints23: pack(j[2], j[3]),
                weights: model
                    .weights
                    .get(v)
                    .copied()
                    .unwrap_or([1.0, 0.0, 0.0, 0.0]),
            }
        })
        .collect()
}

/// Every member's skin data in the shared stream's order.
pub fn members_skin_vertices(members: &[Member]) -> Vec<SkinVertex> {
    members
        .iter()
        .flat_map(|m| skin_vertices(&m.model))
        .collect()
}

/// The uploaded skin data and the sizes the shaders index with.
pub struct SkinData {
    pub vertices: wgpu::Buffer,
    pub info: wgpu::Buffer,
    pub bytes: u64,
}

impl SkinData {
    /// The skin data of every model in `members`, in the shared vertex
    /// stream's order, with the palette stride of the largest.
    pub fn new(device: &wgpu::Device, members: &[Member], label: &'static str) -> Self {
        let data = members_skin_vertices(members);
        let data = if data.is_empty() {
            vec![SkinVertex::default()]
        } else {
            data
        };
        let vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: bytemuck::cast_slice(&data),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let info = info_buffer(device, members);
        Self {
            bytes: vertices.size() + info.size(),
            vertices,
            info,
        }
    }
}

/// The `SkinInfo` uniform of `members`: joints per palette and vertices
/// per instance slot (the largest model's of each).
pub fn info_buffer(device: &wgpu::Device, members: &[Member]) -> wgpu::Buffer {
    let info = SkinInfo {
        joints: members::palette_stride(members) as u32,
        vertices: members::slot_vertices(members) as u32,
        previous: 0,
        _pad: 0,
    };
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("skin info"),
        contents: bytemuck::bytes_of(&info),
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
    })
}
