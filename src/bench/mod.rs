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
mod frame;
mod mode;
pub mod report;
mod sample;
mod scene;
pub mod stats;
pub mod synthetic;

pub use args::BenchArgs;
pub use report::BenchReport;

use crate::crowd::BehaviourSettings;
use crate::crowd::setup::SetupError;
use crate::gpu::{GpuContext, GpuError};
use crate::render::headless::FORMAT;
use crate::render::{Camera, RenderError, Renderer, RendererConfig, TechniqueKind};
use frame::Frame;
use indicatif::{ProgressBar, ProgressStyle};
use mode::Mode;
use report::{AdapterReport, FarFieldReport, Ratios, Skipped};
use sample::Run;
use scene::BenchModels;
use stats::{Percentiles, StatsError};
use std::sync::Arc;
use std::time::Instant;

/// Why the benchmark could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error(transparent)]
    Setup(#[from] SetupError),
    #[error(transparent)]
    Plan(#[from] crate::crowd::scene_spec::SceneSpecError),
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
    // A list of models that cannot be measured is refused before the GPU
    // is opened.
    args.plan()?;
    let gpu = if args.early_depth.is_on() {
        GpuContext::headless()?
    } else {
        GpuContext::headless_withholding(crate::gpu::Withheld {
            features: wgpu::Features::SHADER_EARLY_DEPTH_TEST,
            ..Default::default()
        })?
    };
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

/// Seconds of animation per frame: a fixed 60 Hz step.
pub const FRAME_STEP_S: f32 = 1.0 / 60.0;

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
    let plan = args.plan()?;
    let counts = plan.counts.clone();
    let techniques = args.techniques();
    let &first_count = counts.first().ok_or(BenchError::NoCounts)?;
    if techniques.is_empty() {
        return Err(BenchError::NoTechniques);
    }
    let models = BenchModels::load(&plan, args.precision)?;
    let (width, height) = args.size;
    let mut config = models.config(args.size, first_count, args.seed);
    // Deterministic: every flock step is run (one 1/60 s step per frame).
    config.behaviour = BehaviourSettings {
        enabled: args.behaviour.is_on(),
        ..Default::default()
    };
    config.cull = args.cull.settings();
    // Comparing occlusion culling measures the run with it on.
    config.cull.occlusion |= args.compare_occlusion;
    config.shadows = args.shadows.settings();
    config.targets = crate::render::passes::targets::TargetOptions {
        aa: args.aa,
        velocity: false,
        // The exact visibility count draws against the final depth.
        keep_depth: args.exact_visibility,
    };
    let mut renderer = models.renderer(&gpu, &config)?;
    let occlusion_unavailable = renderer.culler().occlusion_unavailable().map(str::to_owned);
    if let Some(why) = &occlusion_unavailable {
        let flag = if args.compare_occlusion {
            "--compare-occlusion"
        } else {
            "--occlusion on"
        };
        eprintln!("{flag}: occlusion culling is off: {why}");
    }
    // The atlas is drawn before any frame is timed (else the first warm-up
    // frame would carry it) and its size and build time go in the report.
    if config.cull.impostors {
        renderer.ensure_impostors()?;
    }
    let mut separate = if args.compare_separate {
        models.separate(&gpu, &config)?
    } else {
        Vec::new()
    };
    for r in separate.iter_mut().filter(|_| config.cull.impostors) {
        r.ensure_impostors()?;
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

    let (model, scene_models) = models.reports();
    let mut report = BenchReport {
        adapter: AdapterReport::from_gpu(&gpu),
        model,
        models: scene_models,
        size: [width, height],
        culling: config.cull.culling,
        lod: config.cull.lod,
        lod_error_px: config.cull.lod_error_px,
        shadows: config.shadows.enabled,
        aa: args.aa.label().to_owned(),
        occlusion: config.cull.occlusion && occlusion_unavailable.is_none(),
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
    let modes = modes(args);
    let bar = progress(per_run * (counts.len() * techniques.len() * modes.len()) as u64);
    let start = Instant::now();
    let names = models.names();
    let clips = models.clips();
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
            bar.inc(per_run * modes.len() as u64);
        };
        // A scene is measured at its own counts.
        if !plan.is_scene()
            && let Err(e) = renderer.set_count(count)
        {
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
                bar.set_message(format!("{name} × {count}{}", mode.suffix()));
                let run = Run {
                    technique: &name,
                    count,
                    warmup: args.warmup,
                    frames: args.frames,
                    models: &names,
                    exact_visibility: args.exact_visibility,
                };
                let alone = std::slice::from_mut(&mut renderer);
                let renderers = if mode == Mode::Separate {
                    &mut separate[..]
                } else {
                    alone
                };
                if mode == Mode::Separate
                    && let Some(reason) = renderers
                        .iter_mut()
                        .find_map(|r| select_technique(r, kind).err())
                {
                    bar.suspend(|| eprintln!("skipped {name} × {count} (separate): {reason}"));
                    bar.inc(per_run);
                    continue;
                }
                for r in renderers.iter_mut() {
                    r.set_cull_settings(mode.cull(config.cull));
                    r.set_shadow_settings(mode.shadows(config.shadows));
                    r.set_target_options(mode.targets(config.targets))?;
                }
                let frame = Frame {
                    view: &view,
                    camera,
                    clips: if mode == Mode::Separate {
                        &clips
                    } else {
                        &clips[..1]
                    },
                };
                let mut result = run.measure(renderers, &frame, &bar)?;
                result.unculled = mode == Mode::Unculled;
                result.far_field_off = mode == Mode::FarFieldOff;
                result.occlusion_off = mode == Mode::OcclusionOff;
                result.square_impostors = mode == Mode::SquareImpostors;
                result.splat_off = mode == Mode::SplatOff;
                result.state_computed = mode == Mode::StateComputed;
                result.aa_baseline = matches!(mode, Mode::AaBaseline(..));
                result.separate = mode == Mode::Separate;
                if mode == Mode::Run {
                    last[ti] = Some((result.drawn, result.wall_ms.p50, result.cap));
                }
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

/// The run's settings, and with --compare-culling the same with culling
/// and LOD off, with --compare-far-field the same without the far field,
/// and so on: one measurement each.
fn modes(args: &BenchArgs) -> Vec<Mode> {
    let mut modes = vec![Mode::Run];
    if args.compare_separate {
        modes.push(Mode::Separate);
    }
    if args.compare_culling {
        modes.push(Mode::Unculled);
    }
    if args.compare_far_field {
        modes.push(Mode::FarFieldOff);
    }
    if args.compare_occlusion {
        modes.push(Mode::OcclusionOff);
    }
    if args.compare_impostor_quads {
        modes.push(Mode::SquareImpostors);
    }
    if args.compare_splat {
        modes.push(Mode::SplatOff);
    }
    if args.compare_state {
        modes.push(Mode::StateComputed);
    }
    if args.compare_aa {
        modes.extend(mode::AA_BASELINES);
    }
    modes
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
        // Asked for and built.
        impostors: config.cull.impostors && renderer.impostor_atlas().is_some(),
        impostor_px: config.cull.impostor_px,
        tight_impostors: config.cull.tight_impostors,
        splats: config.cull.splats && renderer.impostor_atlas().is_some(),
        splat_px: config.cull.splat_px,
        resolved_state: config.cull.resolved_state,
        caster_list: renderer.culler().lists_casters(),
        coarse_levels: config.cull.coarse_levels,
        shadow_distance: config.shadows.distance.to_string(),
        shadow_min_texels: config.shadows.min_caster_texels,
        shadow_error_scale: config.shadows.caster_error_scale,
        level_triangles: renderer
            .scene()
            .models
            .iter()
            .map(|m| m.lod.levels.iter().map(|l| l.triangles()).collect())
            .collect(),
        ..FarFieldReport::default()
    };
    if let Some(atlas) = renderer.impostor_atlas() {
        report.atlas_bytes = atlas.bytes;
        report.atlas_build_ms = atlas.build_ms;
        report.atlas_cell = atlas.models.iter().map(|(l, _)| l.cell).max().unwrap_or(0);
        report.atlas_cells = atlas.models.iter().map(|(l, _)| l.cells() * l.layers).sum();
    }
    report
}
