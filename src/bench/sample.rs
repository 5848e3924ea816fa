//! One measurement: the warm-up and measured frames of a run's renderers
//! (one, or a scene's models drawn by separate renderers), their samples,
//! and what the last frame drew, as a [`RunResult`].

use super::frame::{Frame, sum_some};
use super::report::{ExactCounts, ModelDraws, RunResult};
use super::stats::Percentiles;
use super::{BenchError, percentiles};
use crate::render::{CullStats, RenderError, Renderer, TechniqueKind, UnseenCasters};
use indicatif::ProgressBar;

/// Per-frame samples of one run: times in milliseconds, uploads in bytes.
#[derive(Default)]
struct Samples {
    cpu: Vec<f64>,
    gpu: Vec<f64>,
    shadow_gpu: Vec<f64>,
    cull_gpu: Vec<f64>,
    cascade_cull_gpu: Vec<f64>,
    technique_gpu: Vec<f64>,
    resolve_gpu: Vec<f64>,
    wall: Vec<f64>,
    technique_cpu: Vec<f64>,
    behaviour_cpu: Vec<f64>,
    upload_bytes: u64,
}

/// What a run measures and how its result is labelled.
pub(super) struct Run<'a> {
    pub technique: &'a str,
    pub count: u32,
    pub warmup: u32,
    pub frames: u32,
    /// Each model's name and count, in the scene's order (one model: one).
    pub models: &'a [(String, u32)],
    /// Count the instances of the last measured frame that show (one
    /// renderer drawing with the vat technique).
    pub exact_visibility: bool,
}

impl Run<'_> {
    fn percentiles(&self, samples: &[f64]) -> Result<Percentiles, BenchError> {
        percentiles(samples, self.technique, self.count)
    }

    fn optional(&self, samples: &[f64]) -> Result<Option<Percentiles>, BenchError> {
        (!samples.is_empty())
            .then(|| self.percentiles(samples))
            .transpose()
    }

    /// Renders the warm-up and measured frames with `renderers` (every one
    /// each frame) and returns the result; the caller sets which
    /// comparison's baseline it is.
    pub fn measure(
        &self,
        renderers: &mut [Renderer],
        frame: &Frame<'_>,
        bar: &ProgressBar,
    ) -> Result<RunResult, BenchError> {
        let mut samples = Samples::default();
        for i in 0..self.warmup + self.frames {
            let times = frame.render(renderers, i)?;
            if i >= self.warmup {
                let costs: Vec<_> = renderers.iter().map(Renderer::costs).collect();
                samples.cpu.push(times.cpu);
                samples.wall.push(times.wall);
                samples.gpu.extend(times.gpu);
                samples
                    .shadow_gpu
                    .extend(sum_some(renderers, Renderer::shadow_gpu_ms));
                samples
                    .resolve_gpu
                    .extend(sum_some(renderers, Renderer::resolve_gpu_ms));
                samples
                    .cull_gpu
                    .extend(sum_some(renderers, Renderer::cull_gpu_ms));
                samples
                    .cascade_cull_gpu
                    .extend(sum_some(renderers, Renderer::cascade_cull_gpu_ms));
                samples.technique_gpu.extend(sum_some(renderers, |r| {
                    r.costs().pass.and_then(|p| p.gpu_ms)
                }));
                samples
                    .technique_cpu
                    .push(costs.iter().map(|c| f64::from(c.cpu_ms)).sum());
                samples
                    .behaviour_cpu
                    .push(costs.iter().map(|c| f64::from(c.behaviour_ms)).sum());
                samples.upload_bytes += costs.iter().map(|c| c.upload_bytes).sum::<u64>();
            }
            bar.inc(1);
        }
        let first = &renderers[0];
        let costs: Vec<_> = renderers.iter().map(Renderer::costs).collect();
        let (targets, velocity) = (first.targets.options, first.targets.has_velocity());
        let drew: Vec<CullStats> = renderers
            .iter_mut()
            .map(Renderer::wait_for_cull_stats)
            .collect();
        let cascades: Vec<Vec<Option<CullStats>>> =
            renderers.iter().map(Renderer::shadow_stats).collect();
        let passes: Vec<_> = renderers
            .iter_mut()
            .map(Renderer::wait_for_pass_stats)
            .collect();
        // Before the cut below, which draws a frame of its own.
        let unseen = renderers
            .iter()
            .map(Renderer::unseen_casters)
            .collect::<Result<Vec<_>, _>>()?;
        let exact = match renderers {
            [one] if self.exact_visibility && one.technique_kind() == TechniqueKind::Vat => {
                match one.exact_visibility(frame.view) {
                    Ok(e) => Some(e),
                    // A run it cannot count (the crowd not culled): said,
                    // and left without the counts.
                    Err(RenderError::ExactVisibility(why)) => {
                        bar.suspend(|| {
                            eprintln!(
                                "--exact-visibility: no counts for {} × {}: {why}",
                                self.technique, self.count
                            )
                        });
                        None
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            _ => None,
        };
        // Empty when any renderer could not count them.
        let unseen_per_cascade = |f: &dyn Fn(&UnseenCasters) -> u64| {
            if unseen.iter().any(Vec::is_empty) {
                return Vec::new();
            }
            per_cascade_of(&unseen, |u: &UnseenCasters| Some(f(u)))
        };
        let after_cut = if renderers.iter().all(|r| r.culler().occlusion_active()) {
            frame.after_cut(renderers, self.warmup + self.frames)?
        } else {
            Vec::new()
        };
        let per_cascade = |f: &dyn Fn(&CullStats) -> u64| {
            per_cascade_of(&cascades, |s: &Option<CullStats>| s.as_ref().map(f))
        };
        let levels = drew.iter().map(|d| d.levels).max().unwrap_or(1) as usize;
        let frames = u64::from(self.frames.max(1));
        Ok(RunResult {
            technique: self.technique.into(),
            count: self.count,
            drawn: costs.iter().map(|c| c.drawn).sum(),
            cap: costs[0].cap,
            morphs_ignored: costs.iter().any(|c| c.morphs_ignored),
            frames: self.frames,
            cpu_ms: self.percentiles(&samples.cpu)?,
            gpu_ms: self.optional(&samples.gpu)?,
            shadow_gpu_ms: self.optional(&samples.shadow_gpu)?,
            cull_gpu_ms: self.optional(&samples.cull_gpu)?,
            cascade_cull_gpu_ms: self.optional(&samples.cascade_cull_gpu)?,
            technique_gpu_ms: self.optional(&samples.technique_gpu)?,
            resolve_gpu_ms: self.optional(&samples.resolve_gpu)?,
            aa: targets.aa.label().to_owned(),
            velocity,
            aa_baseline: false,
            pass_instances: passes.iter().map(|p| p.map(|p| p.instances)).sum(),
            pass_vertices: passes.iter().map(|p| p.map(|p| p.vertices)).sum(),
            wall_ms: self.percentiles(&samples.wall)?,
            technique_cpu_ms: self.percentiles(&samples.technique_cpu)?,
            behaviour_cpu_ms: self.percentiles(&samples.behaviour_cpu)?,
            upload_bytes_per_frame: samples.upload_bytes / frames,
            gpu_memory_bytes: costs.iter().map(|c| c.gpu_memory_bytes).sum(),
            visible: drew.iter().map(CullStats::visible_total).sum(),
            triangles: drew.iter().map(CullStats::triangles_total).sum(),
            unculled: false,
            far_field_off: false,
            square_impostors: false,
            splat_off: false,
            state_computed: false,
            resolved_state: renderers
                .iter()
                .all(|r| r.culler().resolved_state() == Ok(true)),
            occlusion_off: false,
            separate: false,
            occluded: drew.iter().map(|d| d.occluded).sum(),
            after_cut_wall_ms: after_cut,
            exact: exact.as_ref().map(ExactCounts::from),
            visible_per_level: (0..levels)
                .map(|l| drew.iter().map(|d| d.visible[l]).sum())
                .collect(),
            impostors: drew.iter().map(CullStats::impostors).sum(),
            splats: drew.iter().map(|d| d.splats).sum(),
            shadow_casters: per_cascade(&|c| c.visible_total() as u64)
                .into_iter()
                .map(|c| c as u32)
                .collect(),
            shadow_triangles: per_cascade(&CullStats::triangles_total),
            shadow_casters_dropped: per_cascade(&|c| c.dropped as u64)
                .into_iter()
                .map(|c| c as u32)
                .collect(),
            shadow_casters_listed: drew.iter().map(|d| d.casters_listed).sum(),
            shadow_casters_unseen: unseen_per_cascade(&|u| u64::from(u.casters))
                .into_iter()
                .map(|c| c as u32)
                .collect(),
            shadow_triangles_unseen: unseen_per_cascade(&|u| u.triangles),
            draw_calls: costs.iter().map(|c| c.draw_calls).sum(),
            per_model: self.per_model(&drew),
        })
    }

    /// Each model's draws: one renderer's per-model counts (a scene, or
    /// one model), or each separate renderer's whole.
    fn per_model(&self, drew: &[CullStats]) -> Vec<ModelDraws> {
        self.models
            .iter()
            .enumerate()
            .map(|(m, (name, count))| {
                let (visible, triangles) = match drew {
                    [one] => (one.model_visible[m], one.model_triangles[m]),
                    several => (several[m].visible_total(), several[m].triangles_total()),
                };
                ModelDraws {
                    name: name.clone(),
                    count: *count,
                    visible,
                    triangles,
                }
            })
            .collect()
    }
}

/// Each cascade's `f` summed over every renderer's cascades (`None`: a
/// cascade with nothing to add).
fn per_cascade_of<T>(renderers: &[Vec<T>], f: impl Fn(&T) -> Option<u64>) -> Vec<u64> {
    let n = renderers.iter().map(Vec::len).max().unwrap_or(0);
    (0..n)
        .map(|c| {
            renderers
                .iter()
                .filter_map(|r| r.get(c))
                .filter_map(&f)
                .sum()
        })
        .collect()
}
