//! F12: the 3D view (without the panel) saved as a PNG in the folder the
//! viewer was started from, dropped model files, and the recent files.

use super::super::ui::ModelPick;
use super::Running;
use crate::crowd::setup::ModelChoice;
use crate::render::headless::RgbaImage;
use crate::render::offscreen::Offscreen;
use std::path::{Path, PathBuf};

impl Running {
    /// Renders the scene once more into an offscreen texture the size of
    /// the window and writes it to the first free `stampede-N.png` in the
    /// current folder. Says where in the panel and the log.
    pub(super) fn save_view(&mut self) -> anyhow::Result<PathBuf> {
        let (width, height) = (self.config.width.max(1), self.config.height.max(1));
        let format = self.renderer.targets.format;
        let target = Offscreen::new(&self.gpu.device, "saved view", format, width, height);
        let mut encoder = self
            .gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("saved view"),
            });
        let settings = self.frame_settings();
        self.renderer
            .encode(&mut encoder, target.view(), &self.camera, &settings)?;
        target.copy_out(&mut encoder);
        self.gpu.queue.submit([encoder.finish()]);
        self.renderer.after_submit();
        let bytes = target.read(&self.gpu)?;
        let bgra = matches!(
            format,
            wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb
        );
        // Only the 3D view, not the part the panel covers.
        let (left, view_width) = self.renderer.view_span();
        let mut pixels = Vec::with_capacity((view_width * height * 4) as usize);
        for row in bytes.chunks((width * 4) as usize) {
            for px in row[(left * 4) as usize..((left + view_width) * 4) as usize].chunks(4) {
                if bgra {
                    pixels.extend_from_slice(&[px[2], px[1], px[0], 255]);
                } else {
                    pixels.extend_from_slice(&[px[0], px[1], px[2], 255]);
                }
            }
        }
        let path = free_name(Path::new("."));
        RgbaImage {
            width: view_width,
            height,
            pixels,
        }
        .save_png(&path)?;
        let shown = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        log::info!("saved the view to {}", shown.display());
        self.message = Some(format!("saved the view to {}", shown.display()));
        Ok(shown)
    }

    /// A `.gltf`/`.glb` dropped on the window: loaded like the panel's file
    /// field (on failure the error shows in the panel and the model stays).
    /// Adds a model file that loaded to the recent files.
    pub(super) fn remember(&mut self, choice: &ModelChoice) {
        if let ModelChoice::File(path) = choice {
            let path = std::path::absolute(path).unwrap_or_else(|_| path.clone());
            if let Err(e) = self.ui.recent.record(&path) {
                log::warn!("{e}");
            }
        }
    }

    pub(super) fn drop_file(&mut self, path: &Path) {
        self.drop_model(ModelChoice::File(path.to_owned()));
    }

    /// In a browser: a file's bytes dropped on the page.
    #[cfg(target_arch = "wasm32")]
    pub(super) fn drop_bytes(&mut self, name: String, bytes: Vec<u8>) {
        self.drop_model(ModelChoice::Dropped {
            name,
            bytes: bytes.into(),
        });
    }

    fn drop_model(&mut self, choice: ModelChoice) {
        let shown = choice.label();
        let lower = shown.to_ascii_lowercase();
        if !(lower.ends_with(".glb") || lower.ends_with(".gltf")) {
            self.message = Some(format!(
                "{shown}: not a glTF model (drop a .glb or .gltf file)"
            ));
            return;
        }
        // Into a scene of several models, a dropped model is added to the
        // list (Apply builds it); with one model it replaces it.
        if !self.scene_rest.is_empty() {
            let mut rows = self
                .ui
                .scene
                .draft
                .take()
                .unwrap_or_else(|| self.scene_rows());
            crate::app::scene_ui::add_model(&mut rows, choice, self.ui.scene.add_count);
            self.ui.scene.draft = Some(rows);
            self.message = Some(format!(
                "{shown}: added to the scene's list; Apply builds it"
            ));
            return;
        }
        self.ui.model = ModelPick::File;
        self.ui.file_path = shown;
        self.load_choice(choice);
    }
}

/// The first `stampede-N.png` (N = 1, 2, …) that does not exist in `dir`.
fn free_name(dir: &Path) -> PathBuf {
    (1u64..)
        .map(|n| dir.join(format!("stampede-{n}.png")))
        .find(|p| !p.exists())
        .unwrap_or_else(|| dir.join("stampede.png"))
}
