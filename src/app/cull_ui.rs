//! The panel's culling and LOD section: the switches, the pixel budget, and
//! what the GPU drew last frame per level (read back a frame or two late).

use crate::app::atlas_ui::AtlasView;
use crate::cli::short_count;
use crate::crowd::cull::{CullSettings, LOD_TINTS};
use crate::lod::LodLevel;
use crate::render::{CullStats, TechniqueKind};

/// What the section shows.
pub struct CullView<'a> {
    pub stats: CullStats,
    /// Each model's name and mesh levels.
    pub levels: Vec<(&'a str, &'a [LodLevel])>,
    pub requested: u32,
    pub technique: TechniqueKind,
    /// Milliseconds the LOD chain took to build at load.
    pub lod_build_ms: f64,
    /// The impostor atlas: its layout, and once drawn its bytes and time.
    pub atlas: AtlasView,
    pub occlusion: crate::app::occlusion_ui::OcclusionView,
    /// Why the last frame drew no splats though they were on, if it drew
    /// none (the device's limits).
    pub splat_error: Option<String>,
    /// Whether the camera's lists keep each instance's resolved state
    /// (`Culler::resolved_state`): `Err` says why they cannot.
    pub resolved_state: Result<bool, String>,
    /// Why the cascades cannot go over the camera's list of casters
    /// (`Culler::caster_list_unsupported`), if they cannot.
    pub caster_list_error: Option<&'static str>,
    /// GPU milliseconds of the cull passes before the scene (camera and
    /// cascades, `Renderer::cull_gpu_ms`), when timed.
    pub gpu_ms: Option<f32>,
    /// The cascades' part of them (`Renderer::cascade_cull_gpu_ms`).
    pub cascades_ms: Option<f32>,
}

/// Region `r`'s colour in the tint view, as the shader draws it (a little
/// darker, to read on the panel).
fn tint(r: usize) -> egui::Color32 {
    let [red, green, blue] = LOD_TINTS[r.min(LOD_TINTS.len() - 1)].map(|c| (c * 235.0) as u8);
    egui::Color32::from_rgb(red, green, blue)
}

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
            ui.horizontal(|ui| {
                ui.add_enabled(s.lod, egui::Checkbox::new(&mut s.impostors, "impostors"))
                    .on_hover_text(
                        "Far instances as one camera-facing quad each, from an atlas the GPU \
                         draws of the model's baked poses: the same for every technique, its \
                         cost too",
                    );
                ui.add_enabled(s.lod, egui::Checkbox::new(&mut s.coarse_levels, "coarse levels"))
                    .on_hover_text("The far field's levels of a few dozen and about a dozen triangles");
            });
            ui.add_enabled(
                s.lod && s.impostors,
                egui::Slider::new(&mut s.impostor_px, 1.0..=256.0)
                    .logarithmic(true)
                    .text("px impostor switch"),
            );
            ui.add_enabled(
                s.lod && s.impostors,
                egui::Checkbox::new(&mut s.tight_impostors, "tight impostor quads"),
            )
            .on_hover_text(
                "Each impostor's quad fitted to the texels its atlas cell covers in any frame; \
                 off: the bounding sphere's square",
            );
            ui.add_enabled(
                s.lod && s.impostors,
                egui::Checkbox::new(&mut s.splats, "splats"),
            )
            .on_hover_text(
                "Impostors under the splat switch are no quads: the cull pass adds each to its \
                 pixel, and one full-screen pass draws them",
            );
            ui.add_enabled(
                s.lod && s.impostors && s.splats,
                egui::Slider::new(&mut s.splat_px, 0.1..=8.0)
                    .logarithmic(true)
                    .text("px splat switch"),
            );
            if let (true, Some(e)) = (s.splats, &view.splat_error) {
                ui.label(egui::RichText::new(format!("no splats: {e}")).small());
            }
            ui.add_enabled(
                s.culling || s.lod,
                egui::Checkbox::new(&mut s.resolved_state, "state kept by the cull pass"),
            )
            .on_hover_text(
                "The cull pass keeps each listed instance's placement, clips and times with its \
                 list, and no vertex computes them again; off: every vertex computes them",
            );
            if let (true, Err(e)) = (s.resolved_state, &view.resolved_state) {
                ui.label(egui::RichText::new(format!("state computed per vertex: {e}")).small());
            }
            ui.add_enabled(
                s.culling,
                egui::Checkbox::new(&mut s.caster_list, "cascades cull the camera's list"),
            )
            .on_hover_text(
                "The camera's cull pass lists the instances inside any shadow cascade's box; the \
                 cascades' passes go over that list, not the whole crowd (the same casters)",
            );
            if let (true, Some(e)) = (s.caster_list, view.caster_list_error) {
                ui.label(egui::RichText::new(format!("every instance culled: {e}")).small());
            }
            crate::app::occlusion_ui::occlusion_controls(ui, s, &view.occlusion);
            let note = match view.technique {
                TechniqueKind::Cpu => {
                    "Culled on the GPU; CPU skinning still skins every instance on the CPU"
                }
                TechniqueKind::Skinning => {
                    "Culled on the GPU; the palettes are still sampled for every instance on the CPU"
                }
                TechniqueKind::ComputeBoneTexture => {
                    "Culled on the GPU; only what the camera and the cascades draw gets a palette \
                     (from the bone texture) and is skinned, once"
                }
                TechniqueKind::ComputeSkinning => {
                    "Culled on the GPU; the palettes are still sampled for every instance on the CPU, \
                     and only what the camera and the cascades draw is skinned, once"
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
            match (view.gpu_ms, view.cascades_ms) {
                (Some(ms), Some(c)) => {
                    ui.label(format!(
                        "cull passes (camera and cascades): {ms:.2} ms GPU, the cascades' {c:.2}"
                    ));
                }
                (Some(ms), None) => {
                    ui.label(format!("cull passes: {ms:.2} ms GPU"));
                }
                _ => {}
            }
            if view.levels.len() > 1 {
                let names: Vec<&str> = view.levels.iter().map(|(n, _)| *n).collect();
                ui.label(
                    egui::RichText::new(format!(
                        "each level's triangles and error per model: {}; drawn: every model's",
                        names.join(" / ")
                    ))
                    .small(),
                );
            }
            egui::Grid::new("lod levels").striped(true).show(ui, |ui| {
                ui.label("level");
                ui.label("triangles");
                ui.label("error");
                ui.label("drawn");
                ui.end_row();
                let deepest = view.levels.iter().map(|(_, l)| l.len()).max().unwrap_or(0);
                for l in 0..deepest {
                    let of = |f: &dyn Fn(&LodLevel) -> String| -> String {
                        let each: Vec<String> = view
                            .levels
                            .iter()
                            .map(|(_, levels)| levels.get(l).map_or("–".into(), f))
                            .collect();
                        each.join(" / ")
                    };
                    let coarse = view.levels.iter().any(|(_, ls)| ls.get(l).is_some_and(|x| x.coarse));
                    let name = if coarse { format!("{l} far") } else { format!("{l}") };
                    ui.colored_label(tint(l), name);
                    ui.label(of(&|x| x.triangles().to_string()));
                    ui.label(of(&|x| format!("{:.2e}", x.error)));
                    ui.label(short_count(st.visible.get(l).copied().unwrap_or(0) as u64));
                    ui.end_row();
                }
                ui.colored_label(tint(LOD_TINTS.len() - 1), "impostor");
                ui.label("2");
                ui.label(format!("≤ {:.0} px", s.impostor_px));
                ui.label(short_count(st.impostors() as u64));
                ui.end_row();
                ui.colored_label(tint(LOD_TINTS.len() - 1), "splat");
                ui.label("0");
                ui.label(format!("≤ {:.1} px", s.splat_px));
                ui.label(short_count(st.splats as u64));
                ui.end_row();
            });
            ui.label(
                egui::RichText::new(format!("levels built in {:.0} ms", view.lod_build_ms)).small(),
            );
            let a = &view.atlas;
            let atlas = match (&a.error, a.build_ms) {
                (Some(e), _) => e.clone(),
                (None, Some(ms)) => format!(
                    "{}, drawn in {ms:.0} ms; the same for every technique",
                    a.describe()
                ),
                (None, None) => format!("{}, drawn when first needed", a.describe()),
            };
            ui.label(egui::RichText::new(atlas).small());
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::ui_test::Harness;
    use crate::crowd::cull::DEFAULT_IMPOSTOR_PX;

    /// Opened, each control changes its setting; the per-level counts and
    /// the drawn total show what the GPU read back; controls that cannot
    /// apply are disabled.
    #[test]
    fn every_control_sets_its_setting_and_the_counts_show() {
        let levels = [
            LodLevel {
                index_count: 4756 * 3,
                ..Default::default()
            },
            LodLevel {
                index_count: 570 * 3,
                error: 0.07,
                ..Default::default()
            },
        ];
        let view = CullView {
            stats: CullStats {
                visible: [12, 340, 0, 0, 0, 0, 0],
                triangles: [12 * 4756, 340 * 570, 0, 0, 0, 0, 0],
                levels: 2,
                occluded: 0,
                splats: 4_321,
                ..CullStats::default()
            },
            levels: vec![("horse", &levels)],
            requested: 700,
            technique: TechniqueKind::Cpu,
            lod_build_ms: 57.0,
            atlas: AtlasView {
                layers: 44,
                cells: 60,
                cell: 32,
                bytes: 28 << 20,
                build_ms: Some(1510.0),
                error: None,
                models: 1,
            },
            occlusion: Default::default(),
            splat_error: Some("the adapter allows 8 storage buffers".into()),
            resolved_state: Err("the adapter has no indirect-first-instance".into()),
            caster_list_error: None,
            gpu_ms: Some(1.25),
            cascades_ms: Some(0.5),
        };
        let mut s = CullSettings::default();
        let mut h = Harness::new();
        macro_rules! ui {
            () => {
                |ui: &mut egui::Ui| cull_section(ui, &mut s, &view)
            };
        }
        h.show(ui!());
        assert!(h.find("frustum culling").is_none(), "collapsed at first");
        h.click("Culling and LOD", ui!());
        assert!(
            h.shows("drawn 352 of 700 instances, 250.9k triangles"),
            "{:?}",
            h.labels()
        );
        assert!(
            h.shows_exactly("340") && h.shows_exactly("7.00e-2"),
            "{:?}",
            h.labels()
        );
        assert!(
            h.shows("cull passes (camera and cascades): 1.25 ms GPU, the cascades' 0.50"),
            "{:?}",
            h.labels()
        );
        assert!(h.shows("CPU skinning still skins every instance"));
        assert!(
            h.shows("impostor atlas: 44 layers × 60 views of 32², 28.0 MiB, drawn in 1510 ms"),
            "{:?}",
            h.labels()
        );

        // The far field: impostors and coarse levels off and on, the
        // switch slider's ends.
        h.click("impostors", ui!());
        assert!(!s.impostors);
        h.click_slider_at(1, 0.98, ui!());
        assert_eq!(
            s.impostor_px, DEFAULT_IMPOSTOR_PX,
            "disabled without impostors"
        );
        h.click("impostors", ui!());
        assert!(s.impostors);
        h.show(ui!());
        h.click_slider_at(1, 0.02, ui!());
        assert!(s.impostor_px < 1.2, "{}", s.impostor_px);
        h.click_slider_at(1, 0.98, ui!());
        assert!(s.impostor_px > 200.0, "{}", s.impostor_px);
        h.click("coarse levels", ui!());
        assert!(!s.coarse_levels);
        h.click("coarse levels", ui!());
        assert!(s.coarse_levels);

        // The splat level: its count, why none was drawn, its switch.
        assert!(h.shows_exactly("4.3k"), "{:?}", h.labels());
        assert!(h.shows("no splats: the adapter allows 8 storage buffers"));
        h.click_slider_at(2, 0.98, ui!());
        assert!(s.splat_px > 7.0, "{}", s.splat_px);
        h.click("splats", ui!());
        assert!(!s.splats);
        h.click_slider_at(2, 0.02, ui!());
        assert!(s.splat_px > 7.0, "disabled without splats: {}", s.splat_px);
        h.click("splats", ui!());
        assert!(s.splats);

        // The resolved state: its switch, and why it is not kept.
        assert!(h.shows("state computed per vertex: the adapter has no indirect-first-instance"));
        h.click("state kept by the cull pass", ui!());
        assert!(!s.resolved_state);
        assert!(!h.shows("state computed per vertex"));
        h.click("state kept by the cull pass", ui!());
        assert!(s.resolved_state);
        h.click("cascades cull the camera's list", ui!());
        assert!(!s.caster_list);
        h.click("cascades cull the camera's list", ui!());
        assert!(s.caster_list);

        // The budget slider's rail (logarithmic): near 0 px at its left
        // end, near the most at its right.
        h.click_slider_at(0, 0.02, ui!());
        assert!(s.lod_error_px < 0.01, "{}", s.lod_error_px);
        h.click_slider_at(0, 0.98, ui!());
        let high = s.lod_error_px;
        assert!(high > 500.0, "{high}");

        h.click("tint by level", ui!());
        assert!(s.lod_tint);
        h.click("freeze culling", ui!());
        assert!(s.freeze);
        h.click("frustum culling", ui!());
        assert!(!s.culling);
        h.click("LOD", ui!());
        assert!(!s.lod);
        // With LOD off its budget and tint do nothing; with both off there
        // is nothing to freeze.
        h.click_slider_at(0, 0.02, ui!());
        assert_eq!(s.lod_error_px, high, "disabled: unchanged");
        h.click("tint by level", ui!());
        assert!(s.lod_tint, "disabled: unchanged");
        h.click("freeze culling", ui!());
        assert!(s.freeze, "disabled: unchanged");
        h.click("frustum culling", ui!());
        assert!(s.culling);
        h.click("freeze culling", ui!());
        assert!(!s.freeze);
    }

    /// A scene's level table shows each model's own levels (triangles and
    /// error per model, in the scene's order), not the first model's.
    #[test]
    fn a_scenes_levels_are_each_models() {
        let level = |tris: u32, error: f32| LodLevel {
            index_count: tris * 3,
            error,
            ..Default::default()
        };
        let horse = [level(4756, 0.0), level(570, 0.07)];
        let bird = [level(380, 0.0), level(96, 0.02), level(12, 0.5)];
        let view = CullView {
            stats: CullStats {
                visible: [30, 20, 5, 0, 0, 0, 0],
                levels: 3,
                ..CullStats::default()
            },
            levels: vec![("horse", &horse), ("bird", &bird)],
            requested: 60,
            technique: TechniqueKind::Vat,
            lod_build_ms: 12.0,
            atlas: AtlasView::default(),
            occlusion: Default::default(),
            splat_error: None,
            resolved_state: Ok(true),
            caster_list_error: None,
            // Timed, without shadows: no cascades' part.
            gpu_ms: Some(2.0),
            cascades_ms: None,
        };
        let mut s = CullSettings::default();
        let mut h = Harness::new();
        h.show(|ui: &mut egui::Ui| cull_section(ui, &mut s, &view));
        h.click("Culling and LOD", |ui: &mut egui::Ui| {
            cull_section(ui, &mut s, &view)
        });
        for text in ["4756 / 380", "570 / 96", "– / 12", "7.00e-2 / 2.00e-2"] {
            assert!(h.shows_exactly(text), "{text}: {:?}", h.labels());
        }
        assert!(h.shows("per model: horse / bird"), "{:?}", h.labels());
        assert!(
            h.shows_exactly("cull passes: 2.00 ms GPU"),
            "{:?}",
            h.labels()
        );
    }
}
