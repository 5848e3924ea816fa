//! The panel's anti-aliasing section: MSAA, TAA or none, the motion-vector
//! view, motion blur (with TAA), and what TAA costs (its resolve's GPU time
//! and its history).

use crate::crowd::motion::Aa;
use crate::render::passes::targets::TargetOptions;

/// What the section shows but does not edit.
#[derive(Clone, Copy, Debug, Default)]
pub struct AaView {
    /// GPU milliseconds of the last timed TAA resolve.
    pub resolve_ms: Option<f32>,
    /// Bytes of TAA's history (and the previous velocity).
    pub history_bytes: u64,
    /// MSAA samples the targets have.
    pub samples: u32,
}

pub fn aa_section(ui: &mut egui::Ui, t: &mut TargetOptions, blur: &mut bool, view: &AaView) {
    egui::CollapsingHeader::new("Anti-aliasing")
        .default_open(false)
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.selectable_value(
                    &mut t.aa,
                    Aa::Msaa,
                    format!("MSAA {}×", view.samples.max(4)),
                )
                .on_hover_text("Multisampling: every edge sampled 4 times");
                ui.selectable_value(&mut t.aa, Aa::Taa, "TAA")
                    .on_hover_text(
                        "Temporal: a jittered frame blended with the history, reprojected \
                     by the motion vectors (the velocity target) and clipped to the \
                     frame's neighbourhood",
                    );
                ui.selectable_value(&mut t.aa, Aa::Off, "off");
            });
            ui.checkbox(&mut t.velocity, "show motion vectors")
                .on_hover_text(
                    "Each pixel's motion since the previous frame: hue = direction, \
                 brightness = length (full at 8 pixels), still = black",
                );
            ui.add_enabled_ui(t.aa == Aa::Taa, |ui| {
                ui.checkbox(blur, "motion blur")
                    .on_hover_text("Each pixel averaged along its motion, half a frame either side")
                    .on_disabled_hover_text(
                        "Needs TAA: with MSAA the picture is resolved straight into the \
                         window, which cannot be read",
                    );
            });
            if t.aa == Aa::Taa || t.velocity {
                ui.label("velocity target: written by the scene pass (Rg16Float)");
            }
            if t.aa == Aa::Taa {
                let ms = view
                    .resolve_ms
                    .map_or("n/a".into(), |v| format!("{v:.2} ms/frame"));
                ui.label(format!("TAA resolve (GPU): {ms}"));
                ui.label(
                    egui::RichText::new(format!(
                        "history: {:.1} MB",
                        view.history_bytes as f64 / 1e6
                    ))
                    .small(),
                );
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::ui_test::Harness;

    /// Collapsed, then opened; each control sets what it names, and TAA
    /// shows its costs.
    #[test]
    fn every_control_sets_its_setting() {
        let mut t = TargetOptions::default();
        let mut blur = false;
        let view = AaView {
            resolve_ms: Some(0.75),
            history_bytes: 16_600_000,
            samples: 4,
        };
        let mut h = Harness::new();
        macro_rules! ui {
            () => {
                |ui: &mut egui::Ui| aa_section(ui, &mut t, &mut blur, &view)
            };
        }
        h.show(ui!());
        assert!(h.find("Anti-aliasing").is_some(), "{:?}", h.labels());
        assert!(h.find("TAA").is_none(), "collapsed at first");
        h.click("Anti-aliasing", ui!());
        assert!(h.find("MSAA 4×").is_some(), "{:?}", h.labels());
        assert!(!h.shows("TAA resolve"), "no resolve under MSAA");
        h.click("TAA", ui!());
        assert_eq!(t.aa, Aa::Taa);
        assert!(h.shows("0.75 ms/frame"), "{:?}", h.labels());
        assert!(h.shows("16.6 MB"), "{:?}", h.labels());
        assert!(h.shows("velocity target"), "{:?}", h.labels());
        h.click("motion blur", ui!());
        assert!(blur, "motion blur is on with TAA");
        h.click("off", ui!());
        assert_eq!(t.aa, Aa::Off);
        assert!(!h.shows("velocity target"), "none without TAA or the view");
        h.click("show motion vectors", ui!());
        assert!(t.velocity);
        assert!(h.shows("velocity target"));
        h.click("MSAA 4×", ui!());
        assert_eq!(t.aa, Aa::Msaa);
        // Without TAA the blur's switch does nothing.
        h.click("motion blur", ui!());
        assert!(blur, "the disabled switch left it as it was");
    }
}
