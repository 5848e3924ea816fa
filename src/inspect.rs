//! `stampede inspect`: what a glTF file holds, as the importer sees it.

use crate::model::Model;
use std::fmt::{self, Display};

/// A printable summary of a model.
pub struct Inspection<'a>(pub &'a Model);

impl Display for Inspection<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.0;
        let s = &m.stats;
        writeln!(f, "{}", m.source.display())?;
        writeln!(f, "  meshes:        {}", s.meshes)?;
        writeln!(f, "  primitives:    {}", m.primitives.len())?;
        writeln!(f, "  vertices:      {}", m.vertex_count())?;
        writeln!(f, "  triangles:     {}", m.triangle_count())?;
        writeln!(f, "  skins:         {}", s.skins)?;
        writeln!(f, "  joints:        {}", s.joints)?;
        writeln!(
            f,
            "  palette:       {} entries ({} rigid)",
            m.palette.len(),
            m.palette.iter().filter(|p| !p.skinned).count()
        )?;
        writeln!(f, "  morph targets: {}", s.morph_targets)?;
        writeln!(f, "  materials:     {}", m.materials.len())?;
        writeln!(f, "  textures:      {}", m.images.len())?;
        let b = m.sample_pose(None, 0.0).skinned_bounds(m);
        writeln!(
            f,
            "  rest bounds:   min [{:.3}, {:.3}, {:.3}] max [{:.3}, {:.3}, {:.3}]",
            b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z
        )?;
        writeln!(f, "  primitive table:")?;
        for p in &m.primitives {
            let material = m.materials.get(p.material).map_or("", |m| m.name.as_str());
            writeln!(
                f,
                "    node {:>3} mesh {:>2} prim {:>2}: vertices {:>6}..{:<6} triangles {:>6} {} material '{material}'",
                p.node,
                p.mesh,
                p.primitive,
                p.first_vertex,
                p.first_vertex + p.vertex_count,
                p.index_count / 3,
                if p.skinned { "skinned" } else { "rigid  " },
            )?;
        }
        writeln!(f, "  clips:         {}", m.clips.len())?;
        for c in &m.clips {
            let interp: Vec<&str> = c.interpolations().iter().map(|i| i.name()).collect();
            let paths: Vec<&str> = c.paths().iter().map(|p| p.name()).collect();
            writeln!(
                f,
                "    {:<24} {:>7.4}s - {:>7.4}s ({:.4}s)  {} channels, {} keys, {} [{}]",
                format!("'{}'", c.name),
                c.start,
                c.end,
                c.duration(),
                c.channels.len(),
                c.key_count(),
                interp.join("/"),
                paths.join("/"),
            )?;
        }
        if !s.extensions_used.is_empty() {
            writeln!(f, "  extensions:    {}", s.extensions_used.join(", "))?;
        }
        if m.warnings.is_empty() {
            writeln!(f, "  warnings:      none")?;
        } else {
            writeln!(f, "  warnings:")?;
            for w in &m.warnings {
                writeln!(f, "    - {w}")?;
            }
        }
        Ok(())
    }
}
