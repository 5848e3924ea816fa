//! The viewer's command-line flags (flattened into the binary's CLI).

use crate::cli::{OnOff, parse_size};
use crate::render::TechniqueKind;
use crate::vat::Precision;
use std::path::PathBuf;

#[derive(Clone, Debug, clap::Args)]
pub struct ViewerArgs {
    /// Model to show: horse, bird, or a .glb/.gltf file.
    #[arg(long, default_value = "horse")]
    pub model: String,
    /// Number of instances (1 to 1,000,000).
    #[arg(long, default_value_t = 2000)]
    pub count: u64,
    /// Clip every instance plays with behaviour off (default: a gallop, run,
    /// fly or walk clip when the model has one, else its first; "mixed" for
    /// each instance's own clip). With behaviour on, the herd's schedule or
    /// the flock chooses the clips.
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
    /// The living crowd: a herd whose gait follows its speed, or a flock
    /// simulated on the GPU (off = every instance loops the same clip).
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    pub behaviour: OnOff,
    /// Crossfade seconds between clips.
    #[arg(long, default_value_t = 0.25)]
    pub crossfade: f32,
    /// Press "Measure all" on the first frame (for scripted screenshots).
    #[arg(long, hide = true)]
    pub measure_all: bool,
    /// Request a few window sizes while running (window test).
    #[arg(long, hide = true)]
    pub resize_test: bool,
    /// Destroy the GPU device after this many frames, to exercise the
    /// rebuild (window test).
    #[arg(long, hide = true)]
    pub lose_device_at: Option<u32>,
}

impl Default for ViewerArgs {
    fn default() -> Self {
        Self {
            model: "horse".into(),
            count: 2000,
            clip: None,
            technique: TechniqueKind::Vat,
            size: (1280, 720),
            seed: 1,
            frames: None,
            screenshot: None,
            time: 2.0,
            headless: false,
            fps: 30.0,
            precision: Precision::F16,
            no_vsync: false,
            behaviour: OnOff::On,
            crossfade: 0.25,
            resize_test: false,
            lose_device_at: None,
            measure_all: false,
        }
    }
}

impl ViewerArgs {
    /// The behaviour settings the flags ask for (deterministic: every flock
    /// step is run, so a frame at time T is the same every time).
    pub fn behaviour_settings(&self) -> crate::crowd::BehaviourSettings {
        crate::crowd::BehaviourSettings {
            enabled: self.behaviour.is_on(),
            fade: self.crossfade.clamp(0.0, 10.0),
            ..Default::default()
        }
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
}
