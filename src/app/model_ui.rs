//! The panel's model options under the model picker: how the model moves
//! (ground, air or auto, as `--motion`) and the model files loaded last.

use super::recent::RecentFiles;
use crate::crowd::setup::MotionChoice;

/// What the user asked for under the model picker.
#[derive(Debug, Default, PartialEq)]
pub struct Picked {
    /// The motion changed: load the model again with it.
    pub motion_changed: bool,
    /// A recent file to load.
    pub file: Option<String>,
}

/// The motion choice and the recent files.
pub fn model_options(ui: &mut egui::Ui, motion: &mut MotionChoice, recent: &RecentFiles) -> Picked {
    let mut picked = Picked::default();
    ui.horizontal(|ui| {
        ui.label("Motion");
        let before = *motion;
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
            ui.selectable_value(motion, m, name).on_hover_text(tip);
        }
        picked.motion_changed = *motion != before;
    });
    picked.file = recent_pick(ui, recent);
    picked
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
