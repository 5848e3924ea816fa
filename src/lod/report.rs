//! The chain as text, for `stampede inspect` and `stampede bake`.

use super::LodChain;
use std::fmt::{self, Display};

/// A printable summary of a chain: one line per level.
pub struct LodSummary<'a>(pub &'a LodChain);

impl Display for LodSummary<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.0;
        let full = c.levels.first().map_or(0, |l| l.triangles()).max(1);
        writeln!(
            f,
            "  LOD chain ({} strategy, {} levels, built in {:.1} ms):",
            c.strategy.name(),
            c.levels.len(),
            c.build_ms
        )?;
        for (i, l) in c.levels.iter().enumerate() {
            writeln!(
                f,
                "    level {i}: {:>6} triangles ({:>5.1}%)  animated error {:.4e}  rest error {:.4e}  simplifier {:.4e}{}",
                l.triangles(),
                100.0 * l.triangles() as f64 / full as f64,
                l.error,
                l.rest_error,
                l.simplifier_error,
                if l.coarse { "  (coarse)" } else { "" }
            )?;
        }
        let nearest: Vec<String> = c
            .nearest_frame_error
            .iter()
            .map(|e| format!("{e:.4e}"))
            .collect();
        writeln!(
            f,
            "    nearest-frame error per clip: {}",
            nearest.join(", ")
        )
    }
}

/// The chains of one model side by side as a Markdown table: per level,
/// triangles, animated error and rest error for each chain, then the build
/// times (for docs/lod.md).
pub fn markdown_table(model: &str, chains: &[LodChain]) -> String {
    let mut out = format!("\n#### {model}\n\n| level |");
    let mut rule = String::from("|---|");
    for c in chains {
        let s = c.strategy.name();
        out +=
            &format!(" {s}: triangles | {s}: animated error | {s}: rest error | {s}: simplifier |");
        rule += "---:|---:|---:|---:|";
    }
    out += &format!("\n{rule}\n");
    let rows = chains.iter().map(|c| c.levels.len()).max().unwrap_or(0);
    for i in 0..rows {
        out += &format!("| {i} |");
        for c in chains {
            match c.levels.get(i) {
                Some(l) => {
                    out += &format!(
                        " {} | {:.4} | {:.4} | {:.4} |",
                        l.triangles(),
                        l.error,
                        l.rest_error,
                        l.simplifier_error
                    )
                }
                None => out += " – | – | – | – |",
            }
        }
        out.push('\n');
    }
    out += "| build ms |";
    for c in chains {
        out += &format!(" {:.1} | | | |", c.build_ms);
    }
    out += "\n";
    out
}
