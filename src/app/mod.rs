//! The viewer: a winit window with an egui panel, or one headless frame.

pub mod aa_ui;
mod args;
mod atlas_ui;
mod clip_ui;
pub mod costs_ui;
pub mod cull_ui;
mod flock_ui;
pub mod measure;
mod model_ui;
pub mod occlusion_ui;
pub mod recent;
mod scene_ui;
pub mod shadow_ui;
mod ui;
#[cfg(test)]
mod ui_test;
mod window;

use crate::crowd::setup::{ModelChoice, load_with};
use crate::crowd::{self, FrameSettings};
use crate::gpu::GpuContext;
use crate::render::RendererConfig;
use crate::render::headless::{self, Headless};
use anyhow::Context;
pub use args::ViewerArgs;

/// Runs the viewer as the flags ask: a window, or a headless screenshot.
pub fn run(args: ViewerArgs) -> anyhow::Result<()> {
    let scene = args.scene()?;
    let [entry] = scene.entries.as_slice() else {
        if args.headless {
            return screenshot_scene(&args, &scene);
        }
        return window::run(
            args,
            scene.clone(),
            scene.total().min(u32::MAX as u64) as u32,
        );
    };
    let (choice, count) = (entry.choice.clone(), clamp_count(entry.count as u64));
    if args.headless && args.screenshot.is_none() {
        anyhow::bail!(
            "--headless renders one frame to a file: add --screenshot PATH (and --time T)"
        );
    }
    if args.aa.motion_blur && args.aa.aa != crowd::motion::Aa::Taa {
        anyhow::bail!(
            "--motion-blur needs --aa taa (it blurs TAA's resolved picture; with MSAA the \
             picture is resolved straight into the output, which cannot be read back)"
        );
    }
    if args.headless {
        return screenshot_headless(&args, &choice, count);
    }
    window::run(
        args,
        crate::crowd::scene_spec::SceneSpec::single(choice, count),
        count,
    )
}

/// The viewer in a browser page (examples/browser): the flags come from
/// the page's address (`?args=--model+bird+--count+2000`), and an error
/// is shown on the page.
#[cfg(target_arch = "wasm32")]
pub fn run_in_browser() {
    use clap::Parser;
    #[derive(clap::Parser)]
    #[command(
        name = "stampede",
        about = "Stampede in a browser: the viewer's flags go in the page's address, \
                 ?args=--model+bird+--count+2000"
    )]
    struct Page {
        #[command(flatten)]
        viewer: ViewerArgs,
    }
    window::install_logging();
    let result = Page::try_parse_from(window::web_flags())
        .map_err(|e| anyhow::anyhow!("{e}"))
        .and_then(|page| {
            if page.viewer.headless {
                anyhow::bail!("--headless writes a file: run the native `stampede` for that");
            }
            run(page.viewer)
        });
    if let Err(e) = result {
        window::show_error(&format!("{e:#}"));
    }
}

/// Says what the flags asked for that this renderer cannot do. In a
/// window the panel says it too: its occlusion switch is disabled with the
/// reason, and its mip slider stops at the pyramid's last mip.
pub(crate) fn say_unavailable(renderer: &crate::render::Renderer) {
    let culler = renderer.culler();
    let unavailable = culler.occlusion_unavailable();
    if let Some(why) = unavailable {
        eprintln!("--occlusion on: occlusion culling is off: {why}");
    }
    match culler.settings.pyramid_mip {
        Some(_) if !culler.settings.occlusion => eprintln!(
            "--pyramid-mip shows occlusion culling's depth pyramid, which is off: add --occlusion on"
        ),
        Some(mip) if unavailable.is_none() => {
            let (w, h) = (renderer.targets.width, renderer.targets.height);
            let last = crate::crowd::occlusion::mip_sizes(w, h)
                .len()
                .saturating_sub(1);
            if mip as usize > last {
                eprintln!(
                    "--pyramid-mip {mip}: the pyramid of a {w}×{h} picture has mips 0 to {last}; showing {last}"
                );
            }
        }
        _ => {}
    }
}

/// Refuses 0 and clamps absurd counts, saying so.
pub fn clamp_count(count: u64) -> u32 {
    if count == 0 {
        eprintln!("a count of 0 draws nothing; using 1");
        return 1;
    }
    if count > crowd::MAX_INSTANCES as u64 {
        eprintln!(
            "a count of {count} is more than the viewer's limit; using {}",
            crowd::MAX_INSTANCES
        );
        return crowd::MAX_INSTANCES;
    }
    count as u32
}

fn screenshot_headless(args: &ViewerArgs, choice: &ModelChoice, count: u32) -> anyhow::Result<()> {
    let path = args
        .screenshot
        .clone()
        .context("--headless needs --screenshot PATH")?;
    let prepared = load_with(
        choice,
        args.fps,
        args.precision,
        args.clip.as_deref(),
        args.motion,
    )?;
    let gpu = GpuContext::headless()?;
    eprintln!(
        "{}: {} vertices, baked in {:.0} ms; GPU: {}",
        prepared.model.name(),
        prepared.model.vertex_count(),
        prepared.vat.bake_ms,
        gpu.description()
    );
    let (w, h) = args.size;
    let mut config = RendererConfig::for_model(&prepared, w, h, count, args.seed, headless::FORMAT);
    config.behaviour = args.behaviour_settings();
    config.cull = args.cull.settings();
    config.shadows = args.shadows.settings();
    config.targets = args.aa.targets();
    let mut view = Headless::new(gpu, &prepared.model, &prepared.vat, &config)?;
    view.renderer.set_clip(0, prepared.clip);
    say_unavailable(&view.renderer);
    view.renderer.set_technique(args.technique)?;
    view.renderer.post.show_motion = args.aa.motion_view;
    view.renderer.post.motion_blur = args.aa.motion_blur;
    let settings = FrameSettings {
        time: args.time,
        ..FrameSettings::default()
    };
    // The herd and the flock move: aim at where they are at this time (the
    // flock is simulated on the GPU: a first frame brings it to the time).
    view.camera = view.renderer.camera_at(settings.time, settings.playback);
    if view.renderer.layout.motion == crate::crowd::Motion::Flock {
        // Bring the flock to the time a second of steps per submission,
        // without drawing it: all of them in one would outlast the
        // read-back's patience on a CPU rasterizer.
        view.renderer.hide_crowd = true;
        let mut t = 1.0;
        while t < settings.time {
            view.draw_frame(&FrameSettings {
                time: t,
                ..settings
            })?;
            t += 1.0;
        }
        view.renderer.hide_crowd = false;
        view.render(&settings)?;
        if let Some(c) = view.renderer.flock_camera() {
            view.camera = c;
        }
    }
    shoot(view, args, settings, count, &path)
}

/// A scene of several models, loaded in parallel (one that fails is named
/// and the others drawn), drawn as one crowd into a PNG.
fn screenshot_scene(
    args: &ViewerArgs,
    scene: &crate::crowd::scene_spec::SceneSpec,
) -> anyhow::Result<()> {
    let path = args
        .screenshot
        .clone()
        .context("--headless needs --screenshot PATH")?;
    let load = load_scene(args, scene)?;
    let gpu = GpuContext::headless()?;
    for (l, count) in &load.loaded {
        eprintln!(
            "{} ×{count}: {} vertices, baked in {:.0} ms",
            l.model.name(),
            l.model.vertex_count(),
            l.vat.bake_ms
        );
    }
    eprintln!("GPU: {}", gpu.description());
    let (w, h) = args.size;
    let models: Vec<crate::render::data::models::SceneModel<'_>> = load
        .loaded
        .iter()
        .map(|(loaded, count)| crate::render::data::models::SceneModel {
            loaded,
            count: *count,
        })
        .collect();
    let total = models.iter().map(|m| m.count).sum();
    let mut config =
        RendererConfig::for_model(&load.loaded[0].0, w, h, total, args.seed, headless::FORMAT);
    config.behaviour = args.behaviour_settings();
    config.cull = args.cull.settings();
    config.shadows = args.shadows.settings();
    config.targets = args.aa.targets();
    let mut view = Headless::from_scene(gpu, &models, &config)?;
    say_unavailable(&view.renderer);
    view.renderer.set_technique(args.technique)?;
    view.renderer.post.show_motion = args.aa.motion_view;
    view.renderer.post.motion_blur = args.aa.motion_blur;
    let settings = FrameSettings {
        time: args.time,
        ..FrameSettings::default()
    };
    view.camera = view.renderer.camera_at(settings.time, settings.playback);
    shoot(view, args, settings, total, &path)?;
    if !load.failed.is_empty() {
        anyhow::bail!(
            "{} of {} models could not be loaded (why is said above); the picture has the others",
            load.failed.len(),
            scene.entries.len()
        );
    }
    Ok(())
}

/// The models of a scene of several, loaded in parallel as the flags ask;
/// each that fails is named (the others are drawn), and none loading is an
/// error.
fn load_scene(
    args: &ViewerArgs,
    scene: &crate::crowd::scene_spec::SceneSpec,
) -> anyhow::Result<crate::crowd::scene_spec::SceneLoad> {
    let clips = crate::crowd::scene_spec::scene_clips(args.clip.as_deref(), scene.entries.len())?;
    // One clip name for all: the models that have it play it, the others
    // their default (a bird has no gallop).
    let shared = args
        .clip
        .as_deref()
        .filter(|c| !c.contains(',') && *c != "mixed");
    let per_model = if shared.is_some() {
        &[][..]
    } else {
        &clips[..]
    };
    let mut load = crate::crowd::scene_spec::load_scene(
        scene,
        args.fps,
        args.precision,
        per_model,
        args.motion,
    );
    if let Some(name) = shared {
        apply_shared_clip(&mut load, name)?;
    }
    for (name, e) in &load.failed {
        eprintln!("error: {name}: {e} (the other models are drawn)");
    }
    if load.loaded.is_empty() {
        anyhow::bail!("no model of the scene could be loaded");
    }
    Ok(load)
}

/// `--clip NAME` in a scene: each model that has the clip plays it, the
/// others keep their default and are named; an error when none has it.
fn apply_shared_clip(
    load: &mut crate::crowd::scene_spec::SceneLoad,
    name: &str,
) -> anyhow::Result<()> {
    let mut played = false;
    let mut others = Vec::new();
    for (loaded, _) in &mut load.loaded {
        match loaded.vat.clip_index(name) {
            Some(i) => {
                loaded.clip = Some(i as u32);
                played = true;
            }
            None => others.push(format!(
                "{} has no such clip and plays its default ({})",
                loaded.model.name(),
                loaded
                    .clip
                    .and_then(|c| loaded.vat.clips.get(c as usize))
                    .map_or("each its own", |c| c.name.as_str()),
            )),
        }
    }
    if played {
        for line in others {
            eprintln!("--clip {name}: {line}");
        }
    } else {
        let clips: Vec<String> = (load.loaded.iter())
            .map(|(l, _)| {
                let names: Vec<&str> = l.vat.clips.iter().map(|c| c.name.as_str()).collect();
                format!("{}: {}", l.model.name(), names.join(", "))
            })
            .collect();
        anyhow::bail!(
            "--clip {name}: no model of the scene has this clip ({}); give one per model with commas, in --model order",
            clips.join("; ")
        );
    }
    Ok(())
}

/// The rest of a screenshot, once the view is aimed: `--camera`, the
/// frames occlusion culling and TAA need, the PNG.
fn shoot(
    mut view: Headless,
    args: &ViewerArgs,
    settings: FrameSettings,
    count: u32,
    path: &std::path::Path,
) -> anyhow::Result<()> {
    let (w, h) = args.size;
    if let Some(spec) = &args.camera {
        view.camera = spec.apply(view.camera);
    }
    // Occlusion culling learns over two frames what is hidden: the picture
    // is the same without them, its depth pyramid (--pyramid-mip) is not.
    if view.renderer.cull_settings().occlusion {
        for _ in 0..2 {
            view.draw_frame(&settings)?;
        }
    }
    // TAA's picture is the history's: the frame after a jitter cycle
    // paused at the time (the motion view and motion blur, a frame's step
    // before it).
    let settled = if args.aa.aa == crate::crowd::motion::Aa::Taa {
        crate::crowd::motion::JITTER_FRAMES
    } else {
        0
    };
    for _ in 0..settled {
        view.draw_frame(&settings)?;
    }
    if args.aa.motion_view || args.aa.motion_blur {
        view.draw_frame(&FrameSettings {
            time: settings.time - 1.0 / 60.0,
            ..settings
        })?;
    }
    let image = view.render(&settings)?;
    image.save_png(path)?;
    let costs = view.renderer.costs();
    if costs.capped() {
        eprintln!(
            "{} capped at {} of {count} instances",
            costs.kind.label(),
            costs.drawn
        );
    }
    eprintln!(
        "wrote {} ({w}×{h}, {count} instances, {}, t = {} s)",
        path.display(),
        costs.kind,
        args.time
    );
    Ok(())
}
