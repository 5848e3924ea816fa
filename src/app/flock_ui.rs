//! The panel's flock presets and the tunings the sliders do not cover.

use crate::crowd::{FlockPreset, FlockTuning};

/// Preset buttons (murmuration, clumps) and the neighbour radius and roost
/// pull; the weight and speed sliders stay in the behaviour section.
pub fn flock_preset(ui: &mut egui::Ui, tuning: &mut FlockTuning) {
    ui.horizontal(|ui| {
        ui.label("preset");
        for preset in FlockPreset::ALL {
            let on = *tuning == preset.tuning();
            if ui.selectable_label(on, preset.name()).clicked() {
                *tuning = preset.tuning();
            }
        }
    });
    ui.add(egui::Slider::new(&mut tuning.neighbour_radius, 1.5..=10.0).text("sight (sizes)"))
        .on_hover_text("How far a bird sees the neighbours it aligns and gathers with");
    ui.add(egui::Slider::new(&mut tuning.roost, 0.0..=2.0).text("roost pull"))
        .on_hover_text("Pull towards the middle of the sky box: 0 lets clumps wander apart");
}
