//! Rendering without a window: one deterministic frame into an offscreen
//! texture, read back as RGBA8 (and written as PNG).

use super::{Camera, FrameSettings, RenderError, Renderer, RendererConfig};
use crate::Model;
use crate::gpu::{GpuContext, GpuError};
use crate::vat::Vat;
use std::path::Path;
use std::sync::Arc;

/// The offscreen colour format (sRGB, like the window's).
pub const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// Why a headless image could not be made.
#[derive(Debug, thiserror::Error)]
pub enum HeadlessError {
    #[error(transparent)]
    Render(#[from] RenderError),
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error("could not write {path}: {message}")]
    Png { path: String, message: String },
}

/// An RGBA8 image, rows top to bottom.
#[derive(Clone, Debug, PartialEq)]
pub struct RgbaImage {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<u8>,
}

impl RgbaImage {
    pub fn save_png(&self, path: &Path) -> Result<(), HeadlessError> {
        let err = |message: String| HeadlessError::Png {
            path: path.display().to_string(),
            message,
        };
        let file = std::fs::File::create(path).map_err(|e| err(e.to_string()))?;
        let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), self.width, self.height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().map_err(|e| err(e.to_string()))?;
        writer
            .write_image_data(&self.pixels)
            .map_err(|e| err(e.to_string()))?;
        writer.finish().map_err(|e| err(e.to_string()))
    }

    pub fn load_png(path: &Path) -> Result<Self, String> {
        let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
        decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::ALPHA);
        let mut reader = decoder
            .read_info()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let size = reader
            .output_buffer_size()
            .ok_or_else(|| format!("{}: image too large", path.display()))?;
        let mut buf = vec![0; size];
        let info = reader
            .next_frame(&mut buf)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        buf.truncate(info.buffer_size());
        if info.color_type != png::ColorType::Rgba || info.bit_depth != png::BitDepth::Eight {
            return Err(format!(
                "{}: expected 8-bit RGBA, found {:?} {:?}",
                path.display(),
                info.color_type,
                info.bit_depth
            ));
        }
        Ok(Self {
            width: info.width,
            height: info.height,
            pixels: buf,
        })
    }
}

/// A renderer with its own offscreen target.
pub struct Headless {
    pub renderer: Renderer,
    pub camera: Camera,
    target: wgpu::Texture,
    /// The view every frame draws into (made once, not per frame).
    target_view: wgpu::TextureView,
    readback: wgpu::Buffer,
    padded_row: u32,
}

impl Headless {
    pub fn new(
        gpu: Arc<GpuContext>,
        model: &Model,
        vat: &Vat,
        config: &RendererConfig,
    ) -> Result<Self, RenderError> {
        let config = RendererConfig {
            format: FORMAT,
            ..config.clone()
        };
        let renderer = Renderer::new(gpu, model, vat, &config)?;
        let device = &renderer.gpu.device;
        let target = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("headless target"),
            size: wgpu::Extent3d {
                width: config.width,
                height: config.height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let padded_row = (config.width * 4).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
            * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("headless readback"),
            size: padded_row as u64 * config.height as u64,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let camera = renderer.default_camera();
        let target_view = target.create_view(&Default::default());
        Ok(Self {
            renderer,
            camera,
            target,
            target_view,
            readback,
            padded_row,
        })
    }

    /// Records one frame into the offscreen target.
    fn encode(&mut self, settings: &FrameSettings) -> Result<wgpu::CommandEncoder, HeadlessError> {
        let mut encoder =
            self.renderer
                .gpu
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("headless frame"),
                });
        self.renderer
            .encode(&mut encoder, &self.target_view, &self.camera, settings)?;
        Ok(encoder)
    }

    /// Renders one frame and waits for the GPU, without reading the image
    /// back: the steady-state frame (tests/frame_allocs.rs counts its heap
    /// allocations).
    pub fn draw_frame(&mut self, settings: &FrameSettings) -> Result<(), HeadlessError> {
        let encoder = self.encode(settings)?;
        let gpu = &self.renderer.gpu;
        gpu.queue.submit([encoder.finish()]);
        self.renderer.after_submit();
        let gpu = &self.renderer.gpu;
        gpu.check()?;
        gpu.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| GpuError::Readback(e.to_string()))?;
        Ok(gpu.check()?)
    }

    /// Renders one frame and reads it back.
    pub fn render(&mut self, settings: &FrameSettings) -> Result<RgbaImage, HeadlessError> {
        let (width, height) = (self.renderer.targets.width, self.renderer.targets.height);
        let gpu = self.renderer.gpu.clone();
        let mut encoder = self.encode(settings)?;
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &self.target,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &self.readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(self.padded_row),
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
        self.renderer.after_submit();
        let bytes = gpu.read(&self.readback, self.padded_row as u64 * height as u64)?;
        let mut pixels = Vec::with_capacity((width * height * 4) as usize);
        for row in bytes.chunks(self.padded_row as usize) {
            pixels.extend_from_slice(&row[..(width * 4) as usize]);
        }
        Ok(RgbaImage {
            width,
            height,
            pixels,
        })
    }
}

/// One frame at `settings.time` for a model and its bake, with the default
/// camera, as RGBA8.
pub fn render_rgba(
    gpu: Arc<GpuContext>,
    model: &Model,
    vat: &Vat,
    config: &RendererConfig,
    settings: &FrameSettings,
) -> Result<RgbaImage, HeadlessError> {
    Headless::new(gpu, model, vat, config)?.render(settings)
}

/// Like [`render_rgba`], written to a PNG file.
pub fn render_png(
    gpu: Arc<GpuContext>,
    model: &Model,
    vat: &Vat,
    config: &RendererConfig,
    settings: &FrameSettings,
    path: &Path,
) -> Result<RgbaImage, HeadlessError> {
    let image = render_rgba(gpu, model, vat, config, settings)?;
    image.save_png(path)?;
    Ok(image)
}
