//! The flags of `stampede bench`.

use crate::crowd::scene_spec::{SceneSpec, SceneSpecError, split_entry};
use crate::render::TechniqueKind;
use std::path::PathBuf;

pub const EXAMPLES: &str = "Examples:
  stampede bench                                        every technique at 100, 1,000 and 10,000 horses
  stampede bench --counts 10,100,1000 --frames 20 --warmup 3 --json bench.json --chart bench.png
  stampede bench --model bird --techniques vat,static --counts 1000,100000
  stampede bench --model ../shared/models/Fox.glb --size 640x360 --csv fox.csv
  stampede bench --model horse:40k --model bird:30k --model ../shared/models/QuaterniusDeer.gltf:30k --compare-separate
                                                        one scene of three models against three renderers
  stampede bench --bake                                 time import and bake: horse, bird, Fox, synthetic 50k

Frame times are p50/p90/p99 (nearest rank) over the measured frames, after the
warm-up. CPU = prepare + encode + submit; GPU = timestamp queries around the
scene pass (the shadow passes and a technique's own pass, such as compute
skinning's skin pass, apart); wall = the whole frame including a wait for the
GPU to finish.";

/// Arguments of `stampede bench`.
#[derive(clap::Args, Clone, Debug)]
pub struct BenchArgs {
    /// Model: horse, bird, or a .glb/.gltf file; repeat it, each with
    /// its count, for a scene of several (`--model horse:40k --model
    /// bird:30k`), measured once per technique at its total.
    #[arg(long = "model", default_value = "horse", value_name = "MODEL[:COUNT]")]
    pub models: Vec<String>,
    /// Techniques to measure, comma-separated (default: every one the renderer has).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub techniques: Vec<TechniqueKind>,
    /// Instance counts, comma-separated (measured in ascending order;
    /// default 100,1000,10000). Not with a count in --model.
    #[arg(long, value_delimiter = ',')]
    pub counts: Vec<u32>,
    /// Measured frames per (technique, count).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..))]
    pub frames: u32,
    /// Unmeasured warm-up frames before each measurement.
    #[arg(long, default_value_t = 10)]
    pub warmup: u32,
    /// Offscreen image size, WxH.
    #[arg(long, default_value = "1280x720", value_parser = crate::cli::parse_size)]
    pub size: (u32, u32),
    /// Seed of the crowd (placement, phases, clips).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The living crowd (herd or flock, with crossfades); off by default so
    /// the figures stay comparable with the recorded ones.
    #[arg(long, value_enum, default_value_t = crate::cli::OnOff::Off)]
    pub behaviour: crate::cli::OnOff,
    #[command(flatten)]
    pub cull: crate::cli::CullArgs,
    /// With a scene of several models: also draw each model by its own
    /// renderer (its own cull pass and draws), all into one frame, and
    /// report the scene ÷ the separate renderers.
    #[arg(long)]
    pub compare_separate: bool,
    /// Also measure every technique and count with culling and LOD off,
    /// and report culled ÷ unculled (one run, the same frames).
    #[arg(long)]
    pub compare_culling: bool,
    /// Also measure every technique and count with the far field off (no
    /// coarse levels, impostors, caster skipping or shadow distance), and
    /// report with ÷ without (one run, the same frames).
    #[arg(long)]
    pub compare_far_field: bool,
    /// Measure every technique and count with occlusion culling on (as if
    /// --occlusion on) and off, and report on ÷ off (one run, the same
    /// frames), with the frames after a camera cut.
    #[arg(long)]
    pub compare_occlusion: bool,
    /// Also measure every technique and count with the impostors' quads
    /// the bounding sphere's squares (as if --tight-impostors off), and
    /// report tight ÷ square (one run, the same frames).
    #[arg(long)]
    pub compare_impostor_quads: bool,
    /// Also measure every technique and count with the splat level off
    /// (as if --splat off: the sub-pixel far field drawn as impostors),
    /// and report splats on ÷ off (one run, the same frames).
    #[arg(long)]
    pub compare_splat: bool,
    /// Also measure every technique and count with each vertex computing
    /// its instance's state (as if --resolved-state off), and report the
    /// state kept by the cull pass ÷ computed per vertex (one run, the same
    /// frames).
    #[arg(long)]
    pub compare_state: bool,
    /// off: open the device without the early depth test for shaders that
    /// write depth, as a browser's WebGPU has none (the impostors' depth
    /// test then runs after their fragments; the picture is the same).
    /// Compare two runs, on and off, for what it saves.
    #[arg(long, value_enum, default_value_t = crate::cli::OnOff::On)]
    pub early_depth: crate::cli::OnOff,
    /// After the measured frames, draw each instance in view alone against
    /// the last frame's depth and count those with a sample showing: what
    /// a perfect occlusion culler would draw (`exact` in the JSON, the
    /// `exact_*` columns; vat only, one renderer, the cull pass on). Its
    /// runs keep each frame's depth for it, so their times also pay for
    /// storing it: compare them with each other, not with other runs.
    #[arg(long)]
    pub exact_visibility: bool,
    #[command(flatten)]
    pub shadows: crate::cli::ShadowArgs,
    /// Anti-aliasing of the measured frames: msaa (4x), taa (temporal:
    /// the velocity target and the resolve) or off.
    #[arg(long, default_value = "msaa", value_parser = crate::crowd::motion::Aa::parse)]
    pub aa: crate::crowd::motion::Aa,
    /// Also measure every technique and count with 4x MSAA, with no
    /// anti-aliasing, and with none but the velocity target, and report
    /// the run's --aa ÷ each and velocity ÷ none (one run, the same
    /// frames): what TAA and the motion vectors cost.
    #[arg(long)]
    pub compare_aa: bool,
    /// Texel precision of the VAT: f16, f32 or packed (one 8-byte texel).
    #[arg(long, default_value = "f16")]
    pub precision: crate::vat::Precision,
    /// The view for every count: yaw,pitch,distance[,x,y,z] (degrees,
    /// degrees, model units; the target defaults to the default view's).
    #[arg(long, allow_hyphen_values = true)]
    pub camera: Option<crate::render::CameraSpec>,
    /// Write the results as JSON.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write one CSV row per (technique, count).
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// Draw frame time against count per technique (log-log PNG).
    #[arg(long)]
    pub chart: Option<PathBuf>,
    /// Time budget in seconds: a run whose estimated time exceeds what is
    /// left is skipped with a message.
    #[arg(long, default_value_t = 600.0)]
    pub budget_s: f64,
    /// Time the import and bake of the horse, the bird, the Fox and a
    /// synthetic 50,000-vertex mesh instead of rendering.
    #[arg(long)]
    pub bake: bool,
    /// Repetitions per model for --bake (the median is reported).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub reps: u32,
    /// The Fox for --bake (default: ../shared/models/Fox.glb).
    #[arg(long)]
    pub fox: Option<PathBuf>,
}

impl Default for BenchArgs {
    fn default() -> Self {
        Self {
            models: vec!["horse".into()],
            techniques: Vec::new(),
            counts: Vec::new(),
            frames: 100,
            warmup: 10,
            size: (1280, 720),
            seed: 1,
            behaviour: crate::cli::OnOff::Off,
            cull: crate::cli::CullArgs::default(),
            compare_separate: false,
            compare_culling: false,
            compare_far_field: false,
            compare_occlusion: false,
            compare_impostor_quads: false,
            compare_splat: false,
            compare_state: false,
            early_depth: crate::cli::OnOff::On,
            exact_visibility: false,
            shadows: crate::cli::ShadowArgs::default(),
            aa: crate::crowd::motion::Aa::Msaa,
            compare_aa: false,
            precision: crate::vat::Precision::F16,
            camera: None,
            json: None,
            csv: None,
            chart: None,
            budget_s: 600.0,
            bake: false,
            reps: 3,
            fox: None,
        }
    }
}

impl BenchArgs {
    /// The techniques to run, in `TechniqueKind::ALL` order, without repeats.
    pub fn techniques(&self) -> Vec<TechniqueKind> {
        TechniqueKind::ALL
            .iter()
            .copied()
            .filter(|k| self.techniques.is_empty() || self.techniques.contains(k))
            .collect()
    }

    /// The counts --counts asks for (100, 1,000 and 10,000 when it is not
    /// given), ascending, without repeats or zeros.
    pub fn counts(&self) -> Vec<u32> {
        let given = if self.counts.is_empty() {
            &DEFAULT_COUNTS[..]
        } else {
            &self.counts[..]
        };
        let mut c: Vec<u32> = given.iter().copied().filter(|&c| c > 0).collect();
        c.sort_unstable();
        c.dedup();
        c
    }

    /// What is measured: one model at each count, or a scene of several
    /// at its own counts (one run per technique).
    pub fn plan(&self) -> Result<BenchPlan, SceneSpecError> {
        let counted = self
            .models
            .iter()
            .map(|m| split_entry(m).map(|(_, c)| c.is_some()))
            .collect::<Result<Vec<bool>, _>>()?;
        let scene = SceneSpec::from_args(&self.models, None)?;
        if (counted.iter().any(|&c| c) || scene.entries.len() > 1) && !self.counts.is_empty() {
            return Err(SceneSpecError::CountsWithScene);
        }
        if scene.entries.len() == 1 {
            let counts = if counted[0] {
                vec![scene.entries[0].count]
            } else {
                self.counts()
            };
            if self.compare_separate {
                return Err(SceneSpecError::SeparateNeedsScene);
            }
            return Ok(BenchPlan { scene, counts });
        }
        let total = scene.total() as u32;
        Ok(BenchPlan {
            scene,
            counts: vec![total],
        })
    }
}

/// The counts measured when --counts is not given.
pub const DEFAULT_COUNTS: [u32; 3] = [100, 1000, 10000];

/// What a benchmark measures: the models (one, or a scene's) and the
/// counts (one model's, ascending; a scene's total).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchPlan {
    pub scene: SceneSpec,
    pub counts: Vec<u32>,
}

impl BenchPlan {
    /// A scene of several models (else one model at each count).
    pub fn is_scene(&self) -> bool {
        self.scene.entries.len() > 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_sorted_and_unique() {
        let args = BenchArgs {
            counts: vec![1000, 10, 0, 1000, 100],
            ..BenchArgs::default()
        };
        assert_eq!(args.counts(), vec![10, 100, 1000]);
    }

    #[test]
    fn a_plan_is_one_model_at_each_count_or_a_scene_at_its_own() {
        let args = |models: &[&str], counts: &[u32], separate: bool| BenchArgs {
            models: models.iter().map(|m| m.to_string()).collect(),
            counts: counts.to_vec(),
            compare_separate: separate,
            ..BenchArgs::default()
        };
        let plan = BenchArgs::default().plan().unwrap();
        assert!(!plan.is_scene());
        assert_eq!(plan.counts, DEFAULT_COUNTS);
        assert_eq!(
            args(&["bird"], &[5, 50], false).plan().unwrap().counts,
            [5, 50]
        );
        assert_eq!(
            args(&["bird:7k"], &[], false).plan().unwrap().counts,
            [7000]
        );
        let scene = args(&["horse:40k", "bird:30k"], &[], true).plan().unwrap();
        assert!(scene.is_scene());
        assert_eq!(scene.counts, [70_000]);
        assert_eq!(scene.scene.describe(), "horse ×40000, bird ×30000");
        assert_eq!(
            args(&["horse:40k", "bird"], &[100], false).plan(),
            Err(SceneSpecError::CountsWithScene)
        );
        assert_eq!(
            args(&["horse", "bird"], &[100], false).plan(),
            Err(SceneSpecError::CountsWithScene)
        );
        assert_eq!(
            args(&["horse"], &[], true).plan(),
            Err(SceneSpecError::SeparateNeedsScene)
        );
        assert_eq!(
            args(&["horse:lots"], &[], false).plan(),
            Err(SceneSpecError::BadCount {
                entry: "horse:lots".into()
            })
        );
    }

    #[test]
    fn default_techniques_are_all() {
        assert_eq!(
            BenchArgs::default().techniques(),
            TechniqueKind::ALL.to_vec()
        );
    }
}
