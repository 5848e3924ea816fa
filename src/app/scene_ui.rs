//! The panel's scene: the models drawn together, each with its count. A
//! change (a count, a model removed or added) makes a draft of the list,
//! shown with its total; Apply rebuilds the crowd from it (models already
//! loaded are not baked again), Revert drops it.

use crate::crowd::MAX_INSTANCES;
use crate::crowd::setup::ModelChoice;

/// One model of the scene and how many of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SceneRow {
    pub choice: ModelChoice,
    pub count: u32,
}

/// What the section edits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SceneEdit {
    /// The list as changed, not yet applied (`None`: no change).
    pub draft: Option<Vec<SceneRow>>,
    /// The file the add row adds.
    pub add_file: String,
    /// The count the add row gives a new model.
    pub add_count: u32,
}

impl Default for SceneEdit {
    fn default() -> Self {
        Self {
            draft: None,
            add_file: String::new(),
            add_count: 1000,
        }
    }
}

/// The instances of `rows` together.
pub fn total(rows: &[SceneRow]) -> u64 {
    rows.iter().map(|r| r.count as u64).sum()
}

/// Why `rows` cannot be applied, if it cannot.
pub fn refusal(rows: &[SceneRow]) -> Option<String> {
    if rows.is_empty() {
        return Some("a scene needs a model: add one".into());
    }
    let max = crate::crowd::scene::MAX_SCENE_MODELS;
    if rows.len() > max {
        return Some(format!("a scene holds at most {max} models"));
    }
    let total = total(rows);
    (total > MAX_INSTANCES as u64).then(|| {
        format!(
            "{total} instances: more than the limit of {}",
            crate::cli::short_count(MAX_INSTANCES as u64)
        )
    })
}

/// The scene section over `applied` (what runs now, with `info`, each
/// model's bake and LOD figures); returns true when Apply was clicked (the
/// draft is then the list to build).
pub fn scene_section(
    ui: &mut egui::Ui,
    edit: &mut SceneEdit,
    applied: &[SceneRow],
    info: &[String],
) -> bool {
    let mut apply = false;
    egui::CollapsingHeader::new("Scene")
        .default_open(true)
        .show(ui, |ui| {
            let mut rows = edit.draft.clone().unwrap_or_else(|| applied.to_vec());
            let mut remove = None;
            let several = rows.len() > 1;
            for (i, row) in rows.iter_mut().enumerate() {
                ui.horizontal(|ui| {
                    ui.label(row.choice.label());
                    ui.add(
                        egui::DragValue::new(&mut row.count)
                            .range(1..=MAX_INSTANCES)
                            .speed(10.0),
                    );
                    if ui
                        .add_enabled(several, egui::Button::new("remove"))
                        .on_hover_text("drop this model from the scene")
                        .clicked()
                    {
                        remove = Some(i);
                    }
                });
                let figures = applied
                    .iter()
                    .position(|a| a.choice == row.choice)
                    .and_then(|k| info.get(k));
                if let Some(figures) = figures {
                    ui.label(egui::RichText::new(figures).small());
                }
            }
            if let Some(i) = remove {
                rows.remove(i);
            }
            let total = total(&rows);
            ui.label(format!(
                "total {} instances in {} model(s)",
                crate::cli::short_count(total),
                rows.len()
            ));
            add_row(ui, edit, &mut rows);
            if rows != applied {
                edit.draft = Some(rows.clone());
            } else {
                edit.draft = None;
            }
            if edit.draft.is_some() {
                let refused = refusal(&rows);
                ui.horizontal(|ui| {
                    if ui
                        .add_enabled(refused.is_none(), egui::Button::new("Apply"))
                        .on_hover_text(
                            "rebuild the crowd as listed (loaded models are not baked again)",
                        )
                        .clicked()
                    {
                        apply = true;
                    }
                    if ui.button("Revert").clicked() {
                        edit.draft = None;
                    }
                });
                if let Some(why) = refused {
                    ui.colored_label(egui::Color32::from_rgb(240, 120, 90), why);
                }
            }
        });
    apply
}

/// Adds `choice` with `count` to `rows` unless it is listed already.
pub fn add_model(rows: &mut Vec<SceneRow>, choice: ModelChoice, count: u32) {
    if !has(rows, &choice) {
        rows.push(SceneRow { choice, count });
    }
}

fn has(rows: &[SceneRow], choice: &ModelChoice) -> bool {
    rows.iter().any(|r| &r.choice == choice)
}

/// Adds the horse, the bird or a file (each once) with the add count.
fn add_row(ui: &mut egui::Ui, edit: &mut SceneEdit, rows: &mut Vec<SceneRow>) {
    ui.horizontal(|ui| {
        ui.label("add");
        ui.add(
            egui::DragValue::new(&mut edit.add_count)
                .range(1..=MAX_INSTANCES)
                .speed(10.0),
        );
        for (choice, name) in [
            (ModelChoice::Horse, "+ horse"),
            (ModelChoice::Bird, "+ bird"),
        ] {
            if ui
                .add_enabled(!has(rows, &choice), egui::Button::new(name))
                .clicked()
            {
                add_model(rows, choice, edit.add_count);
            }
        }
    });
    ui.horizontal(|ui| {
        ui.add(egui::TextEdit::singleline(&mut edit.add_file).hint_text("a .glb or .gltf file"));
        let file = ModelChoice::File(edit.add_file.trim().into());
        let ok = !edit.add_file.trim().is_empty() && !has(rows, &file);
        if ui.add_enabled(ok, egui::Button::new("+ file")).clicked() {
            add_model(rows, file, edit.add_count);
            edit.add_file.clear();
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::ui_test::Harness;

    fn row(choice: ModelChoice, count: u32) -> SceneRow {
        SceneRow { choice, count }
    }

    /// Adding a model makes a draft with the add count and the new total;
    /// Apply reports it; removing goes back to what runs (no draft);
    /// Revert drops a draft.
    #[test]
    fn models_are_added_removed_and_applied() {
        let applied = vec![row(ModelChoice::Horse, 2000)];
        let info = vec!["2448 vertices, baked in 37 ms".to_string()];
        let mut edit = SceneEdit::default();
        let mut clicked = false;
        let mut h = Harness::new();
        macro_rules! ui {
            () => {
                |ui: &mut egui::Ui| {
                    clicked |= scene_section(ui, &mut edit, &applied, &info);
                }
            };
        }
        h.show(ui!());
        assert!(
            h.shows("total 2.0k instances in 1 model(s)"),
            "{:?}",
            h.labels()
        );
        assert!(!h.shows("Apply"), "nothing to apply");
        h.click("+ bird", ui!());
        assert_eq!(
            edit.draft,
            Some(vec![
                row(ModelChoice::Horse, 2000),
                row(ModelChoice::Bird, 1000)
            ])
        );
        h.show(ui!());
        assert!(
            h.shows("total 3.0k instances in 2 model(s)"),
            "{:?}",
            h.labels()
        );
        h.click("Apply", ui!());
        assert!(clicked, "Apply is reported");
        clicked = false;
        h.click("Revert", ui!());
        assert_eq!(edit.draft, None);
        assert!(!clicked);
    }

    /// Removing a model of a scene drafts the rest; the last model left
    /// cannot be removed; a count past the limit is refused with why.
    #[test]
    fn removing_drafts_the_rest_and_the_last_stays() {
        let applied = vec![row(ModelChoice::Horse, 2000), row(ModelChoice::Bird, 500)];
        let mut edit = SceneEdit::default();
        let mut h = Harness::new();
        h.show(|ui: &mut egui::Ui| {
            scene_section(ui, &mut edit, &applied, &[]);
        });
        h.click("remove", |ui: &mut egui::Ui| {
            scene_section(ui, &mut edit, &applied, &[]);
        });
        let left = edit.draft.clone().expect("a draft");
        assert_eq!(left.len(), 1);
        assert!(applied.contains(&left[0]), "one of the two stays: {left:?}");
        h.show(|ui: &mut egui::Ui| {
            scene_section(ui, &mut edit, &applied, &[]);
        });
        let total = format!(
            "total {} instances in 1 model(s)",
            crate::cli::short_count(left[0].count as u64)
        );
        assert!(h.shows(&total), "{:?}", h.labels());
        // One row left: its remove does nothing.
        h.click("remove", |ui: &mut egui::Ui| {
            scene_section(ui, &mut edit, &applied, &[]);
        });
        assert_eq!(edit.draft, Some(left));
    }

    #[test]
    fn a_list_past_the_limits_is_refused_with_why() {
        assert!(refusal(&[]).unwrap().contains("needs a model"));
        let big = [
            row(ModelChoice::Horse, MAX_INSTANCES),
            row(ModelChoice::Bird, 1),
        ];
        assert!(refusal(&big).unwrap().contains("more than the limit"));
        assert_eq!(refusal(&big[1..]), None);
        assert_eq!(total(&big), MAX_INSTANCES as u64 + 1);
    }
}
