//! The panel's clip choice: one selector per model, each listing that
//! model's own clips (a scene's models play their own clips: the bird has
//! no gallop). `None` is "mixed": each instance its own clip.

/// One model's selector: its name (shown when there are several) and its
/// clips' names.
pub struct ClipChoice<'a> {
    pub model: String,
    pub clips: Vec<&'a str>,
}

/// The selectors for `models`, `chosen[m]` model `m`'s clip. Disabled, with
/// the reason, while the behaviour chooses the clips.
pub fn clip_selectors(
    ui: &mut egui::Ui,
    chosen: &mut [Option<u32>],
    models: &[ClipChoice<'_>],
    behaviour_chooses: bool,
) {
    let several = models.len() > 1;
    ui.add_enabled_ui(!behaviour_chooses, |ui| {
        for (m, (choice, model)) in chosen.iter_mut().zip(models).enumerate() {
            let name = |c: Option<u32>| {
                c.and_then(|c| model.clips.get(c as usize))
                    .map_or("mixed", |c| c)
                    .to_string()
            };
            ui.horizontal(|ui| {
                ui.label(if several {
                    format!("Clip of {}", model.model)
                } else {
                    "Clip".to_string()
                });
                egui::ComboBox::from_id_salt(("clip", m))
                    .selected_text(name(*choice))
                    .show_ui(ui, |ui| {
                        for (i, c) in model.clips.iter().enumerate() {
                            ui.selectable_value(choice, Some(i as u32), *c);
                        }
                        ui.selectable_value(choice, None, "mixed");
                    });
            })
            .response
            .on_disabled_hover_text(
                "Behaviour is on: the herd's gait schedule (or the flock) chooses each \
                 instance's clips. Turn behaviour off to pick one.",
            );
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::ui_test::Harness;

    /// A scene shows a selector per model with that model's own clips;
    /// picking one sets that model's clip only.
    #[test]
    fn each_model_picks_among_its_own_clips() {
        let models = [
            ClipChoice {
                model: "horse".into(),
                clips: vec!["walk", "gallop", "idle"],
            },
            ClipChoice {
                model: "bird".into(),
                clips: vec!["flap", "glide"],
            },
        ];
        let mut chosen = [Some(1), None];
        let mut h = Harness::new();
        macro_rules! ui {
            () => {
                |ui: &mut egui::Ui| clip_selectors(ui, &mut chosen, &models, false)
            };
        }
        h.show(ui!());
        assert!(
            h.shows_exactly("Clip of horse") && h.shows_exactly("Clip of bird"),
            "{:?}",
            h.labels()
        );
        // The bird's selector (showing "mixed") lists the bird's clips.
        h.click("mixed", ui!());
        assert!(
            h.find("flap").is_some() && h.find("walk").is_none(),
            "{:?}",
            h.labels()
        );
        h.click("glide", ui!());
        assert_eq!(chosen, [Some(1), Some(1)]);
        // One model: one plain selector.
        let mut one = [None];
        h.show(|ui: &mut egui::Ui| clip_selectors(ui, &mut one, &models[..1], false));
        assert!(h.shows_exactly("Clip") && h.find("Clip of horse").is_none());
    }
}
