//! The panel's occlusion culling controls (inside the culling section):
//! the switch (disabled, with the reason, where the device cannot), the
//! instances it hid last frame (read back a frame or two late), and the
//! depth pyramid's debug view with its mip.

use crate::cli::short_count;
use crate::crowd::cull::CullSettings;

/// What the controls show.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OcclusionView {
    /// Why the device cannot cull by occlusion (the GL backend), if so.
    pub unsupported: Option<String>,
    /// Instances the last read-back frame did not draw because nearer ones
    /// hid them.
    pub occluded: u32,
    /// The pyramid's mips (0 before one was built).
    pub mips: u32,
}

impl OcclusionView {
    /// What `renderer` has of its occlusion culling.
    pub fn of(renderer: &crate::render::Renderer) -> Self {
        let culler = renderer.culler();
        Self {
            unsupported: culler.occlusion_unsupported().map(str::to_owned),
            occluded: renderer.cull_stats().occluded,
            mips: culler
                .occlusion()
                .map_or(0, |o| o.pyramid.mip_sizes().len() as u32),
        }
    }
}

pub fn occlusion_controls(ui: &mut egui::Ui, s: &mut CullSettings, view: &OcclusionView) {
    let usable = s.indirect() && view.unsupported.is_none();
    ui.add_enabled(
        usable,
        egui::Checkbox::new(&mut s.occlusion, "occlusion culling"),
    )
    .on_hover_text(
        "Two phases: draw what was visible last frame, build a depth pyramid from it, \
             then draw only what the pyramid does not hide; every technique, every level",
    );
    if let Some(why) = &view.unsupported {
        ui.label(egui::RichText::new(format!("occlusion culling is off: {why}")).small());
        return;
    }
    if !s.indirect() {
        ui.label(
            egui::RichText::new(
                "occlusion culling runs in the cull pass: turn frustum culling or LOD on",
            )
            .small(),
        );
        return;
    }
    if !(usable && s.occlusion) {
        return;
    }
    ui.label(format!(
        "occluded {} (hidden behind nearer instances)",
        short_count(view.occluded as u64)
    ));
    let mut show = s.pyramid_mip.is_some();
    ui.horizontal(|ui| {
        ui.checkbox(&mut show, "show depth pyramid").on_hover_text(
            "One mip of the pyramid phase 2 tests against: near bright, far dark, empty blue",
        );
        let mut mip = s.pyramid_mip.unwrap_or(0);
        let top = view.mips.saturating_sub(1).max(1);
        ui.add_enabled(show, egui::Slider::new(&mut mip, 0..=top).text("mip"));
        s.pyramid_mip = show.then_some(mip);
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::ui_test::Harness;

    #[test]
    fn the_switch_the_count_and_the_pyramid_view() {
        let view = OcclusionView {
            unsupported: None,
            occluded: 1234,
            mips: 11,
        };
        let mut s = CullSettings {
            occlusion: true,
            ..CullSettings::default()
        };
        let mut h = Harness::new();
        macro_rules! ui {
            () => {
                |ui: &mut egui::Ui| occlusion_controls(ui, &mut s, &view)
            };
        }
        h.show(ui!());
        assert!(h.shows("occluded 1.2k"), "{:?}", h.labels());
        h.click("show depth pyramid", ui!());
        assert_eq!(s.pyramid_mip, Some(0));
        h.click_slider_at(0, 0.98, ui!());
        assert_eq!(s.pyramid_mip, Some(10));
        h.click("show depth pyramid", ui!());
        assert_eq!(s.pyramid_mip, None);
        h.click("occlusion culling", ui!());
        assert!(!s.occlusion);
        h.show(ui!());
        assert!(!h.shows("occluded"), "no count with it off");
    }

    #[test]
    fn a_device_without_it_says_why() {
        let view = OcclusionView {
            unsupported: Some("the GL backend cannot read a depth texture".into()),
            ..Default::default()
        };
        let mut s = CullSettings::default();
        let was = s.occlusion;
        let mut h = Harness::new();
        let ui = |ui: &mut egui::Ui| occlusion_controls(ui, &mut s, &view);
        h.show(ui);
        assert!(
            h.shows("occlusion culling is off: the GL backend"),
            "{:?}",
            h.labels()
        );
        let ui = |ui: &mut egui::Ui| occlusion_controls(ui, &mut s, &view);
        h.click("occlusion culling", ui);
        assert_eq!(s.occlusion, was, "disabled");
    }

    #[test]
    fn without_the_cull_pass_it_says_what_turns_it_on() {
        let view = OcclusionView::default();
        let mut s = CullSettings {
            occlusion: true,
            culling: false,
            lod: false,
            ..CullSettings::default()
        };
        assert!(!s.indirect());
        let mut h = Harness::new();
        let ui = |ui: &mut egui::Ui| occlusion_controls(ui, &mut s, &view);
        h.show(ui);
        assert!(h.shows("runs in the cull pass"), "{:?}", h.labels());
        assert!(!h.shows("occluded"), "{:?}", h.labels());
    }
}
