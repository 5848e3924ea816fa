//! The viewer in a browser: the page's canvas, the flags from the page's
//! address, WebGPU's device handed over asynchronously, dropped models read
//! from the page, and errors shown on the page instead of a blank canvas.

use crate::gpu::{GpuContext, GpuError};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use winit::platform::web::WindowAttributesExtWebSys;
use winit::window::WindowAttributes;

/// The page element the viewer draws into (made when the page has none).
const CANVAS_ID: &str = "stampede";
/// The page element errors are written into (the body when missing).
const ERROR_ID: &str = "stampede-error";

fn document() -> Option<web_sys::Document> {
    web_sys::window()?.document()
}

/// The window's attributes for the page: its `<canvas id="stampede">`, or a
/// canvas appended to the body.
pub(super) fn in_page(attributes: WindowAttributes) -> WindowAttributes {
    let canvas = document()
        .and_then(|d| d.get_element_by_id(CANVAS_ID))
        .and_then(|e| e.dyn_into::<web_sys::HtmlCanvasElement>().ok());
    match canvas {
        Some(canvas) => attributes.with_canvas(Some(canvas)),
        None => attributes.with_append(true),
    }
}

/// The viewer's flags from the page's address: `?args=--count 500 --model
/// bird` (the same flags as on the command line; `+` or `%20` between them).
pub fn flags() -> Vec<String> {
    let search = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default();
    let args = web_sys::UrlSearchParams::new_with_str(&search)
        .ok()
        .and_then(|p| p.get("args"))
        .unwrap_or_default();
    std::iter::once("stampede".to_string())
        .chain(args.split_whitespace().map(str::to_string))
        .collect()
}

/// Shows `message` on the page (and in the console).
pub fn show_error(message: &str) {
    web_sys::console::error_1(&JsValue::from_str(message));
    let Some(document) = document() else { return };
    let target = document
        .get_element_by_id(ERROR_ID)
        .or_else(|| document.body().map(Into::into));
    if let Some(target) = target {
        target.set_text_content(Some(message));
        let _ = target.set_attribute("data-error", "1");
    }
}

/// Tells the page how many frames were drawn (`data-frames` on the canvas):
/// its scripts and the browser test wait for it.
pub(super) fn frames_drawn(window: &winit::window::Window, frames: u32) {
    use winit::platform::web::WindowExtWebSys;
    if let Some(canvas) = window.canvas() {
        let _ = canvas.set_attribute("data-frames", &frames.to_string());
    }
    // The page's "Baking the models…" gives way to the first frame.
    if frames == 1
        && let Some(note) = document().and_then(|d| d.get_element_by_id(ERROR_ID))
        && !note.has_attribute("data-error")
    {
        note.set_text_content(None);
    }
}

/// A value that arrives later (from a promise), taken once it is there.
pub(super) type Later<T> = Rc<RefCell<Option<T>>>;

/// Asks WebGPU for a device; it lands in the returned slot.
pub(super) fn request_gpu(instance: wgpu::Instance) -> Later<Result<GpuContext, GpuError>> {
    let slot: Later<Result<GpuContext, GpuError>> = Rc::default();
    let filled = slot.clone();
    wasm_bindgen_futures::spawn_local(async move {
        // A canvas can show any adapter's pictures: no surface is needed to
        // choose one.
        let gpu = GpuContext::new(instance, None).await;
        *filled.borrow_mut() = Some(gpu);
    });
    slot
}

/// Files dropped on the page, name and bytes, in the order they were read.
pub(super) type Drops = Rc<RefCell<Vec<(String, Vec<u8>)>>>;

/// Listens for files dropped anywhere on the page.
pub(super) fn listen_for_drops() -> Drops {
    let drops: Drops = Rc::default();
    let Some(document) = document() else {
        return drops;
    };
    // Without this the browser opens the file instead of dropping it.
    let over = Closure::<dyn FnMut(web_sys::DragEvent)>::new(|e: web_sys::DragEvent| {
        e.prevent_default();
    });
    let queue = drops.clone();
    let drop = Closure::<dyn FnMut(web_sys::DragEvent)>::new(move |e: web_sys::DragEvent| {
        e.prevent_default();
        let Some(files) = e.data_transfer().and_then(|d| d.files()) else {
            return;
        };
        for i in 0..files.length() {
            let Some(file) = files.get(i) else { continue };
            let queue = queue.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let name = file.name();
                match wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await {
                    Ok(buffer) => {
                        let bytes = js_sys::Uint8Array::new(&buffer).to_vec();
                        queue.borrow_mut().push((name, bytes));
                    }
                    Err(e) => show_error(&format!("{name}: could not be read: {e:?}")),
                }
            });
        }
    });
    for (event, handler) in [("dragover", &over), ("drop", &drop)] {
        let _ = document.add_event_listener_with_callback(event, handler.as_ref().unchecked_ref());
    }
    // The listeners live as long as the page.
    over.forget();
    drop.forget();
    drops
}

/// Log lines and panics to the browser's console; a panic also on the page.
pub fn install_logging() {
    struct Console;
    impl log::Log for Console {
        fn enabled(&self, metadata: &log::Metadata) -> bool {
            metadata.level() <= log::Level::Info
        }
        fn log(&self, record: &log::Record) {
            if !self.enabled(record.metadata()) || !record.target().starts_with("stampede") {
                return;
            }
            let line = JsValue::from_str(&format!("{}: {}", record.level(), record.args()));
            match record.level() {
                log::Level::Error => web_sys::console::error_1(&line),
                log::Level::Warn => web_sys::console::warn_1(&line),
                _ => web_sys::console::log_1(&line),
            }
        }
        fn flush(&self) {}
    }
    static CONSOLE: Console = Console;
    if log::set_logger(&CONSOLE).is_ok() {
        log::set_max_level(log::LevelFilter::Info);
    }
    std::panic::set_hook(Box::new(|info| {
        show_error(&format!("Stampede stopped: {info}"));
    }));
}

impl super::App {
    /// Between the browser's frames: finishes the viewer once WebGPU has
    /// handed over a device, and loads the files dropped on the page.
    pub(super) fn web_step(&mut self, event_loop: &winit::event_loop::ActiveEventLoop) {
        let Some(web) = &mut self.web else { return };
        if web.starting.is_some() {
            let Some(gpu) = web.gpu.borrow_mut().take() else {
                return;
            };
            let starting = web.starting.take().expect("checked above");
            let running = gpu
                .map_err(|e| anyhow::Error::new(e).context("WebGPU gave no device"))
                .and_then(|gpu| starting.finish(gpu, &self.args, self.count));
            match running {
                Ok(r) => {
                    // The page (and the browser test) can read what is off.
                    use winit::platform::web::WindowExtWebSys;
                    if let Some(canvas) = r.window.canvas() {
                        let off = r.gpu.limitations.join("; ");
                        let _ = canvas.set_attribute("data-limitations", &off);
                        let _ = canvas.set_attribute("data-adapter", &r.gpu.description());
                    }
                    r.window.request_redraw();
                    self.running = Some(r);
                }
                Err(e) => return self.fail(event_loop, e),
            }
        }
        let drops: Vec<(String, Vec<u8>)> = web.drops.borrow_mut().drain(..).collect();
        if let Some(r) = &self.running {
            // What the far field drew (the page passes it to the browser
            // test): the splats counted, or why there are none.
            use winit::platform::web::WindowExtWebSys;
            if let Some(canvas) = r.window.canvas() {
                let splats = match &r.renderer.splat_error {
                    Some(why) => format!("none: {why}"),
                    None => r.renderer.cull_stats().splats.to_string(),
                };
                let _ = canvas.set_attribute("data-splats", &splats);
            }
        }
        if let Some(r) = &mut self.running {
            for (name, bytes) in drops {
                r.drop_bytes(name, bytes);
            }
        }
    }
}
