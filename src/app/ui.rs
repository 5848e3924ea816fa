//! The egui side panel: what the user can change, and what the renderer reports.

use super::costs_ui::{self, CostsView};
use super::recent::RecentFiles;
use crate::crowd::setup::MotionChoice;
use crate::crowd::{BehaviourSettings, MAX_INSTANCES};
use crate::render::{History, TechniqueKind};
use crate::vat::{Precision, Vat};

/// What the panel edits. The window applies the changes after each frame's UI.
#[derive(Clone, Debug, PartialEq)]
pub struct UiState {
    pub model: ModelPick,
    pub file_path: String,
    pub count: u32,
    /// `None` = each instance its own clip.
    pub clip: Option<u32>,
    /// The same for each further model of a scene, in its order.
    pub scene_clips: Vec<Option<u32>>,
    pub playback: f32,
    pub spread: f32,
    pub interpolate: bool,
    pub vsync: bool,
    pub technique: TechniqueKind,
    pub paused: bool,
    /// The living crowd: herd or flock, crossfade, gait mix, flock weights.
    pub behaviour: BehaviourSettings,
    /// Keep the camera on the herd's centre as it moves.
    pub follow_herd: bool,
    /// The VAT's texel precision; changing it bakes the model again.
    pub precision: Precision,
    /// GPU culling and LOD.
    pub cull: crate::crowd::cull::CullSettings,
    /// Ground, air or auto (`--motion`); changing it loads the model again.
    pub motion: MotionChoice,
    /// The model files loaded last.
    pub recent: RecentFiles,
    /// The sun's shadows.
    pub shadows: crate::crowd::shadow::ShadowSettings,
    /// Anti-aliasing and the motion-vector view.
    pub targets: crate::render::passes::targets::TargetOptions,
    /// Motion blur (with TAA).
    pub motion_blur: bool,
    /// The scene's model list as the panel edits it.
    pub scene: super::scene_ui::SceneEdit,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelPick {
    Horse,
    Bird,
    File,
}

impl ModelPick {
    /// The panel's pick for a loaded model.
    pub fn of(choice: &crate::crowd::setup::ModelChoice) -> Self {
        use crate::crowd::setup::ModelChoice;
        match choice {
            ModelChoice::Horse => Self::Horse,
            ModelChoice::Bird => Self::Bird,
            ModelChoice::File(_) | ModelChoice::Dropped { .. } => Self::File,
        }
    }
}

/// What the panel shows but does not edit.
pub struct Stats<'a> {
    pub adapter: &'a str,
    /// What the device leaves out (a browser's WebGPU), one line each.
    pub limitations: &'a [String],
    pub frame_ms: &'a History,
    pub cpu_ms: Option<f32>,
    pub gpu_ms: Option<f32>,
    pub vat: &'a Vat,
    pub model_name: &'a str,
    pub vertices: usize,
    pub triangles: usize,
    pub capacity: u32,
    pub allocations: u32,
    pub message: Option<&'a str>,
    pub costs: CostsView<'a>,
    pub cull: super::cull_ui::CullView<'a>,
    pub shadows: super::shadow_ui::ShadowView,
    pub aa: super::aa_ui::AaView,
    /// The herd's schedule or the flock chooses the clips (behaviour on).
    pub behaviour_chooses_clips: bool,
    /// Each model's name and clips, in the scene's order.
    pub clips: Vec<super::clip_ui::ClipChoice<'a>>,
    /// The models drawn now, each with its count, and each one's bake and
    /// LOD figures.
    pub scene: &'a [super::scene_ui::SceneRow],
    pub scene_info: &'a [String],
}

/// Actions that need more than a field change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    LoadModel,
    /// Rebuild the crowd as the scene's draft lists.
    ApplyScene,
    FrameCrowd,
    ResetCamera,
    MeasureAll,
}

/// The panel; returns its actions and its width in points (the 3D view is
/// drawn beside it).
pub fn panel(ui: &mut egui::Ui, state: &mut UiState, stats: &Stats<'_>) -> (Vec<Action>, f32) {
    let mut actions = Vec::new();
    let response = egui::Panel::left("controls").default_size(400.0).show(ui, |ui| {
        egui::ScrollArea::vertical().show(ui, |ui| {
            ui.heading("Stampede");
            ui.label(egui::RichText::new(stats.adapter).small());
            for line in stats.limitations {
                ui.label(egui::RichText::new(format!("off: {line}")).small().weak());
            }
            ui.separator();

            ui.horizontal(|ui| {
                ui.label("Model");
                let before = state.model;
                ui.selectable_value(&mut state.model, ModelPick::Horse, "horse");
                ui.selectable_value(&mut state.model, ModelPick::Bird, "bird");
                ui.selectable_value(&mut state.model, ModelPick::File, "file");
                if state.model != before && state.model != ModelPick::File {
                    actions.push(Action::LoadModel);
                }
            });
            if state.model == ModelPick::File {
                ui.horizontal(|ui| {
                    ui.text_edit_singleline(&mut state.file_path);
                    if ui.button("Load").clicked() {
                        actions.push(Action::LoadModel);
                    }
                });
            }
            let picked = super::model_ui::model_options(ui, &mut state.motion, &state.recent);
            if let Some(path) = &picked.file {
                (state.model, state.file_path) = (ModelPick::File, path.clone());
            }
            if picked.motion_changed || picked.file.is_some() {
                actions.push(Action::LoadModel);
            }
            if super::scene_ui::scene_section(ui, &mut state.scene, stats.scene, stats.scene_info) {
                actions.push(Action::ApplyScene);
            }
            if let Some(msg) = stats.message {
                ui.colored_label(egui::Color32::from_rgb(240, 120, 90), msg);
            }

            ui.horizontal(|ui| {
                ui.label("Technique");
                egui::ComboBox::from_id_salt("technique")
                    .selected_text(state.technique.label())
                    .show_ui(ui, |ui| {
                        for &t in TechniqueKind::ALL {
                            ui.selectable_value(&mut state.technique, t, t.label());
                        }
                    });
            });
            ui.separator();

            if stats.scene.len() > 1 {
                ui.label(format!(
                    "Instances {} (each model's count under Scene)",
                    super::scene_ui::total(stats.scene)
                ));
            } else {
                ui.label("Instances");
                ui.add(egui::Slider::new(&mut state.count, 1..=MAX_INSTANCES).logarithmic(true));
                ui.horizontal(|ui| {
                    ui.add(egui::DragValue::new(&mut state.count).range(1..=MAX_INSTANCES).speed(10.0));
                    ui.label(format!("buffer {} ({} allocations)", stats.capacity, stats.allocations));
                });
            }

            ui.separator();
            // The comparison the panel exists for, above the fold: the
            // technique's costs and Measure all with its ratios.
            let fps = stats.frame_ms.rate().unwrap_or(0.0);
            ui.label(format!("{fps:.1} fps"));
            ui.label(format!(
                "CPU {} ms/frame   GPU {}",
                stats.cpu_ms.map_or("–".into(), |v| format!("{v:.2}")),
                stats.gpu_ms.map_or("n/a".into(), |v| format!("{v:.2} ms/frame"))
            ));
            if costs_ui::costs_section(ui, &stats.costs) {
                actions.push(Action::MeasureAll);
            }
            super::cull_ui::cull_section(ui, &mut state.cull, &stats.cull);
            super::shadow_ui::shadow_section(ui, &mut state.shadows, &stats.shadows);
            super::aa_ui::aa_section(ui, &mut state.targets, &mut state.motion_blur, &stats.aa);
            ui.separator();

            egui::CollapsingHeader::new("Playback").default_open(false).show(ui, |ui| {
            let mut chosen: Vec<Option<u32>> =
                std::iter::once(state.clip).chain(state.scene_clips.iter().copied()).collect();
            chosen.resize(stats.clips.len().max(1), None);
            super::clip_ui::clip_selectors(
                ui,
                &mut chosen,
                &stats.clips,
                stats.behaviour_chooses_clips,
            );
            state.clip = chosen[0];
            state.scene_clips = chosen[1..].to_vec();
            ui.add(egui::Slider::new(&mut state.playback, 0.0..=3.0).text("playback speed"));
            ui.add(egui::Slider::new(&mut state.spread, 0.0..=1.0).text("time-offset spread"));
            ui.checkbox(&mut state.interpolate, "interpolate between frames");
            ui.checkbox(&mut state.vsync, "vsync");
            ui.checkbox(&mut state.paused, "pause");
            ui.horizontal(|ui| {
                if ui.button("Frame crowd (F)").clicked() {
                    actions.push(Action::FrameCrowd);
                }
                if ui.button("Reset view (R)").clicked() {
                    actions.push(Action::ResetCamera);
                }
            });
            });
            behaviour_section(ui, state);
            ui.separator();

            egui::CollapsingHeader::new("Frame time").default_open(true).show(ui, |ui| {
                frame_graph(ui, stats.frame_ms);
            });
            egui::CollapsingHeader::new("Bake").default_open(true).show(ui, |ui| {
                let vat = stats.vat;
                ui.label(format!("{}: {} vertices, {} triangles", stats.model_name, stats.vertices, stats.triangles));
                ui.label(format!("{:.0} fps", vat.fps));
                ui.horizontal(|ui| {
                    ui.label("precision");
                    let before = state.precision;
                    for p in [Precision::F16, Precision::F32, Precision::Packed] {
                        ui.selectable_value(&mut state.precision, p, p.name()).on_hover_text(match p {
                            Precision::F16 => "two RGBA16F textures: 16 bytes a vertex a frame",
                            Precision::F32 => "two RGBA32F textures: exact, 32 bytes a vertex a frame",
                            Precision::Packed => "one Rgba16Uint texel: 16-bit position, octahedral normal, 8 bytes",
                        });
                    }
                    if state.precision != before {
                        actions.push(Action::LoadModel);
                    }
                });
                ui.label(format!(
                    "texture {}×{} × {} layer(s), {} rows/frame",
                    vat.layout.width, vat.layout.height, vat.layout.layers, vat.layout.rows_per_frame
                ));
                ui.label(format!("{:.2} MiB ({})", vat.total_bytes() as f64 / (1 << 20) as f64, if vat.normals.bytes().is_empty() { "one packed texture" } else { "positions + normals" }));
                ui.label(format!("baked in {:.0} ms", vat.bake_ms));
                let r = &vat.report;
                ui.label(format!("quantization error {:.2e} ({:.4}% of size)", r.quantization, r.quantization_relative * 100.0));
                ui.label(format!("interpolation error {:.2e} ({:.3}% of size)", r.interpolation, r.interpolation_relative * 100.0));
                ui.label(format!("normal error {:.2}° worst, {:.2}° mean", r.normal_quantization_degrees, r.normal_quantization_mean_degrees));
                for c in &vat.clips {
                    ui.label(format!(
                        "  {} — {} frames, {:.2} s{}",
                        c.name,
                        c.frame_count,
                        c.duration,
                        if c.looping { ", loops" } else { "" }
                    ));
                }
            });
            ui.separator();
            ui.label(egui::RichText::new("Left drag: orbit · right/shift drag: pan · wheel: zoom · F: frame · R: reset").small());
        });
    });
    (actions, response.response.rect.width())
}

/// Behaviour on/off, the crossfade, the herd's gait mix and the flock.
fn behaviour_section(ui: &mut egui::Ui, state: &mut UiState) {
    egui::CollapsingHeader::new("Living crowd").default_open(false).show(ui, |ui| {
        let b = &mut state.behaviour;
        ui.checkbox(&mut b.enabled, "behaviour (herd / flock)")
            .on_hover_text("Off: every instance loops its clip on the ring track or circles");
        ui.add(egui::Slider::new(&mut b.fade, 0.0..=2.0).text("crossfade s"));
        ui.label("Herd gait mix (horses)");
        for (w, name) in b.mix.iter_mut().zip(["walk", "gallop", "idle"]) {
            ui.add(egui::Slider::new(w, 0.0..=1.0).text(name));
        }
        ui.checkbox(&mut state.follow_herd, "follow the herd / flock");
        ui.label("Flock (birds)");
        super::flock_ui::flock_preset(ui, &mut b.flock);
        let f = &mut b.flock;
        ui.add(egui::Slider::new(&mut f.w_separation, 0.0..=10.0).text("separation"));
        ui.add(egui::Slider::new(&mut f.w_alignment, 0.0..=5.0).text("alignment"));
        ui.add(egui::Slider::new(&mut f.w_cohesion, 0.0..=5.0).text("cohesion"));
        ui.add(egui::Slider::new(&mut f.max_speed, 1.0..=20.0).text("max speed (sizes/s)"));
        if state.technique == TechniqueKind::Cpu && state.model == ModelPick::Bird {
            ui.colored_label(
                egui::Color32::from_rgb(240, 180, 90),
                "CPU skinning plays the flap only: it ignores the flock's flap/glide weight (GPU-side)",
            );
        }
    });
}

/// A small bar graph of the last frame times.
fn frame_graph(ui: &mut egui::Ui, history: &History) {
    let (rect, _) =
        ui.allocate_exact_size(egui::vec2(ui.available_width(), 60.0), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 2.0, ui.visuals().extreme_bg_color);
    let max = history.max().unwrap_or(16.7).max(16.7);
    let n = history.len().max(1);
    let w = rect.width() / n as f32;
    for (i, v) in history.values().enumerate() {
        let h = rect.height() * (v / max);
        let x = rect.left() + i as f32 * w;
        let color = if v > 33.4 {
            egui::Color32::from_rgb(230, 110, 80)
        } else {
            egui::Color32::from_rgb(110, 190, 120)
        };
        painter.rect_filled(
            egui::Rect::from_min_max(
                egui::pos2(x, rect.bottom() - h),
                egui::pos2(x + w.max(1.0), rect.bottom()),
            ),
            0.0,
            color,
        );
    }
    let y = rect.bottom() - rect.height() * (16.7 / max);
    painter.hline(
        rect.x_range(),
        y,
        egui::Stroke::new(1.0, egui::Color32::GRAY),
    );
    ui.label(format!(
        "mean {:.1} ms, worst {:.1} ms (line: 60 fps)",
        history.mean().unwrap_or(0.0),
        history.max().unwrap_or(0.0)
    ));
}
