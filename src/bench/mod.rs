//! `stampede bench`: every technique across instance counts, offscreen, with
//! the same renderer the viewer uses.
//!
//! For each count (ascending) and each technique: set the count, switch the
//! technique, frame the whole crowd with a fixed camera, render `warmup`
//! unmeasured frames, then `frames` measured ones at a fixed time step
//! (`t = frame / 60 s`, so the animation is the same on every machine). Each
//! frame: CPU time of prepare + encode + submit, a wait for the GPU
//! (`PollType::wait_indefinitely`), the wall time of the whole, and the GPU
//! time of the scene pass, of the shadow passes and of the technique's own
//! pass (compute skinning's skin pass) from timestamp queries. Then percentiles, the
//! ratios that matter, a table, and optionally JSON, CSV and a chart.

pub mod args;
pub mod bake_bench;
pub mod chart;
mod mode;
pub mod report;
pub mod stats;
pub mod synthetic;

pub use args::BenchArgs;
pub use report::BenchReport;

use crate::crowd::setup::{self, ModelChoice, SetupError};
use crate::crowd::{BehaviourSettings, FrameSettings};
use crate::gpu::{GpuContext, GpuError};
use crate::render::headless::FORMAT;
use crate::render::{Camera, RenderError, Renderer, RendererConfig, TechniqueKind};
use indicatif::{ProgressBar, ProgressStyle};
use mode::Mode;
use report::{AdapterReport, FarFieldReport, ModelReport, Ratios, RunResult, Skipped};
use stats::{Percentiles, StatsError};
use std::sync::Arc;
use std::time::Instant;

/// Why the benchmark could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error(transparent)]
    Setup(#[from] SetupError),
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error(transparent)]
    Render(#[from] RenderError),
    #[error(transparent)]
    Report(#[from] report::ReportError),
    #[error(transparent)]
    Chart(#[from] chart::ChartError),
    #[error(transparent)]
    Bake(#[from] bake_bench::BakeBenchError),
    #[error("{technique} × {count}: {source}")]
    Stats {
        technique: String,
        count: u32,
        #[source]
        source: StatsError,
    },
    #[error("no instance counts to measure (give --counts with numbers above 0)")]
    NoCounts,
    #[error("no techniques to measure")]
    NoTechniques,
    #[error("nothing was measured: every run was skipped")]
    NothingMeasured,
}

/// The command: the frame benchmark, or `--bake`.
pub fn run(args: &BenchArgs) -> Result<(), BenchError> {
    if args.bake {
        let report = bake_bench::run(args)?;
        print!("{}", report.text());
        if let Some(path) = &args.json {
            report.write_json(path)?;
            println!("wrote {}", path.display());
        }
        return Ok(());
    }
    let gpu = GpuContext::headless()?;
    let report = measure(gpu, args)?;
    print!("{}", report.text());
    if let Some(path) = &args.json {
        report.write_json(path)?;
        println!("wrote {}", path.display());
    }
    if let Some(path) = &args.csv {
        report.write_csv(path)?;
        println!("wrote {}", path.display());
    }
    if let Some(path) = &args.chart {
        chart::write_chart(&report, path)?;
        println!("wrote {}", path.display());
    }
    if report.results.is_empty() {
        return Err(BenchError::NothingMeasured);
    }
    Ok(())
}

/// Switches the renderer to `kind` (issue 4's `Renderer::set_technique`,
/// which builds a technique on first use). A technique that cannot be built
/// on this device is skipped with the reason.
fn select_technique(renderer: &mut Renderer, kind: TechniqueKind) -> Result<(), String> {
    renderer.set_technique(kind).map_err(|e| e.to_string())
}

/// Per-frame samples of one run: times in milliseconds, uploads in bytes.
#[derive(Default)]
struct Samples {
    cpu: Vec<f64>,
    gpu: Vec<f64>,
    shadow_gpu: Vec<f64>,
    technique_gpu: Vec<f64>,
    resolve_gpu: Vec<f64>,
    wall: Vec<f64>,
    technique_cpu: Vec<f64>,
    behaviour_cpu: Vec<f64>,
    upload_bytes: u64,
}

/// Seconds of animation per frame: a fixed 60 Hz step.
pub const FRAME_STEP_S: f32 = 1.0 / 60.0;

/// Everything one run needs besides the renderer.
#[derive(Clone, Copy)]
struct Frame<'a> {
    view: &'a wgpu::TextureView,
    camera: Camera,
    clip: Option<u32>,
}

impl Frame<'_> {
    /// With occlusion culling: the wall milliseconds of the three frames
    /// after a camera cut (one frame turned half round, then back at frame
    /// `index` on), while the visibility it keeps catches up: the first
    /// draws what the other view saw and everything it does not hide, the
    /// second what the first saw, the third leaves out what is hidden.
    fn after_cut(&self, renderer: &mut Renderer, index: u32) -> Result<Vec<f64>, RenderError> {
        let mut away = Frame {
            camera: self.camera,
            ..*self
        };
        away.camera.yaw += std::f32::consts::PI;
        away.render(renderer, index)?;
        (1..=3)
            .map(|k| self.render(renderer, index + k).map(|(_, _, wall)| wall))
            .collect()
    }

    /// Renders frame `index`; returns (cpu, gpu, wall) milliseconds; the
    /// shadow passes' GPU time is then `renderer.shadow_gpu_ms()`.
    fn render(
        &self,
        renderer: &mut Renderer,
        index: u32,
    ) -> Result<(f64, Option<f64>, f64), RenderError> {
        let settings = FrameSettings {
            time: index as f64 * FRAME_STEP_S as f64,
            clip: self.clip,
            ..FrameSettings::default()
        };
        renderer.clear_gpu_times();
        let gpu = renderer.gpu.clone();
        let start = Instant::now();
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("bench frame"),
            });
        renderer.encode(&mut encoder, self.view, &self.camera, &settings)?;
        gpu.queue.submit([encoder.finish()]);
        let cpu = start.elapsed().as_secs_f64() * 1e3;
        renderer.after_submit();
        // A failed wait (device lost) shows up as the next frame's error;
        // the time measured here is still what the frame took.
        let _ = gpu.wait_idle("the frame");
        let wall = start.elapsed().as_secs_f64() * 1e3;
        // The timestamp read-back was mapped by the wait: collect it now.
        renderer.after_submit();
        renderer.gpu.check()?;
        Ok((cpu, renderer.gpu_ms().map(f64::from), wall))
    }
}

/// The fixed camera for a count: above and to the side, the whole crowd in
/// view (with behaviour on, the herd where it starts; the flock's box is
/// the crowd's bounds).
fn bench_camera(renderer: &mut Renderer) -> Camera {
    if let Some(c) = renderer.herd_camera(0.0, 1.0) {
        return c;
    }
    let mut camera = Camera {
        yaw: 0.6,
        pitch: 0.6,
        ..Camera::default()
    };
    camera.frame(&renderer.crowd_bounds(), renderer.aspect());
    camera
}

fn percentiles(samples: &[f64], technique: &str, count: u32) -> Result<Percentiles, BenchError> {
    Percentiles::of(samples).map_err(|source| BenchError::Stats {
        technique: technique.into(),
        count,
        source,
    })
}

fn progress(total: u64) -> ProgressBar {
    let bar = ProgressBar::new(total);
    if let Ok(style) = ProgressStyle::with_template(
        "{elapsed_precise} [{bar:32}] {pos}/{len} frames, {msg} (eta {eta})",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// Runs the frame benchmark on `gpu` and returns what it found (the library
/// entry point; `run` prints and writes it).
pub fn measure(gpu: Arc<GpuContext>, args: &BenchArgs) -> Result<BenchReport, BenchError> {
    let counts = args.counts();
    let techniques = args.techniques();
    let &first_count = counts.first().ok_or(BenchError::NoCounts)?;
    if techniques.is_empty() {
        return Err(BenchError::NoTechniques);
    }
    let choice = ModelChoice::parse(&args.model);
    let prepared = setup::load(&choice, 30.0, args.precision, None)?;
    let (width, height) = args.size;
    let mut config =
        RendererConfig::for_model(&prepared, width, height, first_count, args.seed, FORMAT);
    // Deterministic: every flock step is run (one 1/60 s step per frame).
    config.behaviour = BehaviourSettings {
        enabled: args.behaviour.is_on(),
        ..Default::default()
    };
    config.cull = args.cull.settings();
    // Comparing occlusion culling measures the run with it on.
    config.cull.occlusion |= args.compare_occlusion;
    config.shadows = args.shadows.settings();
    config.targets = crate::render::targets::TargetOptions {
        aa: args.aa,
        velocity: false,
    };
    let mut renderer = Renderer::new(gpu.clone(), &prepared.model, &prepared.vat, &config)?;
    // The atlas is drawn before any frame is timed (else the first warm-up
    // frame would carry it) and its size and build time go in the report.
    if config.cull.impostors {
        renderer.ensure_impostors()?;
    }
    let target = gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("bench target"),
        size: wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: FORMAT,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
        view_formats: &[],
    });
    let view = target.create_view(&Default::default());

    let model = &prepared.model;
    let mut report = BenchReport {
        adapter: AdapterReport::from_info(&gpu.info),
        model: ModelReport {
            name: choice.label(),
            vertices: model.vertex_count() as u64,
            triangles: model.triangle_count() as u64,
            joints: model.stats.joints as u64,
            clips: prepared.vat.clips.len() as u64,
            vat_bytes: prepared.vat.total_bytes() as u64,
            precision: prepared.vat.precision.name().into(),
            bake_ms: prepared.vat.bake_ms,
        },
        size: [width, height],
        culling: config.cull.culling,
        lod: config.cull.lod,
        lod_error_px: config.cull.lod_error_px,
        shadows: config.shadows.enabled,
        aa: args.aa.label().to_owned(),
        occlusion: config.cull.occlusion && renderer.culler().occlusion_unsupported().is_none(),
        far_field: Some(far_field_report(&renderer, &config)),
        frames: args.frames,
        warmup: args.warmup,
        techniques_available: TechniqueKind::ALL
            .iter()
            .map(|k| k.name().to_owned())
            .collect(),
        results: Vec::new(),
        ratios: Ratios::default(),
        skipped: Vec::new(),
    };

    let per_run = (args.warmup + args.frames) as u64;
    // The run's settings, and with --compare-culling the same with culling
    // and LOD off, with --compare-far-field the same without the far field.
    let mut modes = vec![Mode::Run];
    if args.compare_culling {
        modes.push(Mode::Unculled);
    }
    if args.compare_far_field {
        modes.push(Mode::FarFieldOff);
    }
    if args.compare_occlusion {
        modes.push(Mode::OcclusionOff);
    }
    if args.compare_aa {
        modes.extend(mode::AA_BASELINES);
    }
    let bar = progress(per_run * (counts.len() * techniques.len() * modes.len()) as u64);
    let start = Instant::now();
    // Per technique: the last measured (instances drawn, p50 wall ms, cap),
    // for the budget.
    let mut last: Vec<Option<(u32, f64, Option<u32>)>> = vec![None; techniques.len()];
    for &count in &counts {
        let skip = |technique: &str, reason: String, report: &mut BenchReport| {
            bar.suspend(|| eprintln!("skipped {technique} × {count}: {reason}"));
            report.skipped.push(Skipped {
                technique: technique.into(),
                count,
                reason,
            });
            bar.inc(per_run);
        };
        if let Err(e) = renderer.set_count(count) {
            for &kind in &techniques {
                skip(kind.name(), e.to_string(), &mut report);
            }
            continue;
        }
        let camera = bench_camera(&mut renderer);
        let camera = args.camera.map_or(camera, |spec| spec.apply(camera));
        for (ti, &kind) in techniques.iter().enumerate() {
            let name = kind.name().to_owned();
            let left = args.budget_s - start.elapsed().as_secs_f64();
            if let Some((prev_count, prev_ms, cap)) = last[ti] {
                let drawn = count.min(cap.unwrap_or(u32::MAX));
                let estimate = stats::estimate_run_s(prev_ms, prev_count, drawn, per_run as u32);
                if estimate > left {
                    let reason = format!(
                        "estimated {estimate:.0} s (from {prev_ms:.1} ms a frame at {prev_count}) > {left:.0} s left of the {:.0} s budget",
                        args.budget_s
                    );
                    skip(&name, reason, &mut report);
                    continue;
                }
            } else if left <= 0.0 {
                skip(
                    &name,
                    format!("the {:.0} s budget is spent", args.budget_s),
                    &mut report,
                );
                continue;
            }
            if let Err(reason) = select_technique(&mut renderer, kind) {
                skip(&name, reason, &mut report);
                continue;
            }
            for &mode in &modes {
                renderer.set_cull_settings(mode.cull(config.cull));
                renderer.set_shadow_settings(mode.shadows(config.shadows));
                renderer.set_target_options(mode.targets(config.targets))?;
                let targets = renderer.targets.options;
                bar.set_message(format!("{name} × {count}{}", mode.suffix()));
                let frame = Frame {
                    view: &view,
                    camera,
                    clip: prepared.clip,
                };
                let mut samples = Samples::default();
                for i in 0..per_run as u32 {
                    let (cpu, gpu_ms, wall) = frame.render(&mut renderer, i)?;
                    if i >= args.warmup {
                        let costs = renderer.costs();
                        samples.cpu.push(cpu);
                        samples.wall.push(wall);
                        samples.gpu.extend(gpu_ms);
                        samples
                            .shadow_gpu
                            .extend(renderer.shadow_gpu_ms().map(f64::from));
                        samples
                            .resolve_gpu
                            .extend(renderer.resolve_gpu_ms().map(f64::from));
                        samples
                            .technique_gpu
                            .extend(costs.pass.and_then(|p| p.gpu_ms).map(f64::from));
                        samples.technique_cpu.push(f64::from(costs.cpu_ms));
                        samples.behaviour_cpu.push(f64::from(costs.behaviour_ms));
                        samples.upload_bytes += costs.upload_bytes;
                    }
                    bar.inc(1);
                }
                let costs = renderer.costs();
                let drew = renderer.wait_for_cull_stats();
                let cascades = renderer.shadow_stats();
                let pass = renderer.wait_for_pass_stats();
                let after_cut = if renderer.culler().occlusion_active() {
                    frame.after_cut(&mut renderer, per_run as u32)?
                } else {
                    Vec::new()
                };
                let result = RunResult {
                    technique: name.clone(),
                    count,
                    drawn: costs.drawn,
                    cap: costs.cap,
                    morphs_ignored: costs.morphs_ignored,
                    frames: args.frames,
                    cpu_ms: percentiles(&samples.cpu, &name, count)?,
                    gpu_ms: (!samples.gpu.is_empty())
                        .then(|| percentiles(&samples.gpu, &name, count))
                        .transpose()?,
                    shadow_gpu_ms: (!samples.shadow_gpu.is_empty())
                        .then(|| percentiles(&samples.shadow_gpu, &name, count))
                        .transpose()?,
                    technique_gpu_ms: (!samples.technique_gpu.is_empty())
                        .then(|| percentiles(&samples.technique_gpu, &name, count))
                        .transpose()?,
                    resolve_gpu_ms: (!samples.resolve_gpu.is_empty())
                        .then(|| percentiles(&samples.resolve_gpu, &name, count))
                        .transpose()?,
                    aa: targets.aa.label().to_owned(),
                    velocity: renderer.targets.has_velocity(),
                    aa_baseline: matches!(mode, Mode::AaBaseline(..)),
                    pass_instances: pass.map(|p| p.instances),
                    pass_vertices: pass.map(|p| p.vertices),
                    wall_ms: percentiles(&samples.wall, &name, count)?,
                    technique_cpu_ms: percentiles(&samples.technique_cpu, &name, count)?,
                    behaviour_cpu_ms: percentiles(&samples.behaviour_cpu, &name, count)?,
                    upload_bytes_per_frame: samples.upload_bytes / u64::from(args.frames.max(1)),
                    gpu_memory_bytes: costs.gpu_memory_bytes,
                    visible: drew.visible_total(),
                    triangles: drew.triangles_total(),
                    unculled: mode == Mode::Unculled,
                    far_field_off: mode == Mode::FarFieldOff,
                    occlusion_off: mode == Mode::OcclusionOff,
                    occluded: drew.occluded,
                    after_cut_wall_ms: after_cut,
                    visible_per_level: drew.visible[..drew.levels as usize].to_vec(),
                    impostors: drew.impostors(),
                    shadow_casters: cascades
                        .iter()
                        .map(|c| c.map_or(0, |c| c.visible_total()))
                        .collect(),
                    shadow_triangles: cascades
                        .iter()
                        .map(|c| c.map_or(0, |c| c.triangles_total()))
                        .collect(),
                };
                last[ti] = Some((result.drawn, result.wall_ms.p50, costs.cap));
                report.results.push(result);
                save_partial(&mut report, args);
            }
        }
    }
    bar.finish_and_clear();
    renderer.set_cull_settings(config.cull);
    renderer.set_shadow_settings(config.shadows);
    renderer.set_target_options(config.targets)?;
    report.compute_ratios();
    Ok(report)
}

/// Writes what was measured so far to `--json` and `--csv`, so that a run
/// stopped early (a time limit, a lost machine) keeps its results; the
/// end of the run writes them again, complete.
fn save_partial(report: &mut BenchReport, args: &BenchArgs) {
    report.compute_ratios();
    for (path, result) in [
        (&args.json, args.json.as_ref().map(|p| report.write_json(p))),
        (&args.csv, args.csv.as_ref().map(|p| report.write_csv(p))),
    ] {
        if let (Some(path), Some(Err(e))) = (path, result) {
            log::warn!("{}: {e}", path.display());
        }
    }
}

/// The far field's settings and atlas, for the report.
fn far_field_report(renderer: &Renderer, config: &RendererConfig) -> FarFieldReport {
    let mut report = FarFieldReport {
        impostors: config.cull.impostors,
        impostor_px: config.cull.impostor_px,
        coarse_levels: config.cull.coarse_levels,
        shadow_distance: config.shadows.distance.to_string(),
        shadow_min_texels: config.shadows.min_caster_texels,
        level_triangles: renderer
            .lod()
            .levels
            .iter()
            .map(|l| l.triangles())
            .collect(),
        ..FarFieldReport::default()
    };
    if let Some(atlas) = renderer.impostor_atlas() {
        report.atlas_bytes = atlas.bytes;
        report.atlas_build_ms = atlas.build_ms;
        report.atlas_cell = atlas.layout.cell;
        report.atlas_cells = atlas.layout.cells() * atlas.layout.layers;
    }
    report
}
