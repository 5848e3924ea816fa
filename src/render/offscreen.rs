//! A colour target that is not a window's: the scene drawn into it, copied
//! to a buffer and read back as tightly packed rows (headless frames, the
//! window's saved view).

use crate::gpu::{GpuContext, GpuError};

pub struct Offscreen {
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    readback: wgpu::Buffer,
    padded_row: u32,
    pub width: u32,
    pub height: u32,
}

impl Offscreen {
    pub fn new(
        device: &wgpu::Device,
        label: &str,
        format: wgpu::TextureFormat,
        width: u32,
        height: u32,
    ) -> Self {
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some(label),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let padded_row = (width * 4).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
            * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: padded_row as u64 * height as u64,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let view = texture.create_view(&Default::default());
        Self {
            texture,
            view,
            readback,
            padded_row,
            width,
            height,
        }
    }

    /// The view to draw into.
    pub fn view(&self) -> &wgpu::TextureView {
        &self.view
    }

    /// Records the copy of the target into the read-back buffer (after the
    /// frame's drawing, in the same encoder).
    pub fn copy_out(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &self.texture,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &self.readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(self.padded_row),
                    rows_per_image: Some(self.height),
                },
            },
            wgpu::Extent3d {
                width: self.width,
                height: self.height,
                depth_or_array_layers: 1,
            },
        );
    }

    /// The copied pixels once the encoder with [`Self::copy_out`] is
    /// submitted: rows top to bottom, `width × 4` bytes each, in the
    /// target's own channel order.
    pub fn read(&self, gpu: &GpuContext) -> Result<Vec<u8>, GpuError> {
        let bytes = gpu.read(&self.readback, self.padded_row as u64 * self.height as u64)?;
        let row = (self.width * 4) as usize;
        let mut pixels = Vec::with_capacity(row * self.height as usize);
        for padded in bytes.chunks(self.padded_row as usize) {
            pixels.extend_from_slice(&padded[..row]);
        }
        Ok(pixels)
    }
}
