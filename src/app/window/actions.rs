//! What the panel's buttons do to the running viewer: frame or reset the
//! view, measure every technique, switch technique, load another model; and
//! the parity readout they keep fresh.

use super::Running;
use crate::app::ui::{Action, ModelPick};
use crate::crowd::parity::pose_parity;
use crate::crowd::setup::{ModelChoice, load_with};
use crate::render::{Renderer, RendererConfig, TechniqueKind};
use web_time::Instant;

impl Running {
    pub(super) fn apply(&mut self, action: Action) {
        match action {
            Action::FrameCrowd => {
                // The herd and the flock move: frame them where they are now.
                if let Some(c) = self.renderer.herd_camera(self.scene_time, 1.0) {
                    self.camera = c;
                } else if let Some(c) = self.renderer.flock_camera() {
                    self.camera = c;
                } else {
                    let bounds = self.renderer.crowd_bounds();
                    self.camera.frame(&bounds, self.renderer.aspect());
                }
            }
            Action::ResetCamera => self.camera = self.renderer.camera_at(self.scene_time, 1.0),
            Action::ApplyScene => {
                let Some(rows) = self.ui.scene.draft.take() else {
                    return;
                };
                if let Err(e) = self.apply_scene(&rows) {
                    log::warn!("could not build the scene: {e:#}");
                    self.message = Some(format!("{e:#}"));
                    // The draft stays for another try.
                    self.ui.scene.draft = Some(rows);
                }
            }
            Action::MeasureAll => {
                let first = self.measure.start(self.renderer.technique_kind());
                self.switch(first);
            }
            Action::LoadModel => {
                let choice = match self.ui.model {
                    ModelPick::Horse => ModelChoice::Horse,
                    ModelPick::Bird => ModelChoice::Bird,
                    // A dropped file's bytes are kept: it has no path.
                    ModelPick::File => match &self.prepared.choice {
                        ModelChoice::Dropped { name, .. } if name == self.ui.file_path.trim() => {
                            self.prepared.choice.clone()
                        }
                        _ => ModelChoice::File(self.ui.file_path.trim().into()),
                    },
                };
                self.load_choice(choice);
            }
        }
    }

    /// Loads `choice` in place of the model, or says in the panel why not.
    pub(super) fn load_choice(&mut self, choice: ModelChoice) {
        match self.load(choice.clone()) {
            Ok(()) => self.remember(&choice),
            Err(e) => {
                log::warn!("could not load the model: {e:#}");
                self.message = Some(format!("{e:#}"));
                self.ui.model = ModelPick::of(&self.prepared.choice);
                self.ui.precision = self.prepared.vat.precision;
                self.ui.motion = self.motion;
            }
        }
    }

    /// Switches technique (same crowd, time and camera), saying why not.
    pub(super) fn switch(&mut self, kind: TechniqueKind) {
        match self.renderer.set_technique(kind) {
            Ok(()) => self.ui.technique = kind,
            Err(e) => {
                self.message = Some(format!("{kind}: {e}"));
                self.ui.technique = self.renderer.technique_kind();
            }
        }
    }

    /// Recomputes the parity error about once a second.
    pub(super) fn update_parity(&mut self) {
        // The parity compares one model's VAT with its skinning.
        if self.renderer.scene().models.len() > 1 {
            self.parity = None;
            return;
        }
        let stale = self
            .parity
            .is_none_or(|(at, _)| at.elapsed().as_secs_f32() >= 1.0);
        if let (true, Some(frame)) = (stale, self.renderer.last_frame) {
            let p = &self.prepared;
            let crowd = &self.renderer.crowd();
            let view = self.renderer.behaviour().view();
            let parity = pose_parity(
                &p.model,
                &p.vat,
                &frame,
                view,
                crowd.seed(),
                crowd.count(),
                16,
            );
            self.parity = Some((Instant::now(), parity));
        }
    }

    /// After a new renderer of new models: the panel's technique on it
    /// (a refusal is the message), the clip, count and motion of what
    /// loaded, the opening view.
    pub(super) fn finish_rebuild(&mut self) {
        self.renderer.post.show_motion = self.ui.targets.velocity;
        self.parity = None;
        self.flock_goal = None;
        let technique = self.ui.technique;
        self.switch(technique);
        self.ui.clip = self.prepared.clip;
        self.ui.scene_clips = self.scene_rest.iter().map(|(l, _)| l.clip).collect();
        self.ui.count = self.renderer.crowd().count();
        self.motion = self.ui.motion;
        self.camera = self.renderer.camera_at(self.scene_time, 1.0);
    }

    /// A renderer's config for `loaded` (`count` of it) at `size`: the
    /// panel's behaviour, culling, shadows and targets, the crowd's seed.
    pub(super) fn renderer_config(
        &self,
        loaded: &crate::crowd::setup::Loaded,
        (width, height): (u32, u32),
        count: u32,
    ) -> RendererConfig {
        RendererConfig {
            behaviour: self.ui.behaviour,
            cull: self.ui.cull,
            shadows: self.ui.shadows,
            targets: self.ui.targets,
            ..RendererConfig::for_model(
                loaded,
                width,
                height,
                count,
                self.renderer.crowd().seed(),
                self.renderer.targets.format,
            )
        }
    }

    /// Replaces the model: bake, new renderer, same count and seed.
    pub(super) fn load(&mut self, choice: ModelChoice) -> anyhow::Result<()> {
        let prepared = load_with(
            &choice,
            self.prepared.vat.fps,
            self.ui.precision,
            None,
            self.ui.motion,
        )?;
        let size = (self.config.width.max(1), self.config.height.max(1));
        let config = self.renderer_config(&prepared, size, self.ui.count);
        self.renderer = Renderer::new(self.gpu.clone(), &prepared.model, &prepared.vat, &config)?;
        // One model replaces the scene.
        self.scene_rest.clear();
        self.prepared = prepared;
        self.message = None;
        self.finish_rebuild();
        self.window
            .set_title(&format!("Stampede — {}", self.prepared.model.name()));
        log::info!("loaded {}", self.prepared.choice.label());
        Ok(())
    }
}
