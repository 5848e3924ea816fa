//! The viewer's command-line flags (flattened into the binary's CLI).

use crate::cli::{OnOff, parse_size};
use crate::crowd::scene_spec::SceneSpec;
use crate::crowd::setup::MotionChoice;
use crate::crowd::{BehaviourSettings, FlockPreset, FlockTuning};
use crate::render::{CameraSpec, TechniqueKind};
use crate::vat::Precision;
use std::path::PathBuf;

#[derive(Clone, Debug, clap::Args)]
pub struct ViewerArgs {
    /// Model to show: horse, bird, or a .glb/.gltf file, with its count
    /// after a colon if wanted (`horse:3000`, `deer.glb:20k`). Repeat for a
    /// scene of several models (`--model horse:2000 --model bird:1500`).
    #[arg(long = "model", default_value = "horse", value_name = "MODEL[:COUNT]")]
    pub models: Vec<String>,
    /// Number of instances (1 to 10,000,000, as far as the GPU's storage bindings allow; a flock at most 1,000,000 birds) of a model given without a
    /// count (default 2000).
    #[arg(long)]
    pub count: Option<u64>,
    /// Clip every instance plays with behaviour off (default: a gallop, run,
    /// fly or walk clip when the model has one, else its first; "mixed" for
    /// each instance's own clip). With behaviour on, the herd's schedule or
    /// the flock chooses the clips. In a scene: one name for every model
    /// that has it (the others keep their default), or one per model in
    /// --model order, separated by commas (gallop,fly).
    #[arg(long)]
    pub clip: Option<String>,
    /// Technique that draws the crowd.
    #[arg(long, value_enum, default_value_t = TechniqueKind::Vat)]
    pub technique: TechniqueKind,
    /// Window or image size, WxH.
    #[arg(long, default_value = "1280x720", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Seed of the crowd's placement, phases, sizes and tints.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Render this many frames, then exit (for scripted runs).
    #[arg(long)]
    pub frames: Option<u32>,
    /// Render one deterministic frame at --time, write it as PNG, and exit.
    #[arg(long)]
    pub screenshot: Option<PathBuf>,
    /// Scene time in seconds for --screenshot.
    #[arg(long, default_value_t = 2.0)]
    pub time: f64,
    /// The view: yaw,pitch,distance[,x,y,z] (degrees, degrees, model units;
    /// the target defaults to the opening view's, which follows the herd).
    /// Applies to the window's first view and to --screenshot.
    #[arg(long, allow_hyphen_values = true)]
    pub camera: Option<CameraSpec>,
    /// Open no window at all (needs --screenshot).
    #[arg(long)]
    pub headless: bool,
    /// Bake rate in frames per second of animation.
    #[arg(long, default_value_t = 30.0)]
    pub fps: f32,
    /// Texel precision of the VAT.
    #[arg(long, default_value = "f16")]
    pub precision: Precision,
    /// Start with vsync off.
    #[arg(long)]
    pub no_vsync: bool,
    /// In a window: start with the animation paused at --time (the panel's
    /// Pause), e.g. to compare the window with a --headless screenshot.
    #[arg(long)]
    pub paused: bool,
    /// In a window: start with the panel hidden (F1 shows it again).
    #[arg(long)]
    pub no_panel: bool,
    /// The living crowd: a herd whose gait follows its speed, or a flock
    /// simulated on the GPU (off = every instance loops the same clip).
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    pub behaviour: OnOff,
    #[command(flatten)]
    pub cull: crate::cli::CullArgs,
    #[command(flatten)]
    pub shadows: crate::cli::ShadowArgs,
    #[command(flatten)]
    pub aa: crate::cli::AaArgs,
    /// Ground (the herd), air (the flock), or auto: the bird and any model
    /// with a fly/flap/glide/soar clip fly, the rest walk.
    #[arg(long, value_enum, default_value_t = MotionChoice::Auto)]
    pub motion: MotionChoice,
    /// Crossfade seconds between clips.
    #[arg(long, default_value_t = 0.25)]
    pub crossfade: f32,
    /// The herd's gait mix: relative weights of walk, gallop and idle
    /// (three numbers ≥ 0, not all 0), e.g. 0.45,0.35,0.2.
    #[arg(long, value_parser = parse_weights, default_value = "0.45,0.35,0.2")]
    pub gait_mix: [f32; 3],
    /// The flock's tuning: murmuration (one large body that flows as it
    /// circles) or clumps (classic boids: separate groups that wander).
    /// --flock-weights and --flock-speed change the preset's values.
    #[arg(long, value_enum, default_value_t = FlockPreset::Murmuration)]
    pub flock_preset: FlockPreset,
    /// The flock's steering weights: separation, alignment, cohesion
    /// (three numbers ≥ 0), e.g. 3,1,0.6 (default: the preset's).
    #[arg(long, value_parser = parse_weights)]
    pub flock_weights: Option<[f32; 3]>,
    /// The flock's top speed in model sizes per second (default: the
    /// preset's, 8).
    #[arg(long, value_parser = parse_positive)]
    pub flock_speed: Option<f32>,
    /// Press "Measure all" on the first frame (for scripted screenshots).
    #[arg(long, hide = true)]
    pub measure_all: bool,
    /// Request a few window sizes while running (window test).
    #[arg(long, hide = true)]
    pub resize_test: bool,
    /// Deliver a dropped-file event for this path at frame 3 (window test).
    #[arg(long, hide = true)]
    pub test_drop: Option<PathBuf>,
    /// Save the view as F12 does at frame 3 (window test).
    #[arg(long, hide = true)]
    pub test_save_view: bool,
    /// At frame 3, apply this scene list (MODEL:COUNT, repeatable) as the
    /// panel's Apply does (window test).
    #[arg(long, hide = true)]
    pub test_scene: Vec<String>,
    /// Destroy the GPU device after this many frames, to exercise the
    /// rebuild (window test).
    #[arg(long, hide = true)]
    pub lose_device_at: Option<u32>,
}

impl Default for ViewerArgs {
    fn default() -> Self {
        Self {
            models: vec!["horse".into()],
            count: None,
            clip: None,
            technique: TechniqueKind::Vat,
            size: (1280, 720),
            seed: 1,
            frames: None,
            screenshot: None,
            camera: None,
            time: 2.0,
            headless: false,
            fps: 30.0,
            precision: Precision::F16,
            no_vsync: false,
            paused: false,
            no_panel: false,
            behaviour: OnOff::On,
            cull: crate::cli::CullArgs::default(),
            shadows: crate::cli::ShadowArgs::default(),
            aa: crate::cli::AaArgs::default(),
            crossfade: 0.25,
            motion: MotionChoice::Auto,
            gait_mix: BehaviourSettings::default().mix,
            flock_preset: FlockPreset::default(),
            flock_weights: None,
            flock_speed: None,
            resize_test: false,
            test_drop: None,
            test_save_view: false,
            test_scene: Vec::new(),
            lose_device_at: None,
            measure_all: false,
        }
    }
}

impl ViewerArgs {
    /// The scene `--model` and `--count` ask for.
    pub fn scene(&self) -> Result<SceneSpec, crate::crowd::scene_spec::SceneSpecError> {
        SceneSpec::from_args(&self.models, self.count)
    }

    /// The behaviour settings the flags ask for (deterministic: every flock
    /// step is run, so a frame at time T is the same every time).
    pub fn behaviour_settings(&self) -> BehaviourSettings {
        let preset = self.flock_preset.tuning();
        let [w_separation, w_alignment, w_cohesion] = self.flock_weights.unwrap_or([
            preset.w_separation,
            preset.w_alignment,
            preset.w_cohesion,
        ]);
        BehaviourSettings {
            enabled: self.behaviour.is_on(),
            fade: self.crossfade.clamp(0.0, 10.0),
            mix: self.gait_mix,
            flock: FlockTuning {
                w_separation,
                w_alignment,
                w_cohesion,
                max_speed: self.flock_speed.unwrap_or(preset.max_speed),
                ..preset
            },
            ..Default::default()
        }
    }
}

/// Parses three comma-separated weights, each finite and ≥ 0, not all 0.
pub fn parse_weights(s: &str) -> Result<[f32; 3], String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    let bad = || format!("'{s}' is not three weights like 0.45,0.35,0.2");
    let [a, b, c] = parts[..] else {
        return Err(bad());
    };
    let parse = |v: &str| match v.parse::<f32>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(bad()),
    };
    let w = [parse(a)?, parse(b)?, parse(c)?];
    if w.iter().all(|&x| x == 0.0) {
        return Err(format!("'{s}': at least one weight must be above 0"));
    }
    Ok(w)
}

/// Parses a finite number above 0.
pub fn parse_positive(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err(format!("'{s}' is not a number above 0")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("512x320"), Ok((512, 320)));
        assert!(parse_size("0x10").is_err());
        assert!(parse_size("wide").is_err());
    }

    #[test]
    fn weights_parse() {
        assert_eq!(parse_weights("0.5, 0.3,0.2"), Ok([0.5, 0.3, 0.2]));
        assert!(parse_weights("1,2").is_err());
        assert!(parse_weights("1,-1,0").is_err());
        assert!(parse_weights("0,0,0").is_err());
        assert!(parse_weights("1,nan,0").is_err());
        assert!(parse_positive("0").is_err());
        assert_eq!(parse_positive("8"), Ok(8.0));
    }

    #[test]
    fn behaviour_flags_reach_the_settings() {
        use clap::Parser;
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            viewer: ViewerArgs,
        }
        let cli = Cli::parse_from([
            "stampede",
            "--gait-mix",
            "0,1,0",
            "--flock-weights",
            "2,0.5,0.25",
            "--flock-speed",
            "5",
        ]);
        let s = cli.viewer.behaviour_settings();
        assert_eq!(s.mix, [0.0, 1.0, 0.0]);
        assert_eq!(
            (
                s.flock.w_separation,
                s.flock.w_alignment,
                s.flock.w_cohesion,
                s.flock.max_speed
            ),
            (2.0, 0.5, 0.25, 5.0)
        );
        // The preset's radius and roost stay under changed weights.
        let m = FlockPreset::Murmuration.tuning();
        assert_eq!(
            (s.flock.neighbour_radius, s.flock.roost),
            (m.neighbour_radius, m.roost)
        );
        // The defaults are the settings' own defaults.
        let d = Cli::parse_from(["stampede"]).viewer.behaviour_settings();
        assert_eq!(
            (d.mix, d.flock),
            (BehaviourSettings::default().mix, FlockTuning::default())
        );
        // A preset by name, and weights over it.
        let c = Cli::parse_from(["stampede", "--flock-preset", "clumps"]).viewer;
        assert_eq!(c.behaviour_settings().flock, FlockPreset::Clumps.tuning());
        let c = Cli::parse_from(["stampede", "--flock-preset", "clumps", "--flock-speed", "3"]);
        let f = c.viewer.behaviour_settings().flock;
        assert_eq!(
            f,
            FlockTuning {
                max_speed: 3.0,
                ..FlockPreset::Clumps.tuning()
            }
        );
    }
}
