//! The headless commands `bake` and `make-assets` (`inspect` is in
//! `inspect_command.rs`).

use crate::lod::{self, LodChain, LodJson, LodOptions, LodSummary};
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
    let bounds = atlas.bounds.read(&gpu).map_err(|e| {
        anyhow::Error::new(e).context(format!(
            "{}: cannot read the impostor atlas's cell bounds",
            model.source.display()
        ))
    })?;
    let json = crate::formats::impostor::write_atlas(
        &atlas.layout,
        &names,
        &layers,
        &bounds,
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
