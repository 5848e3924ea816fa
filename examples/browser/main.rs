//! The viewer in a browser, on WebGPU: the same renderer, panel and models
//! as the native window, compiled to WebAssembly. `scripts/web.sh --serve`
//! builds it with the page beside it (index.html) and serves it; the page's
//! address takes the viewer's flags: `?args=--model bird --count 2000`.
//!
//! Natively this example is empty (it only exists for wasm32).

#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn start() {
    stampede::app::run_in_browser();
}
