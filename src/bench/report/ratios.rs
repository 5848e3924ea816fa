//! The report's ratios: each technique against VAT, and each comparison's
//! run against its baseline, at the counts where both were measured.

use super::{BenchReport, RunResult};
use crate::bench::stats::ratio;
use serde::{Deserialize, Serialize};

/// One technique at one count: culled (the report's settings) ÷ unculled.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CullRatio {
    pub technique: String,
    pub count: u32,
    /// Scene triangles drawn (the last measured frame's).
    #[serde(default)]
    pub triangles: Option<f64>,
    pub wall_ms: Option<f64>,
    pub cpu_ms: Option<f64>,
    pub gpu_ms: Option<f64>,
}

/// A ratio of p50 frame times at one count (GPU: of every timed pass,
/// [`RunResult::gpu_total_ms`]); `null` where a side is missing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatioAtCount {
    pub count: u32,
    pub wall_ms: Option<f64>,
    pub cpu_ms: Option<f64>,
    pub gpu_ms: Option<f64>,
}

/// How VAT's CPU time grows from the smallest count to the largest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScaleRatio {
    pub smallest_count: u32,
    pub largest_count: u32,
    /// p50 CPU ms at the largest ÷ at the smallest.
    pub ratio: Option<f64>,
}

/// The ratios that matter.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Ratios {
    /// Live bone-matrix skinning ÷ VAT, per count (above 1: VAT is faster).
    pub skinning_over_vat: Vec<RatioAtCount>,
    /// VAT ÷ static rest pose, per count (1 = animation for free).
    pub vat_over_static: Vec<RatioAtCount>,
    /// Compute skinning ÷ VAT, per count (above 1: VAT is faster).
    #[serde(default)]
    pub compute_skinning_over_vat: Vec<RatioAtCount>,
    /// Compute skinning from the bone texture ÷ VAT, per count.
    #[serde(default)]
    pub compute_bone_texture_over_vat: Vec<RatioAtCount>,
    pub vat_cpu_largest_over_smallest: Option<ScaleRatio>,
    /// With `--compare-culling`: each technique with the run's culling and
    /// LOD ÷ with both off (below 1: culling and LOD save).
    #[serde(default)]
    pub culled_over_unculled: Vec<CullRatio>,
    /// With `--compare-far-field`: each technique with the far field ÷
    /// without it (below 1: the far field saves).
    #[serde(default)]
    pub far_field_over_off: Vec<CullRatio>,
    /// With `--compare-occlusion`: each technique with occlusion culling ÷
    /// without it (below 1: it saves).
    #[serde(default)]
    pub occlusion_over_off: Vec<CullRatio>,
    /// With `--compare-impostor-quads`: each technique with tight
    /// impostor quads ÷ with the squares (below 1: tight quads save).
    #[serde(default)]
    pub tight_over_square_impostors: Vec<CullRatio>,
    /// With `--compare-splat`: each technique with the splat level ÷
    /// without it (below 1: splats save).
    #[serde(default)]
    pub splat_over_off: Vec<CullRatio>,
    /// With `--compare-state`: each technique with the state kept by the
    /// cull pass ÷ computed by every vertex (below 1: keeping it saves).
    #[serde(default)]
    pub state_kept_over_computed: Vec<CullRatio>,
    /// With `--compare-aa`: each technique with the run's anti-aliasing ÷
    /// with 4x MSAA, and ÷ with none.
    #[serde(default)]
    pub aa_over_msaa: Vec<CullRatio>,
    #[serde(default)]
    pub aa_over_off: Vec<CullRatio>,
    /// With `--compare-aa`: no anti-aliasing with the velocity target ÷
    /// without it (what the motion vectors cost).
    #[serde(default)]
    pub velocity_over_off: Vec<CullRatio>,
    /// With `--compare-separate`: the scene of several models ÷ its models
    /// drawn by separate renderers into one frame (below 1: the one crowd
    /// saves).
    #[serde(default)]
    pub scene_over_separate: Vec<CullRatio>,
}

impl BenchReport {
    /// The run's own result of `technique` at `count` (no baseline).
    pub(super) fn find(&self, technique: &str, count: u32) -> Option<&RunResult> {
        self.results
            .iter()
            .find(|r| r.technique == technique && r.count == count && !r.baseline())
    }

    fn counts(&self) -> Vec<u32> {
        let mut c: Vec<u32> = self.results.iter().map(|r| r.count).collect();
        c.sort_unstable();
        c.dedup();
        c
    }

    /// `over ÷ under` per count where both were measured.
    fn ratios_between(&self, over: &str, under: &str) -> Vec<RatioAtCount> {
        self.counts()
            .into_iter()
            .filter_map(|count| {
                let (a, b) = (self.find(over, count)?, self.find(under, count)?);
                Some(RatioAtCount {
                    count,
                    wall_ms: ratio(Some(a.wall_ms.p50), Some(b.wall_ms.p50)),
                    cpu_ms: ratio(Some(a.cpu_ms.p50), Some(b.cpu_ms.p50)),
                    gpu_ms: ratio(a.gpu_total_ms(), b.gpu_total_ms()),
                })
            })
            .collect()
    }

    /// Fills `ratios` from `results`.
    pub fn compute_ratios(&mut self) {
        let vat: Vec<&RunResult> = self
            .results
            .iter()
            .filter(|r| r.technique == "vat")
            .collect();
        let smallest = vat.iter().min_by_key(|r| r.count);
        let largest = vat.iter().max_by_key(|r| r.count);
        let scale = match (smallest, largest) {
            (Some(s), Some(l)) if l.count > s.count => Some(ScaleRatio {
                smallest_count: s.count,
                largest_count: l.count,
                ratio: ratio(Some(l.cpu_ms.p50), Some(s.cpu_ms.p50)),
            }),
            _ => None,
        };
        self.ratios = Ratios {
            skinning_over_vat: self.ratios_between("skinning", "vat"),
            vat_over_static: self.ratios_between("vat", "static"),
            compute_skinning_over_vat: self.ratios_between("compute-skinning", "vat"),
            compute_bone_texture_over_vat: self.ratios_between("compute-bone-texture", "vat"),
            vat_cpu_largest_over_smallest: scale,
            culled_over_unculled: self.over_baseline(|r| r.unculled),
            far_field_over_off: self.over_baseline(|r| r.far_field_off),
            occlusion_over_off: self.over_baseline(|r| r.occlusion_off),
            tight_over_square_impostors: self.over_baseline(|r| r.square_impostors),
            splat_over_off: self.over_baseline(|r| r.splat_off),
            state_kept_over_computed: self.over_baseline(|r| r.state_computed),
            aa_over_msaa: self.over_baseline(|r| r.aa_baseline && r.aa == "msaa"),
            aa_over_off: self.over_baseline(|r| r.aa_baseline && r.aa == "off" && !r.velocity),
            velocity_over_off: self.velocity_over_off(),
            scene_over_separate: self.over_baseline(|r| r.separate),
        };
    }

    /// `--compare-aa`'s velocity-only baseline ÷ its no-AA one.
    fn velocity_over_off(&self) -> Vec<CullRatio> {
        let off = |r: &&RunResult| r.aa_baseline && r.aa == "off";
        self.results
            .iter()
            .filter(|r| off(r) && r.velocity)
            .filter_map(|a| {
                let b = self.results.iter().find(|b| {
                    off(b) && !b.velocity && b.technique == a.technique && b.count == a.count
                })?;
                Some(ratio_of(a, b))
            })
            .collect()
    }

    /// The run's own settings ÷ each baseline that `is_baseline` picks.
    fn over_baseline(&self, is_baseline: impl Fn(&RunResult) -> bool) -> Vec<CullRatio> {
        self.results
            .iter()
            .filter(|r| is_baseline(r))
            .filter_map(|b| Some(ratio_of(self.find(&b.technique, b.count)?, b)))
            .collect()
    }
}

/// `a ÷ b` of one technique at one count.
fn ratio_of(a: &RunResult, b: &RunResult) -> CullRatio {
    CullRatio {
        technique: b.technique.clone(),
        count: b.count,
        triangles: ratio(Some(a.triangles as f64), Some(b.triangles as f64)),
        wall_ms: ratio(Some(a.wall_ms.p50), Some(b.wall_ms.p50)),
        cpu_ms: ratio(Some(a.cpu_ms.p50), Some(b.cpu_ms.p50)),
        gpu_ms: ratio(a.gpu_total_ms(), b.gpu_total_ms()),
    }
}
