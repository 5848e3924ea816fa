//! The panel's model options under the model picker: how the model moves
//! (ground, air or auto, as `--motion`) and the model files loaded last.

use super::recent::RecentFiles;
use super::ui::{Action, ModelPick, UiState};
use crate::crowd::setup::MotionChoice;

/// The motion choice and the recent files; a change loads the model again.
pub fn model_options(ui: &mut egui::Ui, state: &mut UiState, actions: &mut Vec<Action>) {
    ui.horizontal(|ui| {
        ui.label("Motion");
        let before = state.motion;
        for (m, name, tip) in [
            (
                MotionChoice::Auto,
                "auto",
                "the bird and models with a fly/flap/glide/soar clip fly; the rest walk",
            ),
            (
                MotionChoice::Ground,
                "ground",
                "on the ground, with the herd",
            ),
            (MotionChoice::Air, "air", "in the air, with the flock"),
        ] {
            ui.selectable_value(&mut state.motion, m, name)
                .on_hover_text(tip);
        }
        if state.motion != before {
            actions.push(Action::LoadModel);
        }
    });
    if let Some(path) = recent_pick(ui, &state.recent) {
        state.model = ModelPick::File;
        state.file_path = path;
        actions.push(Action::LoadModel);
    }
}

/// A menu of the recent files; the one clicked, if any.
fn recent_pick(ui: &mut egui::Ui, recent: &RecentFiles) -> Option<String> {
    if recent.entries().is_empty() {
        return None;
    }
    let mut picked = None;
    ui.horizontal(|ui| {
        ui.label("Recent");
        egui::ComboBox::from_id_salt("recent")
            .selected_text("load a recent file…")
            .width(ui.available_width() - 8.0)
            .show_ui(ui, |ui| {
                for path in recent.entries() {
                    let name = path.file_name().map_or_else(
                        || path.display().to_string(),
                        |n| n.to_string_lossy().into(),
                    );
                    if ui
                        .selectable_label(false, name)
                        .on_hover_text(path.display().to_string())
                        .clicked()
                    {
                        picked = Some(path.display().to_string());
                    }
                }
            });
    });
    picked
}
