//! The model's static GPU data shared by every technique: per-vertex UVs,
//! colours and texture layers, the index buffer, and the base-colour
//! textures packed into one array so a multi-material model is still one draw.

use crate::Model;
use crate::render::data::gpu_data::StaticVertex;
use wgpu::util::DeviceExt;

/// The largest side of a base-colour layer; bigger images are scaled down.
const MAX_LAYER_SIDE: u32 = 2048;

pub struct ModelGpu {
    pub vertices: wgpu::Buffer,
    pub indices: wgpu::Buffer,
    pub index_count: u32,
    pub vertex_count: u32,
    pub texture: wgpu::Texture,
    pub texture_view: wgpu::TextureView,
    pub sampler: wgpu::Sampler,
    /// True when any material is double-sided (no back-face culling).
    pub double_sided: bool,
}

impl ModelGpu {
    /// The faces the crowd's pipelines cull: none for a double-sided
    /// material, else the back.
    pub fn face_culling(&self) -> Option<wgpu::Face> {
        (!self.double_sided).then_some(wgpu::Face::Back)
    }

    /// Bytes of the vertex and index buffers and the base-colour textures
    /// (one mip level, RGBA8).
    pub fn gpu_memory_bytes(&self) -> u64 {
        let t = self.texture.size();
        let texels = t.width as u64 * t.height as u64 * t.depth_or_array_layers as u64;
        self.vertices.size() + self.indices.size() + texels * 4
    }
}

/// The static vertex attributes: UV, colour and texture layer of each vertex.
pub fn static_vertices(model: &Model) -> Vec<StaticVertex> {
    let mut layer_of_vertex = vec![-1i32; model.vertex_count()];
    for p in &model.primitives {
        let layer = model
            .materials
            .get(p.material)
            .and_then(|m| m.base_color_texture)
            .filter(|t| t.image < model.images.len() && model.has_uv)
            .map_or(-1, |t| t.image as i32);
        let range = p.first_vertex as usize..(p.first_vertex + p.vertex_count) as usize;
        if let Some(slots) = layer_of_vertex.get_mut(range) {
            slots.fill(layer);
        }
    }
    (0..model.vertex_count())
        .map(|v| StaticVertex {
            uv: model.uvs.get(v).copied().unwrap_or_default().to_array(),
            color: model
                .colors
                .get(v)
                .copied()
                .unwrap_or(glam::Vec4::ONE)
                .to_array(),
            texture_layer: layer_of_vertex[v],
        })
        .collect()
}

/// Bilinear resize of an RGBA8 image.
fn resize(src: &[u8], sw: u32, sh: u32, dw: u32, dh: u32) -> Vec<u8> {
    if (sw, sh) == (dw, dh) {
        return src.to_vec();
    }
    let mut out = vec![0u8; (dw * dh * 4) as usize];
    let at = |x: u32, y: u32, c: usize| src[((y * sw + x) * 4) as usize + c] as f32;
    for y in 0..dh {
        let fy = ((y as f32 + 0.5) * sh as f32 / dh as f32 - 0.5).clamp(0.0, (sh - 1) as f32);
        let (y0, ty) = (fy.floor() as u32, fy.fract());
        let y1 = (y0 + 1).min(sh - 1);
        for x in 0..dw {
            let fx = ((x as f32 + 0.5) * sw as f32 / dw as f32 - 0.5).clamp(0.0, (sw - 1) as f32);
            let (x0, tx) = (fx.floor() as u32, fx.fract());
            let x1 = (x0 + 1).min(sw - 1);
            for c in 0..4 {
                let top = at(x0, y0, c) * (1.0 - tx) + at(x1, y0, c) * tx;
                let bottom = at(x0, y1, c) * (1.0 - tx) + at(x1, y1, c) * tx;
                out[((y * dw + x) * 4) as usize + c] =
                    (top * (1.0 - ty) + bottom * ty).round() as u8;
            }
        }
    }
    out
}

/// The mip chain of one RGBA8 layer (2×2 box filter).
fn mips(base: Vec<u8>, w: u32, h: u32, levels: u32) -> Vec<Vec<u8>> {
    let mut chain = vec![base];
    let (mut w, mut h) = (w, h);
    for _ in 1..levels {
        let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
        let prev = chain.last().map(|v| v.as_slice()).unwrap_or_default();
        let mut next = vec![0u8; (nw * nh * 4) as usize];
        for y in 0..nh {
            for x in 0..nw {
                for c in 0..4 {
                    let mut sum = 0u32;
                    for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        let sx = (x * 2 + dx).min(w - 1);
                        let sy = (y * 2 + dy).min(h - 1);
                        sum += prev[((sy * w + sx) * 4) as usize + c] as u32;
                    }
                    next[((y * nw + x) * 4) as usize + c] = (sum / 4) as u8;
                }
            }
        }
        chain.push(next);
        (w, h) = (nw, nh);
    }
    chain
}

impl ModelGpu {
    /// `models` in one vertex stream, index buffer (`indices`: each
    /// model's LOD chain, level 0 first, after the previous models',
    /// model-local) and texture array (each model's images after the
    /// previous ones'). A direct draw of the first model uses
    /// `index_count` indices.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        models: &[&Model],
        indices: &[u32],
    ) -> Self {
        let mut vertices = Vec::new();
        let mut images: Vec<&crate::model::Image> = Vec::new();
        for model in models {
            let first_layer = images.len() as i32;
            vertices.extend(static_vertices(model).into_iter().map(|mut v| {
                if v.texture_layer >= 0 {
                    v.texture_layer += first_layer;
                }
                v
            }));
            images.extend(model.images.iter());
        }
        let mut gpu = Self::from_parts(device, queue, &vertices, &images, indices);
        gpu.index_count = models.first().map_or(0, |m| m.indices.len() as u32);
        gpu.double_sided = models
            .iter()
            .any(|m| m.materials.iter().any(|mat| mat.double_sided));
        gpu
    }

    fn from_parts(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        static_vertices: &[StaticVertex],
        images: &[&crate::model::Image],
        indices: &[u32],
    ) -> Self {
        let vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("model static vertices"),
            contents: bytemuck::cast_slice(static_vertices),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let indices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("model indices"),
            contents: bytemuck::cast_slice(indices),
            usage: wgpu::BufferUsages::INDEX,
        });

        // One layer per image, all at the largest image's size.
        let (w, h) = images
            .iter()
            .fold((1, 1), |(w, h), i| (w.max(i.width), h.max(i.height)));
        let (w, h) = (w.min(MAX_LAYER_SIDE), h.min(MAX_LAYER_SIDE));
        let layers = crate::gpu::array_layers(device, images.len().max(1) as u32);
        let levels = 32 - w.max(h).leading_zeros();
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("model base colour textures"),
            size: wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: layers,
            },
            mip_level_count: levels,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8UnormSrgb,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        for layer in 0..layers {
            let base = match images.get(layer as usize) {
                Some(img)
                    if img.width > 0
                        && img.height > 0
                        && img.rgba8.len() == (img.width * img.height * 4) as usize =>
                {
                    resize(&img.rgba8, img.width, img.height, w, h)
                }
                _ => vec![255u8; (w * h * 4) as usize],
            };
            for (level, data) in mips(base, w, h, levels).into_iter().enumerate() {
                let (lw, lh) = ((w >> level).max(1), (h >> level).max(1));
                queue.write_texture(
                    wgpu::TexelCopyTextureInfo {
                        texture: &texture,
                        mip_level: level as u32,
                        origin: wgpu::Origin3d {
                            x: 0,
                            y: 0,
                            z: layer,
                        },
                        aspect: wgpu::TextureAspect::All,
                    },
                    &data,
                    wgpu::TexelCopyBufferLayout {
                        offset: 0,
                        bytes_per_row: Some(lw * 4),
                        rows_per_image: Some(lh),
                    },
                    wgpu::Extent3d {
                        width: lw,
                        height: lh,
                        depth_or_array_layers: 1,
                    },
                );
            }
        }
        let texture_view = texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some("model base colour view"),
            dimension: Some(wgpu::TextureViewDimension::D2Array),
            ..Default::default()
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("model base colour sampler"),
            address_mode_u: wgpu::AddressMode::Repeat,
            address_mode_v: wgpu::AddressMode::Repeat,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: wgpu::MipmapFilterMode::Linear,
            ..Default::default()
        });
        Self {
            vertices,
            indices,
            index_count: 0,
            vertex_count: static_vertices.len() as u32,
            texture,
            texture_view,
            sampler,
            double_sided: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resize_and_mips_keep_flat_colour() {
        let src: Vec<u8> = [10u8, 20, 30, 255].repeat(9);
        let out = resize(&src, 3, 3, 4, 2);
        assert!(out.chunks(4).all(|c| c == [10, 20, 30, 255]));
        let chain = mips(out, 4, 2, 3);
        assert_eq!(chain.len(), 3);
        assert_eq!(chain[2], vec![10, 20, 30, 255]);
    }
}
