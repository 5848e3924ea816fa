//! `--chart`: frame time against instance count per technique, log-log.
//!
//! plotters draws into an RGB buffer (its bitmap backend) and the `png` crate
//! writes it, so no image crate is needed. Text goes through plotters'
//! `ab_glyph` feature with the Ubuntu font that egui already ships
//! (`epaint_default_fonts`): pure Rust, no fontconfig or freetype.

use super::report::BenchReport;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// Why the chart could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    #[error("nothing to chart: no results")]
    Empty,
    #[error("could not draw the chart: {0}")]
    Draw(String),
    #[error("could not write {path}: {message}")]
    Write { path: PathBuf, message: String },
}

const WIDTH: u32 = 1200;
const HEIGHT: u32 = 750;
const FONT: &str = "sans-serif";

fn color(i: usize) -> RGBColor {
    const PALETTE: [RGBColor; 6] = [
        RGBColor(0x1f, 0x77, 0xb4),
        RGBColor(0xd6, 0x27, 0x28),
        RGBColor(0x2c, 0xa0, 0x2c),
        RGBColor(0xff, 0x7f, 0x0e),
        RGBColor(0x94, 0x67, 0xbd),
        RGBColor(0x8c, 0x56, 0x4b),
    ];
    PALETTE[i % PALETTE.len()]
}

/// A log axis range around `values` (padded, never empty).
fn log_range(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let (lo, hi) = values
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
    (lo <= hi).then(|| (lo / 1.5, hi * 1.5))
}

fn draw_err(e: impl std::fmt::Display) -> ChartError {
    ChartError::Draw(e.to_string())
}

/// Draws wall-clock p50 (solid, dots) and CPU p50 (thin, triangles) per
/// technique against the count, and writes the PNG.
pub fn write_chart(report: &BenchReport, path: &Path) -> Result<(), ChartError> {
    let (x0, x1) =
        log_range(report.results.iter().map(|r| r.count as f64)).ok_or(ChartError::Empty)?;
    let (y0, y1) = log_range(
        report
            .results
            .iter()
            .flat_map(|r| [r.wall_ms.p50, r.cpu_ms.p50]),
    )
    .ok_or(ChartError::Empty)?;
    // The embedded font (plotters draws text with ab_glyph natively; on
    // wasm32 its text goes through the browser, and `bench` is not run
    // there).
    #[cfg(not(target_arch = "wasm32"))]
    plotters::style::register_font(FONT, FontStyle::Normal, epaint_default_fonts::UBUNTU_LIGHT)
        .map_err(|_| ChartError::Draw("the embedded font is not a valid font".into()))?;

    let mut techniques: Vec<&str> = Vec::new();
    for r in &report.results {
        if !techniques.contains(&r.technique.as_str()) {
            techniques.push(&r.technique);
        }
    }

    let mut buffer = vec![255u8; (WIDTH * HEIGHT * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut buffer, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        let title = format!(
            "stampede bench: {} on {} ({}x{})",
            report.model.name, report.adapter.name, report.size[0], report.size[1]
        );
        let mut chart = ChartBuilder::on(&root)
            .caption(title, (FONT, 24))
            .margin(16)
            .x_label_area_size(48)
            .y_label_area_size(72)
            .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())
            .map_err(draw_err)?;
        chart
            .configure_mesh()
            .x_desc("instances")
            .y_desc("ms per frame (p50)")
            .label_style((FONT, 16))
            .axis_desc_style((FONT, 18))
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| {
                if *v >= 1.0 {
                    format!("{v:.0}")
                } else {
                    format!("{v:.2}")
                }
            })
            .draw()
            .map_err(draw_err)?;

        for (i, technique) in techniques.iter().enumerate() {
            let c = color(i);
            let mut runs: Vec<_> = report
                .results
                .iter()
                .filter(|r| r.technique == *technique)
                .collect();
            runs.sort_by_key(|r| r.count);
            let wall: Vec<(f64, f64)> = runs
                .iter()
                .map(|r| (r.count as f64, r.wall_ms.p50))
                .collect();
            let cpu: Vec<(f64, f64)> = runs
                .iter()
                .map(|r| (r.count as f64, r.cpu_ms.p50))
                .collect();
            chart
                .draw_series(LineSeries::new(wall.clone(), c.stroke_width(3)))
                .map_err(draw_err)?
                .label(format!("{technique} wall"))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(3))
                });
            chart
                .draw_series(wall.iter().map(|&p| Circle::new(p, 5, c.filled())))
                .map_err(draw_err)?;
            chart
                .draw_series(LineSeries::new(cpu.clone(), c.mix(0.6).stroke_width(1)))
                .map_err(draw_err)?
                .label(format!("{technique} CPU"))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.mix(0.6)));
            chart
                .draw_series(
                    cpu.iter()
                        .map(|&p| TriangleMarker::new(p, 5, c.mix(0.6).filled())),
                )
                .map_err(draw_err)?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .label_font((FONT, 16))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(draw_err)?;
        root.present().map_err(draw_err)?;
    }
    save_rgb_png(&buffer, WIDTH, HEIGHT, path)
}

fn save_rgb_png(rgb: &[u8], width: u32, height: u32, path: &Path) -> Result<(), ChartError> {
    let err = |message: String| ChartError::Write {
        path: path.to_owned(),
        message,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| err(e.to_string()))?;
    }
    let file = std::fs::File::create(path).map_err(|e| err(e.to_string()))?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| err(e.to_string()))?;
    writer
        .write_image_data(rgb)
        .map_err(|e| err(e.to_string()))?;
    writer.finish().map_err(|e| err(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_ranges_are_padded_and_skip_zeros() {
        let (lo, hi) = log_range([0.0, 10.0, 100.0].into_iter()).expect("positive values");
        assert!(lo < 10.0 && lo > 0.0 && hi > 100.0);
        assert!(log_range([0.0, -1.0].into_iter()).is_none());
        let (lo, hi) = log_range([5.0].into_iter()).expect("one value");
        assert!(lo < 5.0 && hi > 5.0);
    }
}
