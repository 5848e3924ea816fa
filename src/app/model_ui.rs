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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::ui_test::Harness;

    /// The motion buttons report a change; the recent files are offered in
    /// a menu (only when there are some) and the one clicked is returned.
    #[test]
    fn motion_and_recent_files_are_picked_by_clicking() {
        let dir = std::env::temp_dir().join(format!("stampede-model-ui-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let list = dir.join("recent.txt");
        let _ = std::fs::remove_file(&list);
        let mut recent = RecentFiles::load_from(&list);
        let mut motion = MotionChoice::Auto;
        let mut last = Picked::default();
        let mut h = Harness::new();
        macro_rules! ui {
            () => {
                |ui: &mut egui::Ui| {
                    let p = model_options(ui, &mut motion, &recent);
                    if p != Picked::default() {
                        last = p;
                    }
                }
            };
        }
        h.show(ui!());
        assert!(!h.shows("Recent"), "no menu without recent files");
        h.click("air", ui!());
        assert_eq!(motion, MotionChoice::Air);
        assert!(last.motion_changed);

        let (fox, deer) = (dir.join("Fox.glb"), dir.join("deer.glb"));
        recent.record(&fox).expect("recorded");
        recent.record(&deer).expect("recorded");
        last = Picked::default();
        h.show(ui!());
        assert!(h.shows("Recent"), "{:?}", h.labels());
        h.click("load a recent file…", ui!());
        // Newest first; each by its file name.
        assert!(h.find("deer.glb").is_some(), "menu open: {:?}", h.labels());
        h.click("Fox.glb", ui!());
        assert_eq!(
            last.file.as_deref(),
            Some(fox.display().to_string().as_str())
        );
        assert!(!last.motion_changed);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
