//! Everything around the crowd: the sky, the ground, the light and the fog,
//! and the per-frame uniform that carries them.

use super::Targets;
use super::crowd::Motion;
use super::gpu_data::{CLIP_MIXED, FrameUniform};
use super::technique::{TargetPipeline, target_pipeline};
use glam::{Mat4, Vec3};

/// What changes from frame to frame (all of it lands in one uniform).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameSettings {
    /// Seconds of scene time.
    pub time: f32,
    /// Animation and motion speed multiplier.
    pub playback: f32,
    /// 0 = every instance in step, 1 = random phases over a whole clip.
    pub spread: f32,
    /// Clip for everyone, or `None` for each instance's own clip.
    pub clip: Option<u32>,
    /// Lerp between baked frames (false = nearest frame).
    pub interpolate: bool,
    /// Multiplier on ground speed (1 = feet planted).
    pub stride: f32,
}

impl Default for FrameSettings {
    fn default() -> Self {
        Self {
            time: 0.0,
            playback: 1.0,
            spread: 1.0,
            clip: Some(0),
            interpolate: true,
            stride: 1.0,
        }
    }
}

/// How the crowd is laid out, fixed for a model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CrowdLayout {
    pub motion: Motion,
    /// Bounding-box diagonal over every frame.
    pub model_size: f32,
    pub ground_y: f32,
    pub clip_count: u32,
}

impl CrowdLayout {
    /// Radius of the field (track, flock or herd) for `count` instances,
    /// so that density stays about the same as the count changes.
    pub fn field_radius(&self, count: u32) -> f32 {
        let size = self.model_size.max(1e-3);
        let area_each = size * size * 1.1;
        let area = count.max(1) as f32 * area_each;
        let r = match self.motion {
            // The track is the ring between 0.62 R and R.
            Motion::Track => (area / (std::f32::consts::PI * (1.0 - 0.62 * 0.62))).sqrt(),
            Motion::Flock => (area * 3.0 / std::f32::consts::PI).sqrt(),
            Motion::Stand => (area / std::f32::consts::PI).sqrt(),
        };
        r.max(size * 4.0)
    }

    /// A box around the whole crowd, for framing.
    pub fn bounds(&self, count: u32) -> crate::Aabb {
        let r = self.field_radius(count) + self.model_size;
        let top = match self.motion {
            Motion::Flock => self.model_size * 14.0,
            _ => self.model_size * 0.8,
        };
        crate::Aabb {
            min: Vec3::new(-r, self.ground_y, -r),
            max: Vec3::new(r, self.ground_y + top, r),
        }
    }
}

/// Builds the frame uniform.
pub fn frame_uniform(
    view_proj: Mat4,
    eye: Vec3,
    settings: &FrameSettings,
    layout: &CrowdLayout,
    count: u32,
) -> FrameUniform {
    let field_radius = layout.field_radius(count);
    let size = layout.model_size.max(1e-3);
    let sun = Vec3::new(-0.45, 0.62, 0.38).normalize();
    FrameUniform {
        view_proj: view_proj.to_cols_array_2d(),
        inv_view_proj: view_proj.inverse().to_cols_array_2d(),
        camera_pos: eye.extend(1.0).to_array(),
        sun_dir: sun.extend(1.9).to_array(),
        sun_color: [1.0, 0.92, 0.80, 1.0],
        sky_zenith: [0.22, 0.42, 0.80, 1.0],
        sky_horizon: [0.70, 0.78, 0.86, 1.0],
        ground_bounce: [0.20, 0.22, 0.12, 1.0],
        // Fog: thick enough to hide the far edge of the field.
        fog: [
            1.0 / (field_radius * 3.0 + size * 20.0),
            size * 4.0,
            0.5 / size,
            0.0,
        ],
        time: settings.time,
        playback: settings.playback,
        spread: settings.spread,
        field_radius,
        clip: settings
            .clip
            .map_or(CLIP_MIXED, |c| c.min(layout.clip_count.saturating_sub(1))),
        interpolate: settings.interpolate as u32,
        motion: layout.motion as u32,
        stride: settings.stride,
        model_size: size,
        ground_y: layout.ground_y,
        instance_count: count,
        clip_count: layout.clip_count,
        // The renderer fills these from its `Behaviour` each frame.
        behaviour: 0,
        fade: 0.25,
        flap_clip: 0,
        glide_clip: 0,
    }
}

/// The ground and sky pipelines.
pub struct Scene {
    ground: wgpu::RenderPipeline,
    sky: wgpu::RenderPipeline,
}

impl Scene {
    pub fn new(
        device: &wgpu::Device,
        targets: &Targets,
        frame_layout: &wgpu::BindGroupLayout,
    ) -> Self {
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("scene pipeline layout"),
            bind_group_layouts: &[Some(frame_layout)],
            immediate_size: 0,
        });
        let pipeline = |name: &'static str, depth_write: bool| {
            let spec = TargetPipeline {
                label: name,
                layout: &layout,
                shader: name,
                buffers: &[],
                primitive: wgpu::PrimitiveState::default(),
                depth_write,
            };
            target_pipeline(device, &spec, targets)
        };
        Self {
            ground: pipeline("ground", true),
            sky: pipeline("sky", false),
        }
    }

    pub fn draw_ground(&self, pass: &mut wgpu::RenderPass<'_>) {
        pass.set_pipeline(&self.ground);
        pass.draw(0..6, 0..1);
    }

    /// Draw last: it fills only what nothing else covered.
    pub fn draw_sky(&self, pass: &mut wgpu::RenderPass<'_>) {
        pass.set_pipeline(&self.sky);
        pass.draw(0..3, 0..1);
    }
}
