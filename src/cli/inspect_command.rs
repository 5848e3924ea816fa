//! `stampede inspect`: a model's (or a scene's) figures, levels and atlas.

use super::parse_impostor_px;
use crate::inspect::Inspection;
use crate::lod::{self, LodChain, LodOptions, LodSummary, Strategy};
use crate::vat::{self, BakeOptions};

/// Arguments of `stampede inspect`.
#[derive(clap::Args, Debug)]
pub struct InspectArgs {
    /// horse, bird, or a .gltf/.glb file; several for a scene (each is
    /// inspected, then a table compares them; one that fails is named and
    /// the others are still shown).
    #[arg(required = true, num_args = 1..)]
    pub models: Vec<String>,
    /// The LOD chain to show (built on a default bake): poses, rest, both
    /// (the two side by side, with a Markdown table), or none.
    #[arg(long, default_value = "poses", value_parser = ["poses", "rest", "both", "none"])]
    pub lod_strategy: String,
    /// Also draw the impostor atlas on the GPU and measure an impostor
    /// against the mesh at the switch size (--impostor-px).
    #[arg(long)]
    pub impostor_error: bool,
    /// The impostor switch to measure at, in pixels of the bounding
    /// sphere's diameter.
    #[arg(long, default_value_t = crate::crowd::cull::DEFAULT_IMPOSTOR_PX, value_parser = parse_impostor_px)]
    pub impostor_px: f32,
}

pub fn inspect(args: &InspectArgs) -> anyhow::Result<()> {
    use rayon::prelude::*;
    use std::fmt::Write;
    let started = std::time::Instant::now();
    // Each model is loaded and baked on its own thread; the reports are
    // printed in the order given.
    let reports: Vec<(String, anyhow::Result<ModelFigures>)> = args
        .models
        .par_iter()
        .map(|name| {
            let mut out = String::new();
            let figures = inspect_one(name, args, &mut out);
            (out, figures)
        })
        .collect();
    let wall_ms = started.elapsed().as_secs_f64() * 1000.0;
    let mut failed = Vec::new();
    let mut rows = Vec::new();
    for ((out, figures), name) in reports.into_iter().zip(&args.models) {
        print!("{out}");
        match figures {
            Ok(f) => rows.push(f),
            Err(e) => {
                let message = super::describe_error(&e);
                if args.models.len() > 1 {
                    eprintln!("error: {message} (the other models are shown)");
                }
                failed.push((name.clone(), e));
            }
        }
    }
    if args.models.len() > 1 && !rows.is_empty() {
        let mut table = String::new();
        let _ = write!(table, "{}", SceneTable(&rows));
        let _ = writeln!(
            table,
            "  loaded and baked in {wall_ms:.0} ms of wall time on {} thread(s) (the bakes alone: {:.0} ms)",
            rayon::current_num_threads(),
            rows.iter().filter_map(|r| r.bake_ms).sum::<f64>()
        );
        print!("{table}");
    }
    match failed.len() {
        0 => Ok(()),
        1 if args.models.len() == 1 => Err(failed.remove(0).1),
        _ => anyhow::bail!(
            "{} of {} models could not be inspected (why is said above): {}",
            failed.len(),
            args.models.len(),
            failed
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// One model's figures for the scene table of `inspect`.
struct ModelFigures {
    name: String,
    vertices: usize,
    triangles: usize,
    clips: usize,
    /// The default bake's texture (`None` with `--lod-strategy none`).
    vat: Option<vat::Layout>,
    vat_bytes: usize,
    bake_ms: Option<f64>,
    /// Triangles of each mesh level (the first strategy's chain).
    levels: Vec<u32>,
    atlas_bytes: u64,
}

/// The scene table: each model's bake and levels, and the totals.
struct SceneTable<'a>(&'a [ModelFigures]);

impl std::fmt::Display for SceneTable<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
        writeln!(f, "scene of {} models", self.0.len())?;
        writeln!(
            f,
            "  {:<28} {:>8} {:>9} {:>5} {:>16} {:>9} {:>8} {:>9}  levels (triangles)",
            "model",
            "vertices",
            "triangles",
            "clips",
            "VAT texels",
            "VAT MiB",
            "bake ms",
            "atlas MiB"
        )?;
        for m in self.0 {
            let texels = m.vat.map_or("-".into(), |l| {
                format!("{}×{}×{}", l.width, l.height, l.layers)
            });
            let levels = m
                .levels
                .iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(" / ");
            writeln!(
                f,
                "  {:<28} {:>8} {:>9} {:>5} {:>16} {:>9.2} {:>8} {:>9.2}  {}",
                m.name,
                m.vertices,
                m.triangles,
                m.clips,
                texels,
                mib(m.vat_bytes as u64),
                m.bake_ms.map_or("-".into(), |b| format!("{b:.0}")),
                mib(m.atlas_bytes),
                if levels.is_empty() {
                    "-".into()
                } else {
                    levels
                }
            )?;
        }
        let sum = |g: &dyn Fn(&ModelFigures) -> u64| self.0.iter().map(g).sum::<u64>();
        writeln!(
            f,
            "  {:<28} {:>8} {:>9} {:>5} {:>16} {:>9.2} {:>8} {:>9.2}",
            "total",
            sum(&|m| m.vertices as u64),
            sum(&|m| m.triangles as u64),
            sum(&|m| m.clips as u64),
            "",
            mib(sum(&|m| m.vat_bytes as u64)),
            "",
            mib(sum(&|m| m.atlas_bytes)),
        )
    }
}

/// Writes one model's inspection into `out` and returns its figures.
fn inspect_one(name: &str, args: &InspectArgs, out: &mut String) -> anyhow::Result<ModelFigures> {
    use std::fmt::Write;
    let model = crate::assets::load_model(name)?;
    let _ = write!(out, "{}", Inspection(&model));
    let mut figures = ModelFigures {
        name: model.name(),
        vertices: model.vertex_count(),
        triangles: model.triangle_count(),
        clips: model.clips.len(),
        vat: None,
        vat_bytes: 0,
        bake_ms: None,
        levels: Vec::new(),
        atlas_bytes: 0,
    };
    let strategies: &[Strategy] = match args.lod_strategy.as_str() {
        "none" => return Ok(figures),
        "rest" => &[Strategy::Rest],
        "both" => &[Strategy::Poses, Strategy::Rest],
        _ => &[Strategy::Poses],
    };
    let vat = vat::bake(&model, &BakeOptions::default())?;
    (figures.vat, figures.vat_bytes, figures.bake_ms) =
        (Some(vat.layout), vat.total_bytes(), Some(vat.bake_ms));
    figures.clips = vat.clips.len();
    let chains: Vec<LodChain> = strategies
        .iter()
        .map(|&strategy| {
            let options = LodOptions {
                strategy,
                ..LodOptions::default()
            };
            lod::build(&model, &vat, &options)
        })
        .collect();
    for chain in &chains {
        let _ = write!(out, "{}", LodSummary(chain));
    }
    if chains.len() > 1 {
        let _ = write!(out, "{}", lod::markdown_table(&model.name(), &chains));
    }
    figures.levels = chains[0].levels.iter().map(|l| l.index_count / 3).collect();
    let choice = crate::crowd::setup::ModelChoice::parse(name);
    let motion = crate::crowd::setup::MotionChoice::Auto.resolve(&choice, &vat.clips);
    let layout = crate::crowd::setup::impostor_layout(&vat, motion).with_mesh(&chains[0]);
    figures.atlas_bytes = layout.bytes();
    let _ = write!(out, "{}", crate::impostor::AtlasSummary(&layout));
    if args.impostor_error {
        let loaded = crate::crowd::setup::load(&choice, 30.0, vat::Precision::F16, None)?;
        let gpu = crate::gpu::GpuContext::headless()?;
        let view = crate::render::probes::impostor_measure::single(gpu.clone(), &loaded, false)?;
        let built = view.renderer.impostor_atlas().map_or(0.0, |a| a.build_ms);
        let e = crate::render::probes::impostor_measure::measure(gpu, &loaded, args.impostor_px)?;
        let _ = writeln!(
            out,
            "  impostor atlas drawn in {built:.0} ms ({}); at {} px against the mesh over {} views: silhouette IoU mean {:.3} (worst {:.3}), within a pixel {:.3} (worst {:.3}), colour difference {:.1} (worst {:.1}) of 255",
            view.renderer.gpu.description(),
            e.px,
            e.views,
            e.mean.iou,
            e.worst.iou,
            e.mean.near,
            e.worst.near,
            e.mean.diff,
            e.worst.diff
        );
    }
    Ok(figures)
}
