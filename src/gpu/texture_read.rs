//! Reading one layer of a texture with 4-byte texels, or a part of a
//! buffer, back to the CPU (the tests' and tools' read-backs: the velocity
//! target and depth, the impostor atlas, the cull pass's and the splats'
//! buffers).

use super::{GpuContext, GpuError};

impl GpuContext {
    /// `bytes` of `buffer` from `offset` (a multiple of 4), copied to a
    /// mappable buffer and read as 32-bit words. Waits for the GPU like
    /// every read-back ([`GpuContext::read`]).
    pub fn read_words<T: bytemuck::Pod>(
        &self,
        buffer: &wgpu::Buffer,
        offset: u64,
        bytes: u64,
    ) -> Result<Vec<T>, GpuError> {
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("buffer read-back"),
            size: bytes.max(4),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = self.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(buffer, offset, &staging, 0, bytes);
        self.queue.submit([encoder.finish()]);
        Ok(bytemuck::pod_collect_to_vec(&self.read(&staging, bytes)?))
    }

    /// Texels of `layer` at `mip` (`width × height` of that mip), rows top
    /// to bottom, for a format of 4 bytes a texel (or its `aspect`). Waits
    /// for the GPU like every read-back ([`GpuContext::read`]).
    pub fn read_texture_layer(
        &self,
        texture: &wgpu::Texture,
        aspect: wgpu::TextureAspect,
        mip: u32,
        layer: u32,
        (width, height): (u32, u32),
    ) -> Result<Vec<[u8; 4]>, GpuError> {
        let padded = (width * 4).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
            * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let size = padded as u64 * height as u64;
        let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("texture read-back"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = self.device.create_command_encoder(&Default::default());
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture,
                mip_level: mip,
                origin: wgpu::Origin3d {
                    x: 0,
                    y: 0,
                    z: layer,
                },
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
        self.queue.submit([encoder.finish()]);
        let bytes = self.read(&buffer, size)?;
        Ok(bytes
            .chunks(padded as usize)
            .flat_map(|row| row[..(width * 4) as usize].chunks_exact(4))
            .map(|t| [t[0], t[1], t[2], t[3]])
            .collect())
    }
}
