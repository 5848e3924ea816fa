//! Rendering without a window: one deterministic frame into an offscreen
//! texture, read back as RGBA8 (and written as PNG).

use crate::Model;
use crate::gpu::{GpuContext, GpuError};
use crate::render::offscreen::Offscreen;
use crate::render::{Camera, FrameSettings, RenderError, Renderer, RendererConfig};
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
    /// The target every frame draws into (made once, not per frame).
    target: Offscreen,
}

impl Headless {
    pub fn new(
        gpu: Arc<GpuContext>,
        model: &Model,
        vat: &Arc<Vat>,
        config: &RendererConfig,
    ) -> Result<Self, RenderError> {
        let config = RendererConfig {
            format: FORMAT,
            ..config.clone()
        };
        Ok(Self::with_renderer(Renderer::new(
            gpu, model, vat, &config,
        )?))
    }

    /// A headless view of a scene of several models (see
    /// [`Renderer::from_scene`]).
    pub fn from_scene(
        gpu: Arc<GpuContext>,
        models: &[crate::render::data::models::SceneModel<'_>],
        config: &RendererConfig,
    ) -> Result<Self, RenderError> {
        let config = RendererConfig {
            format: FORMAT,
            ..config.clone()
        };
        Ok(Self::with_renderer(Renderer::from_scene(
            gpu, models, &config,
        )?))
    }

    fn with_renderer(renderer: Renderer) -> Self {
        let (width, height) = (renderer.targets.width, renderer.targets.height);
        let target = Offscreen::new(
            &renderer.gpu.device,
            "headless target",
            FORMAT,
            width,
            height,
        );
        let camera = renderer.default_camera();
        Self {
            renderer,
            camera,
            target,
        }
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
            .encode(&mut encoder, self.target.view(), &self.camera, settings)?;
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
        Ok(gpu.wait_idle("the frame")?)
    }

    /// Which instances of the last frame show (see
    /// [`Renderer::exact_visibility`]).
    pub fn exact_visibility(
        &self,
    ) -> Result<crate::render::probes::exact_visibility::ExactVisibility, RenderError> {
        self.renderer.exact_visibility(self.target.view())
    }

    /// Renders one frame and reads it back.
    pub fn render(&mut self, settings: &FrameSettings) -> Result<RgbaImage, HeadlessError> {
        let (width, height) = (self.renderer.targets.width, self.renderer.targets.height);
        let gpu = self.renderer.gpu.clone();
        let mut encoder = self.encode(settings)?;
        self.target.copy_out(&mut encoder);
        gpu.queue.submit([encoder.finish()]);
        self.renderer.after_submit();
        let pixels = self.target.read(&gpu)?;
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
    vat: &Arc<Vat>,
    config: &RendererConfig,
    settings: &FrameSettings,
) -> Result<RgbaImage, HeadlessError> {
    Headless::new(gpu, model, vat, config)?.render(settings)
}

/// Like [`render_rgba`], written to a PNG file.
pub fn render_png(
    gpu: Arc<GpuContext>,
    model: &Model,
    vat: &Arc<Vat>,
    config: &RendererConfig,
    settings: &FrameSettings,
    path: &Path,
) -> Result<RgbaImage, HeadlessError> {
    let image = render_rgba(gpu, model, vat, config, settings)?;
    image.save_png(path)?;
    Ok(image)
}
