//! Reading the velocity target (and, single-sampled, the depth) back to
//! the CPU: what the tests compare with the CPU's own motion.

use crate::gpu::{GpuContext, GpuError};
use crate::render::Renderer;
use glam::Vec2;

/// The last frame's velocity target and depth, rows top to bottom.
pub struct MotionImage {
    pub width: u32,
    pub height: u32,
    /// Screen motion since the previous frame, in UV units of the scene's
    /// viewport (x right, y down).
    pub velocity: Vec<Vec2>,
    /// The depth (0 near, 1 far), when the targets are single-sampled.
    pub depth: Option<Vec<f32>>,
}

impl MotionImage {
    /// The motion of pixel (x, y) in pixels.
    pub fn pixels(&self, x: u32, y: u32) -> Vec2 {
        self.velocity[(y * self.width + x) as usize]
            * Vec2::new(self.width as f32, self.height as f32)
    }
}

fn read_texture(
    gpu: &GpuContext,
    texture: &wgpu::Texture,
    aspect: wgpu::TextureAspect,
    (width, height): (u32, u32),
) -> Result<Vec<[u8; 4]>, GpuError> {
    let padded = (width * 4).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
        * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("motion read-back"),
        size: padded as u64 * height as u64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    encoder.copy_texture_to_buffer(
        wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: 0,
            origin: wgpu::Origin3d::ZERO,
            aspect,
        },
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(padded),
                rows_per_image: Some(height),
            },
        },
        wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
    );
    gpu.queue.submit([encoder.finish()]);
    let bytes = gpu.read(&buffer, padded as u64 * height as u64)?;
    let mut texels = Vec::with_capacity((width * height) as usize);
    for row in bytes.chunks(padded as usize) {
        for t in row[..(width * 4) as usize].chunks_exact(4) {
            texels.push([t[0], t[1], t[2], t[3]]);
        }
    }
    Ok(texels)
}

impl Renderer {
    /// The velocity target (and depth, without MSAA) of the last frame
    /// drawn; `None` when the targets have no velocity.
    pub fn read_motion(&self) -> Result<Option<MotionImage>, GpuError> {
        let Some((_, velocity)) = &self.targets.velocity else {
            return Ok(None);
        };
        let size = (self.targets.width, self.targets.height);
        let v = read_texture(
            &self.gpu,
            velocity.texture(),
            wgpu::TextureAspect::All,
            size,
        )?;
        let velocity = v
            .iter()
            .map(|t| {
                let x = half::f16::from_le_bytes([t[0], t[1]]).to_f32();
                let y = half::f16::from_le_bytes([t[2], t[3]]).to_f32();
                Vec2::new(x, y)
            })
            .collect();
        let depth = if self.targets.samples == 1 {
            let d = read_texture(
                &self.gpu,
                self.targets.depth.texture(),
                wgpu::TextureAspect::DepthOnly,
                size,
            )?;
            Some(d.iter().map(|t| f32::from_le_bytes(*t)).collect())
        } else {
            None
        };
        Ok(Some(MotionImage {
            width: size.0,
            height: size.1,
            velocity,
            depth,
        }))
    }
}
