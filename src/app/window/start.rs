//! Opening the viewer in two steps: the models, the window and its surface
//! first ([`Starting`]), then, once a GPU device exists, the renderer, egui
//! and the panel ([`Starting::finish`]). Natively the device comes at once;
//! in a browser WebGPU hands it over asynchronously, between frames.

use super::super::ViewerArgs;
use super::super::ui::{ModelPick, UiState};
use super::{Drag, Running, scene_renderer};
use crate::app::measure::MeasureAll;
use crate::crowd::BehaviourSettings;
use crate::crowd::scene_spec::SceneSpec;
use crate::crowd::setup::{Loaded, ModelChoice, load_with};
use crate::gpu::GpuContext;
use crate::render::{History, RendererConfig};
use std::sync::Arc;
use web_time::Instant;
use winit::event_loop::ActiveEventLoop;
use winit::window::Window;

/// The viewer before its GPU device: models baked, window and surface made.
pub(super) struct Starting {
    pub window: Arc<Window>,
    pub instance: wgpu::Instance,
    pub surface: wgpu::Surface<'static>,
    prepared: Loaded,
    scene_rest: Vec<(Loaded, u32)>,
    message: Option<String>,
}

impl Starting {
    pub fn new(
        event_loop: &ActiveEventLoop,
        args: &ViewerArgs,
        scene: &SceneSpec,
    ) -> anyhow::Result<Self> {
        let choice = scene.entries[0].choice.clone();
        let (prepared, scene_rest, message) = if scene.entries.len() == 1 {
            let prepared = load_with(
                &choice,
                args.fps,
                args.precision,
                args.clip.as_deref(),
                args.motion,
            )?;
            (prepared, Vec::new(), None)
        } else {
            // Several models; one that fails is named in the panel too.
            let load = super::super::load_scene(args, scene)?;
            let failed: Vec<String> = load
                .failed
                .iter()
                .map(|(name, e)| format!("{name}: {e}"))
                .collect();
            let message = (!failed.is_empty()).then(|| failed.join("\n"));
            let mut loaded = load.loaded.into_iter();
            let (first, _) = loaded.next().expect("load_scene loaded one");
            (first, loaded.collect(), message)
        };
        let (w, h) = args.size;
        let title = std::iter::once(prepared.model.name())
            .chain(scene_rest.iter().map(|(l, _)| l.model.name()))
            .collect::<Vec<_>>()
            .join(", ");
        let attributes = Window::default_attributes()
            .with_title(format!("Stampede — {title}"))
            .with_inner_size(winit::dpi::PhysicalSize::new(w, h));
        #[cfg(target_arch = "wasm32")]
        let attributes = super::web::in_page(attributes);
        let window = Arc::new(event_loop.create_window(attributes)?);
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle_from_env(
                Box::new(event_loop.owned_display_handle()),
            ));
        let surface = instance.create_surface(window.clone())?;
        Ok(Self {
            window,
            instance,
            surface,
            prepared,
            scene_rest,
            message,
        })
    }

    /// The rest, on `gpu`.
    pub fn finish(self, gpu: GpuContext, args: &ViewerArgs, count: u32) -> anyhow::Result<Running> {
        let Self {
            window,
            instance: _,
            surface,
            prepared,
            scene_rest,
            message,
        } = self;
        let gpu = Arc::new(gpu);
        log::info!("{}", gpu.description());
        let size = window.inner_size();
        let caps = surface.get_capabilities(&gpu.adapter);
        let format = surface_format(&caps.formats).ok_or_else(|| {
            anyhow::anyhow!(
                "the window surface offers no texture format on {}",
                gpu.description()
            )
        })?;
        // The scene renders in sRGB and egui into a plain view; a browser's
        // canvas offers only the plain format (the scene is staged).
        let scene_format = format.add_srgb_suffix();
        let view_formats = [format.remove_srgb_suffix()]
            .into_iter()
            .filter(|f| *f != format)
            .collect();
        let vsync = !args.no_vsync;
        let staged = super::stage::Stage::needed(format, scene_format);
        let config = wgpu::SurfaceConfiguration {
            usage: if staged {
                // The staged scene is copied in.
                wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_DST
            } else {
                wgpu::TextureUsages::RENDER_ATTACHMENT
            },
            format,
            width: size.width.max(1),
            height: size.height.max(1),
            present_mode: super::present_mode(vsync),
            desired_maximum_frame_latency: 2,
            alpha_mode: caps
                .alpha_modes
                .first()
                .copied()
                .unwrap_or(wgpu::CompositeAlphaMode::Auto),
            view_formats,
            color_space: Default::default(),
        };
        surface.configure(&gpu.device, &config);
        let behaviour = BehaviourSettings {
            // A slow frame catches the flock up by at most 4 steps.
            max_catch_up: Some(4),
            ..args.behaviour_settings()
        };
        let mut renderer_config = RendererConfig::for_model(
            &prepared,
            config.width,
            config.height,
            count,
            args.seed,
            scene_format,
        );
        renderer_config.behaviour = behaviour;
        renderer_config.cull = args.cull.settings();
        renderer_config.shadows = args.shadows.settings();
        renderer_config.targets = args.aa.targets();
        let mut renderer = scene_renderer(&gpu, &prepared, &scene_rest, count, &renderer_config)?;
        crate::app::say_unavailable(&renderer);
        renderer.set_technique(args.technique)?;
        renderer.post.show_motion = args.aa.motion_view;
        let camera = renderer.camera_at(0.0, 1.0);
        let camera = args.camera.map_or(camera, |spec| spec.apply(camera));

        let egui_ctx = egui::Context::default();
        let egui_state = egui_winit::State::new(
            egui_ctx.clone(),
            egui::ViewportId::ROOT,
            &window,
            Some(window.scale_factor() as f32),
            None,
            Some(gpu.caps.max_texture_dimension_2d as usize),
        );
        let egui_renderer = egui_wgpu::Renderer::new(
            &gpu.device,
            format.remove_srgb_suffix(),
            egui_wgpu::RendererOptions::default(),
        );
        let choice = prepared.choice.clone();
        let ui = UiState {
            model: ModelPick::of(&choice),
            file_path: match &choice {
                ModelChoice::File(p) => p.display().to_string(),
                _ => String::new(),
            },
            count,
            clip: prepared.clip,
            scene_clips: scene_rest.iter().map(|(l, _)| l.clip).collect(),
            playback: 1.0,
            spread: 1.0,
            interpolate: true,
            vsync,
            technique: args.technique,
            paused: args.paused,
            behaviour,
            // A target given with --camera stays where it was put.
            follow_herd: args.camera.is_none_or(|c| c.target.is_none()),
            precision: prepared.vat.precision,
            cull: args.cull.settings(),
            motion: args.motion,
            recent: super::super::recent::RecentFiles::load(),
            shadows: args.shadows.settings(),
            targets: args.aa.targets(),
            motion_blur: args.aa.motion_blur,
            scene: Default::default(),
        };
        Ok(Running {
            motion: args.motion,
            window,
            surface,
            config,
            gpu,
            renderer,
            prepared,
            egui_ctx,
            egui_state,
            egui_renderer,
            camera,
            ui,
            scene_time: if args.paused { args.time } else { 0.0 },
            show_panel: !args.no_panel,
            stage: None,
            last_frame: Instant::now(),
            frame_ms: History::new(4.0),
            cpu_ms: None,
            started: Instant::now(),
            frames: 0,
            drag: Drag::default(),
            message,
            measure: MeasureAll::default(),
            parity: None,
            losses: 0,
            flock_goal: None,
            rebuilt_at: None,
            scene_rest,
        })
    }

    /// Natively: the device for the window's surface, waited for here.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn finish_now(self, args: &ViewerArgs, count: u32) -> anyhow::Result<Running> {
        let gpu = pollster::block_on(GpuContext::new(self.instance.clone(), Some(&self.surface)))?;
        self.finish(gpu, args, count)
    }
}

/// The surface's format: an sRGB one, else an 8-bit plain one (a browser's
/// canvas: its sRGB view is taken), else the first offered.
fn surface_format(formats: &[wgpu::TextureFormat]) -> Option<wgpu::TextureFormat> {
    use wgpu::TextureFormat::{Bgra8Unorm, Rgba8Unorm};
    formats
        .iter()
        .find(|f| f.is_srgb())
        .or_else(|| {
            formats
                .iter()
                .find(|f| matches!(f, Bgra8Unorm | Rgba8Unorm))
        })
        .or_else(|| formats.first())
        .copied()
}

#[cfg(test)]
mod tests {
    use super::surface_format;
    use wgpu::TextureFormat::*;

    #[test]
    fn the_surface_format_is_srgb_or_an_8_bit_one_with_an_srgb_view() {
        assert_eq!(
            surface_format(&[Bgra8Unorm, Bgra8UnormSrgb]),
            Some(Bgra8UnormSrgb)
        );
        // A browser's canvas: float first, no sRGB format.
        assert_eq!(
            surface_format(&[Rgba16Float, Bgra8Unorm, Rgba8Unorm]),
            Some(Bgra8Unorm)
        );
        assert_eq!(surface_format(&[Rgba16Float]), Some(Rgba16Float));
        assert_eq!(surface_format(&[]), None);
    }
}
