//! Cascaded sun shadows on the GPU: the depth maps (one layer per
//! cascade), the receivers' parameters (which the frame's group 0 binds:
//! `frame_group`), the casters' per-cascade views, and the shadow
//! pass that culls each cascade with the cull pass and draws the crowd's
//! casters through the technique's own pose (`vs_shadow`). The cascade
//! fitting is plain data in `crowd::shadow`; the lookup is shaders/shadow.wgsl.

mod pass;
pub use pass::CascadeFit;

use crate::crowd::FrameUniform;
use crate::crowd::shadow::{CasterUniform, MAX_CASCADES, ShadowSettings, ShadowUniform};
use crate::render::passes::cull::{CullTarget, Culler};
use crate::render::passes::frame_group::{self, ShadowBindings};
use crate::render::passes::techniques::SHADOW_FORMAT;
use crate::render::util::timing::GpuTimer;

/// Bytes between the casters' per-cascade views (the uniform-offset
/// alignment every adapter accepts).
const CASTER_STRIDE: u64 = 256;

/// The depth maps: `count` layers of `side`² texels.
struct Maps {
    side: u32,
    count: u32,
    /// One view per layer (the cascades' render targets).
    layers: Vec<wgpu::TextureView>,
    /// Every layer (the receivers' binding).
    array: wgpu::TextureView,
    bytes: u64,
}

impl Maps {
    fn new(device: &wgpu::Device, side: u32, count: u32) -> Self {
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("shadow maps"),
            size: wgpu::Extent3d {
                width: side,
                height: side,
                depth_or_array_layers: crate::gpu::array_layers(device, count),
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: SHADOW_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        });
        let layers = (0..count)
            .map(|layer| {
                texture.create_view(&wgpu::TextureViewDescriptor {
                    label: Some("shadow cascade"),
                    dimension: Some(wgpu::TextureViewDimension::D2),
                    base_array_layer: layer,
                    array_layer_count: Some(1),
                    ..Default::default()
                })
            })
            .collect();
        let array = texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some("shadow maps view"),
            dimension: Some(wgpu::TextureViewDimension::D2Array),
            ..Default::default()
        });
        Self {
            side,
            count,
            layers,
            array,
            bytes: side as u64 * side as u64 * count as u64 * 4,
        }
    }
}

/// The shadow maps, their parameters, the frame's bind groups and the
/// cascades' cull outputs.
pub struct ShadowMaps {
    pub settings: ShadowSettings,
    uniform: wgpu::Buffer,
    casters: wgpu::Buffer,
    sampler: wgpu::Sampler,
    maps: Maps,
    /// Group 0 of each cascade's caster pass: its view at binding 4, and a
    /// one-texel stand-in for the maps (a pass cannot sample what it draws).
    caster_groups: Vec<wgpu::BindGroup>,
    targets: Vec<CullTarget>,
    /// GPU time of the shadow passes, separate from the scene pass's.
    timer: Option<GpuTimer>,
    max_side: u32,
    /// The parameters of the last frame (tests and the panel).
    pub last: Option<ShadowUniform>,
}

impl ShadowMaps {
    pub fn new(
        device: &wgpu::Device,
        caps: &crate::gpu::Capabilities,
        frame_layout: &wgpu::BindGroupLayout,
        frame_buffer: &wgpu::Buffer,
        culler: &Culler,
    ) -> Self {
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("shadow parameters"),
            size: std::mem::size_of::<ShadowUniform>() as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let casters = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("shadow caster views"),
            size: CASTER_STRIDE * MAX_CASCADES as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("shadow sampler"),
            address_mode_u: wgpu::AddressMode::ClampToEdge,
            address_mode_v: wgpu::AddressMode::ClampToEdge,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            compare: Some(wgpu::CompareFunction::LessEqual),
            ..Default::default()
        });
        let stand_in = Maps::new(device, 1, 1);
        let caster_groups = (0..MAX_CASCADES as u64)
            .map(|i| {
                let slot = wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &casters,
                    offset: i * CASTER_STRIDE,
                    size: wgpu::BufferSize::new(std::mem::size_of::<CasterUniform>() as u64),
                });
                frame_group::group(
                    device,
                    "shadow caster frame group",
                    frame_layout,
                    frame_buffer,
                    ShadowBindings {
                        parameters: &uniform,
                        maps: &stand_in.array,
                        sampler: &sampler,
                        caster: slot,
                    },
                )
            })
            .collect();
        let targets = (0..MAX_CASCADES)
            .map(|_| culler.new_target(device, "shadow cascade cull params"))
            .collect();
        Self {
            settings: ShadowSettings::default(),
            uniform,
            casters,
            sampler,
            maps: Maps::new(device, 1, 1),
            caster_groups,
            targets,
            timer: GpuTimer::new(device, caps),
            max_side: caps.max_texture_dimension_2d,
            last: None,
        }
    }

    /// What the scene's group 0 binds of the shadows: the receivers'
    /// parameters, every map, the sampler and the first cascade's view.
    pub fn bindings(&self) -> ShadowBindings<'_> {
        ShadowBindings {
            parameters: &self.uniform,
            maps: &self.maps.array,
            sampler: &self.sampler,
            caster: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &self.casters,
                offset: 0,
                size: wgpu::BufferSize::new(std::mem::size_of::<CasterUniform>() as u64),
            }),
        }
    }

    /// Remakes the maps when the settings changed their size or count
    /// (shadows off keep a one-texel map for the binding). True when they
    /// were made again: the frame's group 0 must bind the new ones.
    pub fn update(&mut self, device: &wgpu::Device) -> bool {
        let (side, count) = if self.settings.enabled {
            (
                self.settings.side(self.max_side),
                self.settings.cascade_count() as u32,
            )
        } else {
            (1, 1)
        };
        if (side, count) == (self.maps.side, self.maps.count) {
            return false;
        }
        self.maps = Maps::new(device, side, count);
        true
    }

    /// The cull outputs of the cascades in use (tests and diagnostics).
    pub fn cascade_targets(&self) -> &[CullTarget] {
        &self.targets[..self.maps.count as usize]
    }

    /// The map side in use.
    pub fn side(&self) -> u32 {
        self.maps.side
    }

    /// GPU bytes of the maps, parameters and cull outputs.
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.maps.bytes
            + self.uniform.size()
            + self.casters.size()
            + self
                .targets
                .iter()
                .map(CullTarget::gpu_memory_bytes)
                .sum::<u64>()
    }

    /// GPU milliseconds of the last timed shadow pass.
    pub fn gpu_ms(&self) -> Option<f32> {
        self.timer.as_ref().and_then(|t| t.last_ms)
    }

    /// Forgets the last GPU time (a benchmark then counts fresh readings only).
    pub fn clear_gpu_ms(&mut self) {
        if let Some(t) = &mut self.timer {
            t.last_ms = None;
        }
    }

    /// After the frame's submit: starts and collects the timing and the
    /// cascades' count read-backs.
    pub fn after_submit(&mut self, device: &wgpu::Device) {
        if let Some(t) = &mut self.timer {
            t.after_submit(device);
        }
        self.collect_stats(device, false);
    }

    /// Collects the cascades' counts; `wait` blocks until every pending
    /// one has landed (benchmarks and tests).
    pub fn collect_stats(&mut self, device: &wgpu::Device, wait: bool) {
        let enabled = self.settings.enabled;
        let n = self.maps.count as usize;
        for (i, target) in self.targets.iter_mut().enumerate() {
            if enabled && i < n {
                target.after_submit(device, wait);
            } else {
                target.clear_stats();
            }
        }
    }

    /// What each cascade in use drew in the last frame read back: casters
    /// and triangles per level (`None` for a cascade not yet read, not
    /// culled, or with shadows off).
    pub fn cascade_stats(&self) -> Vec<Option<crate::render::passes::cull::CullStats>> {
        if !self.settings.enabled {
            return Vec::new();
        }
        self.cascade_targets()
            .iter()
            .map(CullTarget::stats)
            .collect()
    }

    /// The frame's sun direction, as the casters and receivers use it.
    pub fn sun(frame: &FrameUniform) -> glam::Vec3 {
        glam::Vec4::from_array(frame.sun_dir).truncate()
    }
}
