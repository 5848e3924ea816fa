//! The panel's culling and LOD section: the switches, the pixel budget, and
//! what the GPU drew last frame per level (read back a frame or two late).

use crate::cli::short_count;
use crate::crowd::cull::CullSettings;
use crate::lod::LodLevel;
use crate::render::{CullStats, TechniqueKind};

/// What the section shows.
pub struct CullView<'a> {
    pub stats: CullStats,
    pub levels: &'a [LodLevel],
    pub requested: u32,
    pub technique: TechniqueKind,
    /// Milliseconds the LOD chain took to build at load.
    pub lod_build_ms: f64,
}

/// Level colours of the tint view, as the shader draws them.
const TINTS: [egui::Color32; 4] = [
    egui::Color32::from_rgb(235, 235, 235),
    egui::Color32::from_rgb(110, 230, 110),
    egui::Color32::from_rgb(235, 215, 80),
    egui::Color32::from_rgb(235, 100, 85),
];

pub fn cull_section(ui: &mut egui::Ui, s: &mut CullSettings, view: &CullView<'_>) {
    egui::CollapsingHeader::new("Culling and LOD")
        .default_open(false)
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.checkbox(&mut s.culling, "frustum culling")
                    .on_hover_text("A compute pass keeps the instances whose bounds are in view");
                ui.checkbox(&mut s.lod, "LOD").on_hover_text(
                    "Coarser meshes and the nearest baked frame where their error, measured \
                     over every baked frame, projects under the pixel budget",
                );
            });
            ui.add_enabled(
                s.lod,
                egui::Slider::new(&mut s.lod_error_px, 0.0..=crate::cli::MAX_LOD_ERROR_PX)
                    .logarithmic(true)
                    .text("px error"),
            );
            ui.horizontal(|ui| {
                ui.add_enabled(
                    s.indirect(),
                    egui::Checkbox::new(&mut s.freeze, "freeze culling"),
                )
                .on_hover_text("Keep culling for the current view; fly out to see what was culled");
                ui.add_enabled(s.lod, egui::Checkbox::new(&mut s.lod_tint, "tint by level"));
            });
            let note = match view.technique {
                TechniqueKind::Cpu => {
                    "Culled on the GPU; CPU skinning still skins every instance on the CPU"
                }
                TechniqueKind::Skinning => {
                    "Culled on the GPU; the palettes are still sampled for every instance on the CPU"
                }
                _ => "Every technique goes through the same cull pass and levels",
            };
            ui.label(egui::RichText::new(note).small());
            let st = &view.stats;
            ui.label(format!(
                "drawn {} of {} instances, {} triangles",
                short_count(st.visible_total() as u64),
                short_count(view.requested as u64),
                short_count(st.triangles_total())
            ));
            egui::Grid::new("lod levels").striped(true).show(ui, |ui| {
                ui.label("level");
                ui.label("triangles");
                ui.label("error");
                ui.label("drawn");
                ui.end_row();
                for (l, level) in view.levels.iter().enumerate() {
                    ui.colored_label(TINTS[l.min(3)], format!("{l}"));
                    ui.label(level.triangles().to_string());
                    ui.label(format!("{:.2e}", level.error));
                    ui.label(short_count(st.visible.get(l).copied().unwrap_or(0) as u64));
                    ui.end_row();
                }
            });
            ui.label(
                egui::RichText::new(format!("levels built in {:.0} ms", view.lod_build_ms)).small(),
            );
        });
}
