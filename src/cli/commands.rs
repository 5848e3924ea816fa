//! The headless commands: `inspect`, `bake` and `make-assets`.

use super::parse_impostor_px;
use crate::inspect::Inspection;
use crate::lod::{self, LodChain, LodJson, LodOptions, LodSummary, Strategy};
use crate::model::Model;
use crate::vat::{self, BakeOptions, LoopMode, Precision};
use anyhow::Context;
use std::path::{Path, PathBuf};

/// Arguments of `stampede bake`.
#[derive(clap::Args, Debug)]
pub struct BakeArgs {
    /// The model: horse, bird, or a .gltf/.glb file.
    pub model: String,
    /// Output folder (created when missing).
    #[arg(long)]
    pub out: PathBuf,
    /// Bake rate in frames per second of clip time.
    #[arg(long, default_value_t = 30.0)]
    pub fps: f32,
    /// Texel format: f16, f32, or packed (one 8-byte texel per vertex).
    #[arg(long, default_value = "f16")]
    pub precision: Precision,
    /// Texture width cap; vertices wrap over several rows per frame beyond it.
    #[arg(long, default_value_t = vat::DEFAULT_MAX_WIDTH)]
    pub max_width: u32,
    /// Texture height cap; clips spill into further array layers beyond it.
    #[arg(long, default_value_t = vat::DEFAULT_MAX_WIDTH)]
    pub max_height: u32,
    /// Bake only this clip (repeat for several); all clips by default.
    #[arg(long = "clip")]
    pub clips: Vec<String>,
    /// Looping: auto (first and last pose match), on, or off.
    #[arg(long, default_value = "auto", value_parser = ["auto", "on", "off"])]
    pub looping: String,
    /// Sample at exactly --fps even when the clip's keys are evenly spaced
    /// (by default frames then land on the keys).
    #[arg(long)]
    pub exact_fps: bool,
    /// Engine formats to write beside Stampede's own (which is always
    /// written): openvat, houdini, or all; repeat or separate with commas.
    #[arg(
        long = "format",
        value_enum,
        value_delimiter = ',',
        default_value = "stampede"
    )]
    pub formats: Vec<crate::formats::Format>,
    /// The far field's impostor atlas (drawn on the GPU): auto writes it
    /// when a GPU adapter is there and can hold it, and says so when not;
    /// on makes either an error; off skips it.
    #[arg(long, value_enum, default_value = "auto")]
    pub impostors: ImpostorExport,
}

/// `bake --impostors`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ImpostorExport {
    #[default]
    Auto,
    On,
    Off,
}

impl BakeArgs {
    pub fn options(&self) -> BakeOptions {
        BakeOptions {
            fps: self.fps,
            precision: self.precision,
            max_width: self.max_width,
            max_height: self.max_height,
            looping: match self.looping.as_str() {
                "on" => LoopMode::Always,
                "off" => LoopMode::Never,
                _ => LoopMode::Auto,
            },
            clips: self.clips.clone(),
            align_to_keys: !self.exact_fps,
            ..BakeOptions::default()
        }
    }
}

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

pub fn bake(args: &BakeArgs) -> anyhow::Result<()> {
    use crate::formats::{self, Format, Staging};
    let model = crate::assets::load_model(&args.model)?;
    let vat = vat::bake(&model, &args.options())?;
    let engines = Format::engines(&args.formats);
    // A model beyond a format's limits fails here, before anything is written.
    formats::check_engines(&model, &vat, &engines)?;
    let chain = lod::build(&model, &vat, &LodOptions::default());
    // Everything goes into a staging folder that moves into --out whole,
    // vat.json last, so a failed bake leaves no export that reads as complete.
    let stage = Staging::new(&args.out)?;
    let (_, lod) = lod::write(&chain, stage.dir())?;
    let (_, mesh) = formats::write_mesh(&model, &vat.layout, stage.dir())?;
    let formats = formats::write_engines(&model, &vat, &engines, stage.dir())?;
    let (impostor, atlas_line) = bake_impostor(args, &model, &vat, &chain, stage.dir())?.unzip();
    let sections = BakeSections {
        lod,
        mesh,
        formats,
        impostor,
    };
    vat::export_with(&model, &vat, stage.dir(), &sections)?;
    let files = stage.commit("vat.json")?;
    print_bake(&model, &vat);
    print!("{}", LodSummary(&chain));
    if let Some(line) = atlas_line {
        println!("{line}");
    }
    println!("wrote:");
    for f in files {
        println!("  {}", f.display());
    }
    Ok(())
}

/// The sections `bake` adds to `vat.json` beside the VAT's own.
#[derive(serde::Serialize)]
struct BakeSections {
    lod: LodJson,
    mesh: crate::formats::MeshJson,
    #[serde(skip_serializing_if = "formats_empty")]
    formats: crate::formats::FormatsJson,
    #[serde(skip_serializing_if = "Option::is_none")]
    impostor: Option<crate::formats::impostor::ImpostorJson>,
}

/// Draws the impostor atlas on a headless GPU and writes it into `dir`
/// (`bake --impostors`) with the line `bake` prints of it; `None` when
/// off, or on auto without an adapter.
fn bake_impostor(
    args: &BakeArgs,
    model: &Model,
    vat: &vat::Vat,
    chain: &LodChain,
    dir: &Path,
) -> anyhow::Result<Option<(crate::formats::impostor::ImpostorJson, String)>> {
    use crate::crowd::setup::{self, ModelChoice, MotionChoice};
    if args.impostors == ImpostorExport::Off {
        return Ok(None);
    }
    let gpu = match crate::gpu::GpuContext::headless() {
        Ok(gpu) => gpu,
        Err(e) if args.impostors == ImpostorExport::Auto => {
            eprintln!(
                "warning: {e}: the impostor atlas is drawn on the GPU, so this export has none (--impostors off to skip it quietly, on to make this an error)"
            );
            return Ok(None);
        }
        Err(e) => {
            return Err(anyhow::Error::new(e).context("the impostor atlas needs a GPU adapter"));
        }
    };
    let motion = MotionChoice::Auto.resolve(&ModelChoice::parse(&args.model), &vat.clips);
    let layout = setup::impostor_layout(vat, motion).with_mesh(chain);
    let drawn =
        crate::render::passes::impostor::export::draw_layers(&gpu, model, vat, chain, layout);
    let (atlas, layers) = match drawn {
        Ok(drawn) => drawn,
        // A model whose atlas this GPU cannot hold still bakes, on auto.
        Err(e @ crate::render::passes::impostor::AtlasError::TooLarge { .. })
            if args.impostors == ImpostorExport::Auto =>
        {
            eprintln!(
                "warning: {}: {e}, so this export has none (--impostors off to skip it quietly)",
                model.source.display()
            );
            return Ok(None);
        }
        Err(e) => {
            return Err(anyhow::Error::new(e).context(format!(
                "{}: cannot draw the impostor atlas",
                model.source.display()
            )));
        }
    };
    let names: Vec<String> = vat.clips.iter().map(|c| c.name.clone()).collect();
    let json = crate::formats::impostor::write_atlas(
        &atlas.layout,
        &names,
        &layers,
        (atlas.samples, crate::crowd::cull::DEFAULT_IMPOSTOR_PX),
        dir,
    )?;
    let line = format!(
        "  impostor atlas: {} layers (clip frames) of {}×{}, {} views each, drawn in {:.0} ms ({})",
        json.layers,
        json.layer_width,
        json.layer_height,
        atlas.layout.cells(),
        atlas.build_ms,
        gpu.description()
    );
    Ok(Some((json, line)))
}

fn formats_empty(f: &crate::formats::FormatsJson) -> bool {
    f.openvat.is_empty() && f.houdini.is_empty()
}

/// The bake summary shared by `bake` and the viewer's log.
pub fn print_bake(model: &Model, vat: &vat::Vat) {
    let l = &vat.layout;
    println!(
        "{}: {} vertices, {} clips baked at {} fps ({})",
        model.source.display(),
        l.vertex_count,
        vat.clips.len(),
        vat.fps,
        vat.precision.name()
    );
    println!(
        "  texture: {} x {} x {} layer(s), {} rows per frame, {:.2} MiB per texture ({:.2} MiB in all)",
        l.width,
        l.height,
        l.layers,
        l.rows_per_frame,
        vat.texture_bytes() as f64 / (1024.0 * 1024.0),
        vat.total_bytes() as f64 / (1024.0 * 1024.0)
    );
    for c in &vat.clips {
        println!(
            "  {:<24} layer {} rows {:>5}.. frames {:>4} at {:>6.2} fps, {:.3}s{}",
            format!("'{}'", c.name),
            c.layer,
            c.first_row,
            c.frame_count,
            c.fps,
            c.duration,
            if c.looping { ", looping" } else { "" }
        );
    }
    let r = &vat.report;
    println!(
        "  error: quantization {:.3e} ({:.4}% of the {:.3} diagonal), normals {:.3}° worst / {:.3}° mean, interpolation {:.3e} ({:.4}%)",
        r.quantization,
        r.quantization_relative * 100.0,
        r.diagonal,
        r.normal_quantization_degrees,
        r.normal_quantization_mean_degrees,
        r.interpolation,
        r.interpolation_relative * 100.0
    );
    println!(
        "  bake: {:.2} ms (+{:.2} ms error report)",
        vat.bake_ms, vat.report_ms
    );
}

pub fn make_assets(out: &Path) -> anyhow::Result<()> {
    let files: Vec<PathBuf> = crate::procgen::write_assets(out)
        .with_context(|| format!("{}: cannot write the assets", out.display()))?;
    for f in files {
        let model = Model::load(&f)?;
        println!(
            "wrote {} ({} vertices, {} joints, clips: {})",
            f.display(),
            model.vertex_count(),
            model.stats.joints,
            model
                .clips
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(())
}
