//! The panel's cost section: the active technique's costs, the parity
//! error of the pose on screen, and the "Measure all" table with the
//! skinning ÷ VAT and VAT ÷ static ratios.

use super::measure::MeasureAll;
use crate::crowd::parity::Parity;
use crate::render::{TechniqueCosts, TechniqueKind};

/// What the section shows.
pub struct CostsView<'a> {
    pub costs: TechniqueCosts,
    pub parity: Option<Parity>,
    pub measure: &'a MeasureAll,
}

/// Bytes as B, KiB or MiB.
pub fn bytes(b: u64) -> String {
    match b {
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

fn ms(v: Option<f32>) -> String {
    v.map_or("n/a".into(), |v| format!("{v:.2}"))
}

/// Draws the section; returns true when "Measure all" was pressed.
pub fn costs_section(ui: &mut egui::Ui, view: &CostsView<'_>) -> bool {
    let c = &view.costs;
    let mut clicked = false;
    egui::CollapsingHeader::new("Technique costs")
        .default_open(true)
        .show(ui, |ui| {
            ui.label(format!(
                "{}: CPU {:.2} ms · GPU {} ms per frame",
                c.kind,
                c.cpu_ms,
                ms(c.gpu_ms)
            ));
            if let Some(p) = c.pass {
                ui.label(format!(
                    "{}: {} instances, {} vertices · GPU {} ms",
                    p.name,
                    crate::cli::short_count(p.instances as u64),
                    crate::cli::short_count(p.vertices),
                    ms(p.gpu_ms)
                ))
                .on_hover_text(
                    "The technique's own compute pass, apart from the scene pass: each \
                     instance the camera or a shadow cascade draws, skinned once",
                );
            }
            ui.label(format!(
                "upload {}/frame · GPU memory {} (+ {} shared)",
                bytes(c.upload_bytes),
                bytes(c.gpu_memory_bytes),
                bytes(c.shared_memory_bytes)
            ))
            .on_hover_text(
                "The technique's own buffers and textures, and what every technique shares: \
                 the instances, the mesh and its textures, the herd's or flock's buffers",
            );
            if c.behaviour_ms > 0.0 {
                ui.label(format!(
                    "behaviour update {:.2} ms (herd table or flock steps)",
                    c.behaviour_ms
                ));
            }
            let warn = egui::Color32::from_rgb(240, 170, 90);
            if c.capped() {
                ui.colored_label(
                    warn,
                    format!(
                        "{} capped at {} of {}",
                        c.kind.label(),
                        c.drawn,
                        c.requested
                    ),
                );
            }
            if c.morphs_ignored {
                ui.colored_label(
                    warn,
                    format!("this model has morph targets; {} ignores them", c.kind),
                );
            }
            if let Some(p) = view.parity {
                ui.label(format!(
                    "parity VAT vs exact (live, compute) skinning: {:.2e} units ({:.3} % of size), {} instances",
                    p.max_error,
                    p.relative * 100.0,
                    p.instances
                ));
            }
            ui.horizontal(|ui| {
                let running = view.measure.running();
                if ui
                    .add_enabled(running.is_none(), egui::Button::new("Measure all"))
                    .clicked()
                {
                    clicked = true;
                }
                if let Some(k) = running {
                    ui.label(format!("measuring {k}…"));
                }
            });
            if !view.measure.rows.is_empty() {
                table(ui, view.measure);
            }
        });
    clicked
}

fn table(ui: &mut egui::Ui, m: &MeasureAll) {
    if ui
        .small_button("Copy as text")
        .on_hover_text("The results and ratios, tab-separated, to the clipboard")
        .clicked()
    {
        ui.ctx().copy_text(m.as_text());
    }
    egui::ScrollArea::horizontal()
        .id_salt("measure scroll")
        .show(ui, |ui| grid(ui, m));
    ratios(ui, m);
}

fn grid(ui: &mut egui::Ui, m: &MeasureAll) {
    egui::Grid::new("measure table")
        .striped(true)
        .min_col_width(0.0)
        .spacing([12.0, 4.0])
        .num_columns(7)
        .show(ui, |ui| {
            for h in [
                "technique",
                "count",
                "fps",
                "CPU ms",
                "GPU ms",
                "MB/s",
                "memory",
            ] {
                ui.label(egui::RichText::new(h).small().strong());
            }
            ui.end_row();
            for r in &m.rows {
                ui.label(r.kind.name());
                if r.drawn < r.count {
                    ui.label(format!("{} of {}", r.drawn, r.count));
                } else {
                    ui.label(r.count.to_string());
                }
                ui.label(format!("{:.1}", r.fps));
                ui.label(format!("{:.2}", r.cpu_ms));
                ui.label(ms(r.gpu_ms));
                ui.label(format!("{:.1}", r.upload_mb_s));
                ui.label(bytes(r.memory_bytes));
                ui.end_row();
            }
        });
}

fn ratios(ui: &mut egui::Ui, m: &MeasureAll) {
    let ratio = |ui: &mut egui::Ui, a: TechniqueKind, b: TechniqueKind| {
        let frame = m.frame_time_ratio(a, b);
        let gpu = m.gpu_ratio(a, b);
        if frame.is_none() && gpu.is_none() {
            return;
        }
        let fmt = |v: Option<f32>| v.map_or("n/a".into(), |v| format!("×{v:.2}"));
        ui.label(
            egui::RichText::new(format!(
                "{} ÷ {}: frame time {}, GPU {}",
                a.name(),
                b.name(),
                fmt(frame),
                fmt(gpu)
            ))
            .strong(),
        );
    };
    for (a, b) in super::measure::RATIOS {
        ratio(ui, a, b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::ui_test::Harness;
    use crate::render::PassStats;

    /// A capped technique says so, with what it drew of what was asked;
    /// a technique with its own pass shows that pass's counts and time.
    #[test]
    fn the_cap_line_and_the_skin_pass_show() {
        let measure = MeasureAll::default();
        let view = CostsView {
            costs: TechniqueCosts {
                kind: TechniqueKind::ComputeSkinning,
                drawn: 3426,
                requested: 100_000,
                cap: Some(3426),
                pass: Some(PassStats {
                    name: "skin pass",
                    instances: 1200,
                    vertices: 2_937_600,
                    gpu_ms: Some(1.25),
                }),
                ..Default::default()
            },
            parity: None,
            measure: &measure,
        };
        let mut h = Harness::new();
        h.show(|ui| {
            costs_section(ui, &view);
        });
        assert!(
            h.shows("Compute skinning (once per frame) capped at 3426 of 100000"),
            "{:?}",
            h.labels()
        );
        assert!(
            h.shows("skin pass: 1.2k instances, 2.9M vertices · GPU 1.25 ms"),
            "{:?}",
            h.labels()
        );
        let uncapped = CostsView {
            costs: TechniqueCosts {
                kind: TechniqueKind::Vat,
                drawn: 10,
                requested: 10,
                ..Default::default()
            },
            ..view
        };
        h.show(|ui| {
            costs_section(ui, &uncapped);
        });
        assert!(!h.shows("capped at"), "{:?}", h.labels());
        assert!(!h.shows("skin pass"), "{:?}", h.labels());
    }
}
