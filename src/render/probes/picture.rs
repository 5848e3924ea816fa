//! Reading the velocity target (and, single-sampled, the depth) back to
//! the CPU: what the tests compare with the CPU's own motion.

use crate::gpu::GpuError;
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

impl Renderer {
    /// The velocity target (and depth, without MSAA) of the last frame
    /// drawn; `None` when the targets have no velocity.
    pub fn read_motion(&self) -> Result<Option<MotionImage>, GpuError> {
        let Some((_, velocity)) = &self.targets.velocity else {
            return Ok(None);
        };
        let size = (self.targets.width, self.targets.height);
        let v = self.gpu.read_texture_layer(
            velocity.texture(),
            wgpu::TextureAspect::All,
            0,
            0,
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
            let d = self.gpu.read_texture_layer(
                self.targets.depth.texture(),
                wgpu::TextureAspect::DepthOnly,
                0,
                0,
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
