//! The panel's shadow section: the switch, the cascade count, the map
//! resolution, the casters' error budget, the cascade tint, what each
//! cascade drew, and the shadow passes' own GPU time.

use crate::cli::short_count;
use crate::crowd::shadow::{MAX_CASCADES, RESOLUTIONS, ShadowSettings};
use crate::render::CullStats;

/// What the section shows but does not edit.
#[derive(Clone, Copy, Debug, Default)]
pub struct ShadowView {
    /// GPU milliseconds of the last timed shadow passes.
    pub gpu_ms: Option<f32>,
    /// Bytes of the maps and the cascades' cull outputs.
    pub gpu_bytes: u64,
    /// What each cascade drew in the last frame read back (nearest
    /// first): casters, triangles, and the casters in its box dropped
    /// because their shadow cannot reach the view.
    pub cascades: [Option<CascadeDrew>; MAX_CASCADES],
}

/// One cascade's draws, for the panel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CascadeDrew {
    pub casters: u32,
    pub triangles: u64,
    pub dropped: u32,
}

impl ShadowView {
    /// The cascades' counts as the renderer last read them back.
    pub fn cascades_of(stats: &[Option<CullStats>]) -> [Option<CascadeDrew>; MAX_CASCADES] {
        std::array::from_fn(|c| {
            stats.get(c).copied().flatten().map(|s| CascadeDrew {
                casters: s.visible_total(),
                triangles: s.triangles_total(),
                dropped: s.dropped,
            })
        })
    }
}

/// Cascade colours of the tint view, as shaders/shadow.wgsl draws them.
const TINTS: [egui::Color32; MAX_CASCADES] = [
    egui::Color32::from_rgb(255, 115, 115),
    egui::Color32::from_rgb(115, 255, 115),
    egui::Color32::from_rgb(128, 153, 255),
    egui::Color32::from_rgb(255, 255, 102),
];

pub fn shadow_section(ui: &mut egui::Ui, s: &mut ShadowSettings, view: &ShadowView) {
    egui::CollapsingHeader::new("Shadows")
        .default_open(false)
        .show(ui, |ui| {
            ui.checkbox(&mut s.enabled, "sun shadows").on_hover_text(
                "Cascaded shadow maps: every technique casts through its own pose \
                 (the shadow gallops with the horse), culled per cascade from the sun",
            );
            ui.add_enabled_ui(s.enabled, |ui| {
                ui.add(
                    egui::Slider::new(&mut s.cascades, 1..=MAX_CASCADES as u32).text("cascades"),
                );
                ui.horizontal(|ui| {
                    ui.label("map");
                    for r in RESOLUTIONS {
                        ui.selectable_value(&mut s.resolution, r, format!("{r}²"));
                    }
                });
                ui.add(
                    egui::Slider::new(&mut s.caster_error_scale, 1.0..=4.0)
                        .step_by(0.5)
                        .text("casters' LOD error ×"),
                )
                .on_hover_text(
                    "The casters' LOD error budget in multiples of the camera's: a \
                     shadow is filtered and only darkens, so casters can take coarser \
                     levels than the camera draws (1: the camera's)",
                );
                ui.horizontal(|ui| {
                    ui.checkbox(&mut s.debug_tint, "tint by cascade");
                    if s.debug_tint {
                        for (i, c) in TINTS.iter().take(s.cascade_count()).enumerate() {
                            ui.colored_label(*c, format!("{}", i + 1));
                        }
                    }
                });
            });
            if s.enabled && view.cascades.iter().any(Option::is_some) {
                egui::Grid::new("cascade draws").show(ui, |ui| {
                    for head in ["cascade", "casters", "triangles", "dropped"] {
                        ui.label(egui::RichText::new(head).small());
                    }
                    ui.end_row();
                    for (i, c) in view.cascades.iter().enumerate() {
                        let Some(c) = c else { continue };
                        ui.label(format!("{}", i + 1));
                        ui.label(short_count(c.casters as u64));
                        ui.label(short_count(c.triangles));
                        ui.label(short_count(c.dropped as u64)).on_hover_text(
                            "Casters in the cascade's box whose shadow cannot reach what \
                             the camera sees: not drawn",
                        );
                        ui.end_row();
                    }
                });
            }
            let ms = view
                .gpu_ms
                .filter(|_| s.enabled)
                .map_or("n/a".into(), |v| format!("{v:.2} ms/frame"));
            ui.label(format!("shadow passes (GPU): {ms}"));
            ui.label(
                egui::RichText::new(format!(
                    "maps and cascade lists: {:.1} MB",
                    view.gpu_bytes as f64 / 1e6
                ))
                .small(),
            );
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::ui_test::Harness;

    /// The section as a user meets it: collapsed, then opened; each
    /// control changes the setting it names.
    #[test]
    fn every_control_sets_its_setting() {
        let mut s = ShadowSettings::default();
        let mut cascades = [None; MAX_CASCADES];
        cascades[0] = Some(CascadeDrew {
            casters: 45,
            triangles: 24_890,
            dropped: 17,
        });
        cascades[1] = Some(CascadeDrew {
            casters: 422,
            triangles: 54_236,
            dropped: 3_021,
        });
        let view = ShadowView {
            gpu_ms: Some(1.25),
            gpu_bytes: 48_000_000,
            cascades,
        };
        let mut h = Harness::new();
        macro_rules! ui {
            () => {
                |ui: &mut egui::Ui| shadow_section(ui, &mut s, &view)
            };
        }
        h.show(ui!());
        assert!(h.find("Shadows").is_some(), "{:?}", h.labels());
        assert!(h.find("sun shadows").is_none(), "collapsed at first");
        h.click("Shadows", ui!());
        assert!(h.find("sun shadows").is_some(), "opened: {:?}", h.labels());
        assert!(h.shows("1.25 ms/frame"), "{:?}", h.labels());
        assert!(h.shows("48.0 MB"), "{:?}", h.labels());
        // Each cascade's casters, triangles and dropped casters.
        for text in [
            "casters", "dropped", "45", "24.9k", "17", "422", "54.2k", "3.0k",
        ] {
            assert!(h.shows_exactly(text), "{text}: {:?}", h.labels());
        }

        h.click("1024²", ui!());
        assert_eq!(s.resolution, 1024);
        h.click("4096²", ui!());
        assert_eq!(s.resolution, 4096);

        // The cascades slider's rail: its left end is one cascade, its
        // right end four.
        assert!(h.shows("cascades"));
        h.click_slider_at(0, 0.02, ui!());
        assert_eq!(s.cascades, 1);
        h.click_slider_at(0, 0.98, ui!());
        assert_eq!(s.cascades, MAX_CASCADES as u32);
        // The casters' error budget: 1 (the camera's) to 4.
        assert!(h.shows("casters' LOD error ×"));
        h.click_slider_at(1, 0.02, ui!());
        assert_eq!(s.caster_error_scale, 1.0);
        h.click_slider_at(1, 0.98, ui!());
        assert_eq!(s.caster_error_scale, 4.0);

        h.click("tint by cascade", ui!());
        assert!(s.debug_tint);
        // One colour key per cascade in use.
        for i in 1..=MAX_CASCADES {
            assert!(h.shows_exactly(&i.to_string()), "key {i}: {:?}", h.labels());
        }

        h.click("sun shadows", ui!());
        assert!(!s.enabled);
        assert!(h.shows("n/a"), "no shadow time when off: {:?}", h.labels());
        // Off, the other controls do nothing.
        h.click("1024²", ui!());
        assert_eq!(s.resolution, 4096);
        h.click("sun shadows", ui!());
        assert!(s.enabled);
    }
}
