//! The winit window: surface, input, egui, and the frame loop.

mod actions;
mod capture;
mod recover;
mod redraw;
mod scene;
mod stage;
mod start;
#[cfg(target_arch = "wasm32")]
mod web;
#[cfg(target_arch = "wasm32")]
pub use web::{flags as web_flags, install_logging, show_error};

use super::ViewerArgs;
use super::measure::MeasureAll;
use super::ui::{Action, UiState};
use crate::crowd::parity::Parity;
use crate::crowd::scene_spec::SceneSpec;
use crate::crowd::setup::{Loaded, MotionChoice};
use crate::gpu::GpuContext;
use crate::render::{Camera, History, Renderer, RendererConfig};
use std::sync::Arc;
use web_time::Instant;
use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{Key, ModifiersState, NamedKey};
use winit::window::{Window, WindowId};

/// Why the viewer cannot open its window.
#[derive(Debug, thiserror::Error)]
pub enum WindowError {
    #[error(
        "there is no display to open a window on ({reason}). To get a picture anyway, render one frame without a window: `stampede --headless --screenshot out.png` (with the same flags), or run the viewer on a virtual display: `xvfb-run -a -s \"-screen 0 1280x720x24\" stampede`"
    )]
    NoDisplay { reason: String },
    #[error("could not start the window's event loop: {0}")]
    EventLoop(#[from] winit::error::EventLoopError),
}

/// The event loop, or a plain explanation when there is no display to
/// open a window on (winit names the variables it looked for, with a path
/// into its own source).
fn event_loop() -> Result<EventLoop<()>, WindowError> {
    let unix = cfg!(all(
        unix,
        not(target_os = "macos"),
        not(target_os = "android")
    ));
    match EventLoop::new() {
        Ok(event_loop) => Ok(event_loop),
        Err(e) if unix => {
            log::debug!("winit: {e}");
            let set: Vec<String> = ["WAYLAND_DISPLAY", "DISPLAY"]
                .iter()
                .filter_map(|v| {
                    let value = std::env::var(v).ok().filter(|x| !x.is_empty())?;
                    Some(format!("{v}={value}"))
                })
                .collect();
            let reason = if set.is_empty() {
                "neither DISPLAY nor WAYLAND_DISPLAY is set".to_string()
            } else {
                format!("cannot connect to the display at {}", set.join(", "))
            };
            Err(WindowError::NoDisplay { reason })
        }
        Err(e) => Err(e.into()),
    }
}

pub fn run(args: ViewerArgs, scene: SceneSpec, count: u32) -> anyhow::Result<()> {
    let event_loop = event_loop()?;
    event_loop.set_control_flow(ControlFlow::Poll);
    let app = App {
        args,
        scene,
        count,
        running: None,
        error: None,
        #[cfg(target_arch = "wasm32")]
        web: None,
    };
    #[cfg(not(target_arch = "wasm32"))]
    {
        let mut app = app;
        event_loop.run_app(&mut app)?;
        match app.error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
    // A browser runs the loop between its own events: this returns at once
    // and errors are shown on the page.
    #[cfg(target_arch = "wasm32")]
    {
        use winit::platform::web::EventLoopExtWebSys;
        event_loop.spawn_app(app);
        Ok(())
    }
}

struct App {
    args: ViewerArgs,
    /// The models `--model` asked for.
    scene: SceneSpec,
    /// Their instances together (one model: its count, clamped).
    count: u32,
    running: Option<Running>,
    error: Option<anyhow::Error>,
    /// In a browser: the window waiting for its device, and the page's drops.
    #[cfg(target_arch = "wasm32")]
    web: Option<WebStart>,
}

#[cfg(target_arch = "wasm32")]
struct WebStart {
    starting: Option<start::Starting>,
    gpu: web::Later<Result<GpuContext, crate::gpu::GpuError>>,
    drops: web::Drops,
}

impl App {
    /// Stops the viewer with `e` (in a browser, shown on the page).
    fn fail(&mut self, event_loop: &ActiveEventLoop, e: anyhow::Error) {
        #[cfg(target_arch = "wasm32")]
        web::show_error(&format!("{e:#}"));
        self.error = Some(e);
        event_loop.exit();
    }
}

struct Running {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    gpu: Arc<GpuContext>,
    renderer: Renderer,
    prepared: Loaded,
    /// A scene's models after the first (`prepared`) with their counts;
    /// empty for one model.
    scene_rest: Vec<(Loaded, u32)>,
    /// The motion choice (`--motion`, then the panel's) the model was
    /// loaded with.
    motion: MotionChoice,
    egui_ctx: egui::Context,
    egui_state: egui_winit::State,
    egui_renderer: egui_wgpu::Renderer,
    camera: Camera,
    ui: UiState,
    scene_time: f64,
    /// The scene's own sRGB texture where the surface has none (a browser).
    stage: Option<stage::Stage>,
    /// The panel is drawn (F1 toggles it).
    show_panel: bool,
    last_frame: Instant,
    frame_ms: History,
    cpu_ms: Option<f32>,
    started: Instant,
    frames: u32,
    /// Where the flock's middle was at the last look (the camera's target
    /// eases towards it).
    flock_goal: Option<glam::Vec3>,
    drag: Drag,
    message: Option<String>,
    measure: MeasureAll,
    /// The parity error of the pose on screen, and when it was computed.
    parity: Option<(Instant, Parity)>,
    /// How many times a lost device was rebuilt.
    losses: u32,
    /// The frame number at the last rebuild.
    rebuilt_at: Option<u32>,
}

#[derive(Default)]
struct Drag {
    left: bool,
    right: bool,
    modifiers: ModifiersState,
    last: Option<(f64, f64)>,
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.running.is_some() {
            return;
        }
        #[cfg(not(target_arch = "wasm32"))]
        match start::Starting::new(event_loop, &self.args, &self.scene)
            .and_then(|s| s.finish_now(&self.args, self.count))
        {
            Ok(r) => self.running = Some(r),
            Err(e) => self.fail(event_loop, e),
        }
        #[cfg(target_arch = "wasm32")]
        if self.web.is_none() {
            match start::Starting::new(event_loop, &self.args, &self.scene) {
                Ok(s) => {
                    self.web = Some(WebStart {
                        gpu: web::request_gpu(s.instance.clone()),
                        starting: Some(s),
                        drops: web::listen_for_drops(),
                    })
                }
                Err(e) => self.fail(event_loop, e),
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(r) = &mut self.running else { return };
        let consumed = r.egui_state.on_window_event(&r.window, &event).consumed;
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => r.resize(size.width, size.height),
            WindowEvent::RedrawRequested => {
                if let Err(e) = r.redraw(&self.args) {
                    self.fail(event_loop, e);
                    return;
                }
                #[cfg(target_arch = "wasm32")]
                web::frames_drawn(&r.window, r.frames);
                if r.frames == 3 {
                    if let Some(path) = self.args.test_drop.clone() {
                        // Through the same handler as a real drop.
                        self.window_event(event_loop, _id, WindowEvent::DroppedFile(path));
                    }
                    let Some(r) = &mut self.running else { return };
                    if !self.args.test_scene.is_empty() {
                        r.test_scene(&self.args.test_scene);
                    }
                    if self.args.test_save_view
                        && let Err(e) = r.save_view()
                    {
                        r.message = Some(format!("could not save the view: {e:#}"));
                    }
                }
                let Some(r) = &mut self.running else { return };
                if self.args.frames.is_some_and(|n| r.frames >= n) {
                    log::info!(
                        "rendered {} frames in {:.2} s",
                        r.frames,
                        r.started.elapsed().as_secs_f32()
                    );
                    event_loop.exit();
                }
            }
            WindowEvent::DroppedFile(path) => r.drop_file(&path),
            WindowEvent::ModifiersChanged(m) => r.drag.modifiers = m.state(),
            WindowEvent::MouseInput { state, button, .. } => {
                let down = state == ElementState::Pressed && !consumed;
                match button {
                    MouseButton::Left => r.drag.left = down,
                    MouseButton::Right | MouseButton::Middle => r.drag.right = down,
                    _ => {}
                }
            }
            WindowEvent::CursorMoved { position, .. } => {
                let p = (position.x, position.y);
                if let Some(last) = r.drag.last {
                    let (dx, dy) = ((p.0 - last.0) as f32, (p.1 - last.1) as f32);
                    let pan = r.drag.right || (r.drag.left && r.drag.modifiers.shift_key());
                    if pan {
                        r.camera.pan(dx, dy, r.config.height as f32);
                    } else if r.drag.left {
                        r.camera.orbit(dx, dy);
                    }
                }
                r.drag.last = Some(p);
            }
            WindowEvent::MouseWheel { delta, .. } if !consumed => {
                let steps = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                r.camera.zoom(steps);
            }
            WindowEvent::KeyboardInput { event, .. }
                if !consumed && event.state == ElementState::Pressed =>
            {
                match &event.logical_key {
                    Key::Character(c) => match c.as_str() {
                        "f" | "F" => r.apply(Action::FrameCrowd),
                        "r" | "R" => r.apply(Action::ResetCamera),
                        _ => {}
                    },
                    Key::Named(NamedKey::F1) => r.show_panel = !r.show_panel,
                    Key::Named(NamedKey::F12) => {
                        if let Err(e) = r.save_view() {
                            r.message = Some(format!("could not save the view: {e:#}"));
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        #[cfg(target_arch = "wasm32")]
        self.web_step(event_loop);
        #[cfg(not(target_arch = "wasm32"))]
        let _ = event_loop;
        if let Some(r) = &self.running
            && r.config.width > 0
            && r.config.height > 0
        {
            r.window.request_redraw();
        }
    }
}

impl Running {
    fn resize(&mut self, width: u32, height: u32) {
        // Minimized: keep the old configuration and skip frames until restored.
        if width == 0 || height == 0 {
            self.config.width = 0;
            self.config.height = 0;
            return;
        }
        let max = self.gpu.caps.max_texture_dimension_2d;
        self.config.width = width.min(max);
        self.config.height = height.min(max);
        self.surface.configure(&self.gpu.device, &self.config);
        self.renderer.resize(self.config.width, self.config.height);
    }

    /// `--resize-test`: asks for a few window sizes, including tiny ones.
    fn resize_test_step(&mut self) {
        let sizes = [(800, 600), (320, 200), (1, 1), (1024, 640), (640, 360)];
        if self.frames % 5 == 4 {
            let (w, h) = sizes[(self.frames as usize / 5) % sizes.len()];
            log::info!("resize test: requesting {w}×{h}");
            if let Some(size) = self
                .window
                .request_inner_size(winit::dpi::PhysicalSize::new(w, h))
            {
                self.resize(size.width, size.height);
            }
        }
    }
}

/// The renderer of `first` alone, or of the scene of `first` (`count` of
/// it when alone) and `rest`.
fn scene_renderer(
    gpu: &Arc<GpuContext>,
    first: &Loaded,
    rest: &[(Loaded, u32)],
    count: u32,
    config: &RendererConfig,
) -> Result<Renderer, crate::render::RenderError> {
    let first_count = count.saturating_sub(rest.iter().map(|(_, c)| c).sum::<u32>());
    let models: Vec<crate::render::data::models::SceneModel<'_>> =
        std::iter::once(crate::render::data::models::SceneModel {
            loaded: first,
            count: first_count,
        })
        .chain(
            rest.iter()
                .map(|(loaded, count)| crate::render::data::models::SceneModel {
                    loaded,
                    count: *count,
                }),
        )
        .collect();
    Renderer::from_scene(gpu.clone(), &models, config)
}

fn present_mode(vsync: bool) -> wgpu::PresentMode {
    if vsync {
        wgpu::PresentMode::AutoVsync
    } else {
        wgpu::PresentMode::AutoNoVsync
    }
}
