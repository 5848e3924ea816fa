//! The printed table and the CSV of a report.

use super::{BenchReport, MIB, Percentiles};
use std::fmt::Write as _;

impl BenchReport {
    /// The printed summary: adapter, table, ratios, skips.
    pub fn text(&self) -> String {
        let mut s = String::new();
        let a = &self.adapter;
        let m = &self.model;
        let _ = writeln!(
            s,
            "adapter: {} ({}, {}), driver {}",
            a.name, a.backend, a.device_type, a.driver
        );
        for line in &a.off {
            let _ = writeln!(s, "off: {line}");
        }
        let _ = writeln!(
            s,
            "model: {} ({} vertices, {} triangles, {} joints, {} clips, VAT {:.1} MiB), {}x{}, {} frames after {} warm-up",
            m.name,
            m.vertices,
            m.triangles,
            m.joints,
            m.clips,
            m.vat_bytes as f64 / MIB,
            self.size[0],
            self.size[1],
            self.frames,
            self.warmup
        );
        for m in &self.models {
            let _ = writeln!(
                s,
                "  {} ×{} ({} vertices, {} triangles, {} joints, {} clips, VAT {:.1} MiB, baked in {:.0} ms)",
                m.name,
                m.count.unwrap_or(0),
                m.vertices,
                m.triangles,
                m.joints,
                m.clips,
                m.vat_bytes as f64 / MIB,
                m.bake_ms
            );
        }
        let _ = writeln!(
            s,
            "culling {}, LOD {} ({} px), shadows {}, occlusion culling {}, anti-aliasing {}",
            if self.culling { "on" } else { "off" },
            if self.lod { "on" } else { "off" },
            self.lod_error_px,
            if self.shadows { "on" } else { "off" },
            if self.occlusion { "on" } else { "off" },
            if self.aa.is_empty() { "msaa" } else { &self.aa }
        );
        for r in self.results.iter().filter(|r| r.resolve_gpu_ms.is_some()) {
            let _ = writeln!(
                s,
                "{} at {:>7}: TAA resolve GPU ms {}",
                r.technique,
                r.count,
                triple(r.resolve_gpu_ms.as_ref())
            );
        }
        if let Some(f) = &self.far_field {
            let _ = writeln!(
                s,
                "far field: impostors {} (at {} px, {} quads; atlas {} cells of {}², {}, built in {:.0} ms), splats {}, coarse levels {}, shadow distance {}, casters under {} texel skipped, casters' error {}× the camera's, cascades cull {}; levels {:?} triangles",
                if f.impostors { "on" } else { "off" },
                f.impostor_px,
                if f.tight_impostors { "tight" } else { "square" },
                f.atlas_cells,
                f.atlas_cell,
                bytes(f.atlas_bytes),
                f.atlas_build_ms,
                if f.splats {
                    format!("at {} px", f.splat_px)
                } else {
                    "off".to_owned()
                },
                if f.coarse_levels { "on" } else { "off" },
                f.shadow_distance,
                f.shadow_min_texels,
                f.shadow_error_scale,
                if f.caster_list {
                    "the camera's list"
                } else {
                    "every instance"
                },
                f.level_triangles
            );
        }
        let _ = writeln!(
            s,
            "{:<16} {:>8} {:>8} {:>8} {:>9} | {:>26} | {:>26} | {:>26} | {:>26} | {:>26} | {:>26} | {:>10} {:>9}",
            "technique",
            "count",
            "drawn",
            "visible",
            "triangles",
            "CPU ms p50/p90/p99",
            "GPU ms p50/p90/p99",
            "shadow GPU ms p50/p90/p99",
            "cull GPU ms p50/p90/p99",
            "own pass GPU ms p50/p90/p99",
            "wall ms p50/p90/p99",
            "upload/frm",
            "memory"
        );
        for r in &self.results {
            let _ = writeln!(
                s,
                "{:<16} {:>8} {:>8} {:>8} {:>9} | {:>26} | {:>26} | {:>26} | {:>26} | {:>26} | {:>26} | {:>10} {:>9}",
                label(r),
                r.count,
                r.drawn,
                r.visible,
                crate::cli::short_count(r.triangles),
                triple(Some(&r.cpu_ms)),
                triple(r.gpu_ms.as_ref()),
                triple(r.shadow_gpu_ms.as_ref()),
                triple(r.cull_gpu_ms.as_ref()),
                triple(r.technique_gpu_ms.as_ref()),
                triple(Some(&r.wall_ms)),
                bytes(r.upload_bytes_per_frame),
                bytes(r.gpu_memory_bytes)
            );
        }
        if self.results.iter().any(|r| {
            r.impostors > 0 || !r.shadow_casters.is_empty() || r.visible_per_level.len() > 1
        }) {
            let _ = writeln!(
                s,
                "{:<13} {:>8} | {:>34} {:>9} {:>9} | {:>24} | {:>26} | {:>24} | {:>24} | {:>14}",
                "per level",
                "count",
                "instances per mesh level",
                "impostors",
                "splats",
                "casters per cascade",
                "shadow triangles per cascade",
                "casters dropped (view)",
                "casters camera not drawn",
                "casters listed"
            );
            for r in &self.results {
                let list = |v: &[u32]| {
                    v.iter()
                        .map(|&x| crate::cli::short_count(x as u64))
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                let _ = writeln!(
                    s,
                    "{:<13} {:>8} | {:>34} {:>9} {:>9} | {:>24} | {:>26} | {:>24} | {:>24} | {:>14}",
                    if r.baseline() {
                        format!("{} (base)", r.technique)
                    } else {
                        r.technique.clone()
                    },
                    r.count,
                    list(&r.visible_per_level),
                    crate::cli::short_count(r.impostors as u64),
                    crate::cli::short_count(r.splats as u64),
                    list(&r.shadow_casters),
                    r.shadow_triangles
                        .iter()
                        .map(|&x| crate::cli::short_count(x))
                        .collect::<Vec<_>>()
                        .join(" "),
                    list(&r.shadow_casters_dropped),
                    list(&r.shadow_casters_unseen),
                    crate::cli::short_count(r.shadow_casters_listed as u64)
                );
            }
        }
        for r in &self.results {
            if let (Some(cascades), Some(all)) = (&r.cascade_cull_gpu_ms, &r.cull_gpu_ms) {
                let _ = writeln!(
                    s,
                    "{} at {}: the cascades' cull passes {:.3} / {:.3} / {:.3} GPU ms \
                     (p50/p90/p99) of the cull's {:.3} (p50)",
                    label(r),
                    r.count,
                    cascades.p50,
                    cascades.p90,
                    cascades.p99,
                    all.p50
                );
            }
        }
        if !self.models.is_empty() {
            for r in &self.results {
                let models: Vec<String> = r
                    .per_model
                    .iter()
                    .map(|m| {
                        format!(
                            "{} {}/{} ({} triangles)",
                            m.name,
                            m.visible,
                            m.count,
                            crate::cli::short_count(m.triangles)
                        )
                    })
                    .collect();
                let _ = writeln!(
                    s,
                    "{}{} at {:>7}: {} draw calls; drawn per model: {}",
                    r.technique,
                    if r.separate { " (separate)" } else { "" },
                    r.count,
                    r.draw_calls,
                    models.join(", ")
                );
            }
        }
        let rs = &self.ratios;
        for (title, list) in [
            ("live skinning ÷ VAT", &rs.skinning_over_vat),
            ("VAT ÷ static", &rs.vat_over_static),
            ("compute skinning ÷ VAT", &rs.compute_skinning_over_vat),
            (
                "compute skinning (bone texture) ÷ VAT",
                &rs.compute_bone_texture_over_vat,
            ),
        ] {
            if list.is_empty() {
                let _ = writeln!(s, "{title}: n/a (not both measured)");
            }
            for r in list {
                let _ = writeln!(
                    s,
                    "{title} at {:>7}: wall {}  CPU {}  GPU {}",
                    r.count,
                    times(r.wall_ms),
                    times(r.cpu_ms),
                    times(r.gpu_ms)
                );
            }
        }
        for (what, list) in [
            ("culled ÷ unculled", &rs.culled_over_unculled),
            ("far field on ÷ off", &rs.far_field_over_off),
            ("occlusion on ÷ off", &rs.occlusion_over_off),
            (
                "tight ÷ square impostor quads",
                &rs.tight_over_square_impostors,
            ),
            ("splats on ÷ off", &rs.splat_over_off),
            ("state kept ÷ computed", &rs.state_kept_over_computed),
            ("anti-aliasing ÷ 4x MSAA", &rs.aa_over_msaa),
            ("anti-aliasing ÷ none", &rs.aa_over_off),
            ("velocity target ÷ none", &rs.velocity_over_off),
            ("one scene ÷ separate renderers", &rs.scene_over_separate),
        ] {
            for r in list {
                let _ = writeln!(
                    s,
                    "{} {what} at {:>7}: triangles {}  wall {}  CPU {}  GPU {}",
                    r.technique,
                    r.count,
                    times(r.triangles),
                    times(r.wall_ms),
                    times(r.cpu_ms),
                    times(r.gpu_ms)
                );
            }
        }
        for r in self
            .results
            .iter()
            .filter(|r| !r.after_cut_wall_ms.is_empty())
        {
            let cut: Vec<String> = r.after_cut_wall_ms.iter().map(|&v| ms(v)).collect();
            let _ = writeln!(
                s,
                "{} occlusion at {:>7}: {} occluded; after a camera cut the frames take {} ms (steady p50 {} ms)",
                r.technique,
                r.count,
                r.occluded,
                cut.join(", "),
                ms(r.wall_ms.p50)
            );
        }
        for r in &self.results {
            if let Some(e) = &r.exact {
                let share = |t: u64| times(Some(t as f64 / r.triangles.max(1) as f64));
                let _ = writeln!(
                    s,
                    "{} at {:>7}: of {} drawn, {} show, {} are hidden behind others, {} cover no sample; a perfect occlusion culler would draw {} the triangles, one that also left out what covers no sample {}",
                    r.technique,
                    r.count,
                    r.visible,
                    e.visible,
                    e.occluded,
                    e.covering_none,
                    share(e.unoccluded_triangles),
                    share(e.visible_triangles)
                );
            }
        }
        match &rs.vat_cpu_largest_over_smallest {
            Some(r) => {
                let _ = writeln!(
                    s,
                    "VAT CPU ms at {} ÷ at {}: {} ({}× the instances)",
                    r.largest_count,
                    r.smallest_count,
                    times(r.ratio),
                    r.largest_count / r.smallest_count.max(1)
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    "VAT CPU scaling: n/a (VAT measured at fewer than 2 counts)"
                );
            }
        }
        for k in &self.skipped {
            let _ = writeln!(s, "skipped {} × {}: {}", k.technique, k.count, k.reason);
        }
        s
    }

    /// One CSV row per result, with a header.
    pub fn csv(&self) -> String {
        let mut s = String::from(
            "technique,count,drawn,frames,cpu_p50_ms,cpu_p90_ms,cpu_p99_ms,gpu_p50_ms,gpu_p90_ms,gpu_p99_ms,wall_p50_ms,wall_p90_ms,wall_p99_ms,upload_bytes_per_frame,gpu_memory_bytes,visible,triangles,shadow_gpu_p50_ms,shadow_gpu_p90_ms,shadow_gpu_p99_ms,technique_gpu_p50_ms,technique_gpu_p90_ms,technique_gpu_p99_ms,pass_instances,pass_vertices,settings,impostors,visible_per_level,shadow_casters,shadow_triangles,shadow_casters_per_cascade,shadow_triangles_per_cascade,occluded,aa,velocity,resolve_gpu_p50_ms,resolve_gpu_p90_ms,resolve_gpu_p99_ms,draw_calls,visible_per_model,triangles_per_model,shadow_casters_dropped_per_cascade,shadow_casters_unseen_per_cascade,shadow_triangles_unseen_per_cascade,exact_visible,exact_occluded,exact_covering_none,exact_visible_triangles,exact_unoccluded_triangles,splats,resolved_state,cull_gpu_p50_ms,cull_gpu_p90_ms,cull_gpu_p99_ms,shadow_casters_listed,cascade_cull_gpu_p50_ms,cascade_cull_gpu_p90_ms,cascade_cull_gpu_p99_ms\n",
        );
        let cells = |p: Option<&Percentiles>| match p {
            Some(p) => format!("{:.4},{:.4},{:.4}", p.p50, p.p90, p.p99),
            None => ",,".into(),
        };
        for r in &self.results {
            let _ = writeln!(
                s,
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                r.technique,
                r.count,
                r.drawn,
                r.frames,
                cells(Some(&r.cpu_ms)),
                cells(r.gpu_ms.as_ref()),
                cells(Some(&r.wall_ms)),
                r.upload_bytes_per_frame,
                r.gpu_memory_bytes,
                r.visible,
                r.triangles,
                cells(r.shadow_gpu_ms.as_ref()),
                cells(r.technique_gpu_ms.as_ref()),
                r.pass_instances.map_or(String::new(), |n| n.to_string()),
                r.pass_vertices.map_or(String::new(), |n| n.to_string()),
                if r.unculled {
                    "unculled"
                } else if r.far_field_off {
                    "far-field-off"
                } else if r.occlusion_off {
                    "occlusion-off"
                } else if r.square_impostors {
                    "square-impostors"
                } else if r.splat_off {
                    "splat-off"
                } else if r.state_computed {
                    "state-computed"
                } else if r.aa_baseline {
                    "aa-baseline"
                } else if r.separate {
                    "separate"
                } else {
                    "run"
                },
                r.impostors,
                join(&r.visible_per_level),
                r.casters_total(),
                r.shadow_triangles_total(),
                join(&r.shadow_casters),
                join(&r.shadow_triangles),
                r.occluded,
                r.aa,
                r.velocity,
                cells(r.resolve_gpu_ms.as_ref()),
                r.draw_calls,
                named(&r.per_model, |m| m.visible.to_string()),
                named(&r.per_model, |m| m.triangles.to_string()),
                join(&r.shadow_casters_dropped),
                join(&r.shadow_casters_unseen),
                join(&r.shadow_triangles_unseen),
                exact_cells(r.exact.as_ref()),
                r.splats,
                r.resolved_state as u32,
                cells(r.cull_gpu_ms.as_ref()),
                r.shadow_casters_listed,
                cells(r.cascade_cull_gpu_ms.as_ref())
            );
        }
        s
    }
}

/// The exact visibility counts' five cells (empty without them).
fn exact_cells(e: Option<&super::ExactCounts>) -> String {
    match e {
        Some(e) => format!(
            "{},{},{},{},{}",
            e.visible, e.occluded, e.covering_none, e.visible_triangles, e.unoccluded_triangles
        ),
        None => ",,,,".into(),
    }
}

fn triple(p: Option<&Percentiles>) -> String {
    match p {
        Some(p) => format!("{} / {} / {}", ms(p.p50), ms(p.p90), ms(p.p99)),
        None => "n/a".into(),
    }
}

/// Milliseconds with about three significant digits.
fn ms(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

fn times(r: Option<f64>) -> String {
    r.map_or_else(|| "n/a".into(), |r| format!("{r:.2}×"))
}

fn bytes(b: u64) -> String {
    let b = b as f64;
    if b >= MIB {
        format!("{:.1} MiB", b / MIB)
    } else if b >= 1024.0 {
        format!("{:.1} KiB", b / 1024.0)
    } else {
        format!("{b} B")
    }
}

/// Numbers joined by `;` (one CSV cell).
fn join<T: ToString>(v: &[T]) -> String {
    v.iter().map(T::to_string).collect::<Vec<_>>().join(";")
}

/// `name:value` per model, joined by `;` (one CSV cell).
fn named(models: &[super::ModelDraws], value: impl Fn(&super::ModelDraws) -> String) -> String {
    models
        .iter()
        .map(|m| format!("{}:{}", m.name, value(m)))
        .collect::<Vec<_>>()
        .join(";")
}

/// A result's name in the tables: its technique and, for a comparison's
/// baseline, what the baseline changes.
fn label(r: &super::RunResult) -> String {
    if r.unculled {
        format!("{} (off)", r.technique)
    } else if r.far_field_off {
        format!("{} (no far)", r.technique)
    } else if r.occlusion_off {
        format!("{} (no occl)", r.technique)
    } else if r.square_impostors {
        format!("{} (squares)", r.technique)
    } else if r.splat_off {
        format!("{} (no splats)", r.technique)
    } else if r.state_computed {
        format!("{} (computed)", r.technique)
    } else if r.separate {
        format!("{} (separate)", r.technique)
    } else if r.aa_baseline {
        format!(
            "{} ({}{})",
            r.technique,
            r.aa,
            if r.velocity { "+v" } else { "" }
        )
    } else {
        r.technique.clone()
    }
}
