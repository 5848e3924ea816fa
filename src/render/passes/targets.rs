//! What the renderer draws into: colour format, anti-aliasing (MSAA
//! samples, or TAA's own colour target), depth and the velocity target.

use crate::crowd::motion::Aa;
use crate::gpu::GpuContext;

/// The depth format of every depth attachment: the frame's, the shadow
/// maps', the impostor bake's.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// The velocity target's format: the screen motion in UV units.
pub const VELOCITY_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rg16Float;
/// The colour TAA's scene pass draws into and its history keeps.
pub const TAA_COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba16Float;

/// How the targets are made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TargetOptions {
    pub aa: Aa,
    /// Write the velocity target even without TAA (the motion view).
    pub velocity: bool,
    /// Keep the scene's final depth after the frame (it is discarded
    /// otherwise): the exact visibility count draws against it.
    pub keep_depth: bool,
}

/// Colour format, MSAA, depth and velocity of what the renderer draws into.
pub struct Targets {
    /// The format of the output (the swap chain's or offscreen texture's).
    pub format: wgpu::TextureFormat,
    pub samples: u32,
    pub width: u32,
    pub height: u32,
    pub options: TargetOptions,
    pub(crate) msaa: Option<wgpu::TextureView>,
    pub(crate) depth: wgpu::TextureView,
    /// The velocity target: (multisampled view, resolved view), or the
    /// single-sample view twice.
    pub(crate) velocity: Option<(wgpu::TextureView, wgpu::TextureView)>,
    /// TAA's scene colour (single sample, read by the resolve).
    pub(crate) taa_color: Option<wgpu::TextureView>,
    /// Bumped whenever the textures are made again (what binds them
    /// makes its groups again).
    pub generation: u64,
}

struct Views {
    msaa: Option<wgpu::TextureView>,
    depth: wgpu::TextureView,
    velocity: Option<(wgpu::TextureView, wgpu::TextureView)>,
    taa_color: Option<wgpu::TextureView>,
}

impl Targets {
    pub fn new(gpu: &GpuContext, format: wgpu::TextureFormat, width: u32, height: u32) -> Self {
        Self::with_options(gpu, format, width, height, TargetOptions::default())
    }

    pub fn with_options(
        gpu: &GpuContext,
        format: wgpu::TextureFormat,
        width: u32,
        height: u32,
        options: TargetOptions,
    ) -> Self {
        let samples = match options.aa {
            Aa::Msaa => gpu.msaa_samples(format, DEPTH_FORMAT),
            Aa::Taa | Aa::Off => 1,
        };
        let mut targets = Self {
            format,
            samples,
            width,
            height,
            options,
            msaa: None,
            depth: Self::placeholder(&gpu.device),
            velocity: None,
            taa_color: None,
            generation: 0,
        };
        targets.remake(&gpu.device);
        targets
    }

    fn placeholder(device: &wgpu::Device) -> wgpu::TextureView {
        device
            .create_texture(&wgpu::TextureDescriptor {
                label: Some("depth placeholder"),
                size: wgpu::Extent3d {
                    width: 1,
                    height: 1,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: DEPTH_FORMAT,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                view_formats: &[],
            })
            .create_view(&Default::default())
    }

    fn remake(&mut self, device: &wgpu::Device) {
        let v = self.make(device);
        self.msaa = v.msaa;
        self.depth = v.depth;
        self.velocity = v.velocity;
        self.taa_color = v.taa_color;
    }

    /// A view of a new texture of the targets' size.
    fn texture(
        &self,
        device: &wgpu::Device,
        label: &str,
        format: wgpu::TextureFormat,
        samples: u32,
        usage: wgpu::TextureUsages,
    ) -> wgpu::TextureView {
        device
            .create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size: wgpu::Extent3d {
                    width: self.width.max(1),
                    height: self.height.max(1),
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: samples,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
            .create_view(&Default::default())
    }

    fn make(&self, device: &wgpu::Device) -> Views {
        let texture =
            |label, format, samples, usage| self.texture(device, label, format, samples, usage);
        let samples = self.samples;
        let attachment = wgpu::TextureUsages::RENDER_ATTACHMENT;
        // Single-sample targets can also be copied out (the tests read
        // the velocity and depth back: `post::readback`).
        let copy = if samples == 1 {
            wgpu::TextureUsages::COPY_SRC
        } else {
            wgpu::TextureUsages::empty()
        };
        let read = attachment | wgpu::TextureUsages::TEXTURE_BINDING;
        let msaa = (samples > 1).then(|| texture("msaa colour", self.format, samples, attachment));
        // The depth is also read (occlusion culling's pyramid), but not on
        // GL, where occlusion culling is unavailable (the depth cannot be
        // read there, wgpu #4524) and a sampled multisampled depth texture
        // leaves the crowd undrawn.
        let depth_usage = if device.adapter_info().backend == wgpu::Backend::Gl {
            attachment
        } else {
            read
        };
        let velocity = self.has_velocity().then(|| {
            let resolved = texture(
                "velocity",
                VELOCITY_FORMAT,
                1,
                read | wgpu::TextureUsages::COPY_SRC,
            );
            let drawn = if samples > 1 {
                texture("msaa velocity", VELOCITY_FORMAT, samples, attachment)
            } else {
                resolved.clone()
            };
            (drawn, resolved)
        });
        let taa_color = (self.options.aa == Aa::Taa)
            .then(|| texture("taa scene colour", TAA_COLOR_FORMAT, 1, read));
        Views {
            msaa,
            depth: texture("depth", DEPTH_FORMAT, samples, depth_usage | copy),
            velocity,
            taa_color,
        }
    }

    /// A depth attachment of the targets' size and samples apart from
    /// theirs, for a pass whose depth must not touch the frame's.
    pub fn scratch_depth(&self, device: &wgpu::Device) -> wgpu::TextureView {
        let usage = wgpu::TextureUsages::RENDER_ATTACHMENT;
        self.texture(device, "scratch depth", DEPTH_FORMAT, self.samples, usage)
    }

    pub fn resize(&mut self, device: &wgpu::Device, width: u32, height: u32) {
        if (width, height) != (self.width, self.height) {
            (self.width, self.height) = (width, height);
            self.remake(device);
            self.generation += 1;
        }
    }

    /// Whether the scene pass writes the velocity target.
    pub fn has_velocity(&self) -> bool {
        self.options.velocity || self.options.aa == Aa::Taa
    }

    /// The format the scene pass's colour is drawn in: the output's, or
    /// TAA's float colour.
    pub fn scene_format(&self) -> wgpu::TextureFormat {
        if self.options.aa == Aa::Taa {
            TAA_COLOR_FORMAT
        } else {
            self.format
        }
    }

    /// The colour targets every scene pipeline writes: the colour, then the
    /// velocity when there is one (`blend` on the colour).
    pub fn color_targets(
        &self,
        blend: Option<wgpu::BlendState>,
    ) -> Vec<Option<wgpu::ColorTargetState>> {
        let mut targets = vec![Some(wgpu::ColorTargetState {
            format: self.scene_format(),
            blend,
            write_mask: wgpu::ColorWrites::ALL,
        })];
        if self.has_velocity() {
            targets.push(Some(VELOCITY_FORMAT.into()));
        }
        targets
    }

    /// `colour` (from [`Self::color_targets`]) writing nothing.
    pub fn mask_colour(colour: &mut [Option<wgpu::ColorTargetState>]) {
        for c in colour.iter_mut().flatten() {
            c.write_mask = wgpu::ColorWrites::empty();
        }
    }

    /// The fragment entry of a scene pipeline: `plain`, or its twin that
    /// also writes the velocity (`{plain}_velocity`, or `fs_velocity` for
    /// `fs_main`).
    pub fn fragment_entry(&self, plain: &'static str) -> String {
        match (self.has_velocity(), plain) {
            (false, _) => plain.to_string(),
            (true, "fs_main") => "fs_velocity".to_string(),
            (true, _) => format!("{plain}_velocity"),
        }
    }

    pub fn aspect(&self) -> f32 {
        self.width.max(1) as f32 / self.height.max(1) as f32
    }

    pub fn depth_state(&self, write: bool) -> wgpu::DepthStencilState {
        wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(write),
            depth_compare: Some(wgpu::CompareFunction::LessEqual),
            stencil: Default::default(),
            bias: Default::default(),
        }
    }

    pub fn multisample(&self) -> wgpu::MultisampleState {
        wgpu::MultisampleState {
            count: self.samples,
            ..Default::default()
        }
    }
}
