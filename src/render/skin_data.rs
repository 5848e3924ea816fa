//! Per-vertex skin data (bind-pose position and normal, four joints, four
//! weights) in a storage buffer, for the bone-matrix techniques.

use super::gpu_data::{SkinInfo, SkinVertex};
use crate::Model;
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

/// The uploaded skin data and the sizes the shaders index with.
pub struct SkinData {
    pub vertices: wgpu::Buffer,
    pub info: wgpu::Buffer,
    pub bytes: u64,
}

impl SkinData {
    pub fn new(device: &wgpu::Device, model: &Model, label: &'static str) -> Self {
        let data = skin_vertices(model);
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
        let info = info_buffer(device, model);
        Self {
            bytes: vertices.size() + info.size(),
            vertices,
            info,
        }
    }
}

/// The `SkinInfo` uniform (joint and vertex counts) of a model.
pub fn info_buffer(device: &wgpu::Device, model: &Model) -> wgpu::Buffer {
    let info = SkinInfo {
        joints: model.palette.len().max(1) as u32,
        vertices: model.vertex_count() as u32,
        previous: 0,
        _pad: 0,
    };
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("skin info"),
        contents: bytemuck::bytes_of(&info),
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
    })
}
