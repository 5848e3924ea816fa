//! The models a benchmark draws: one (at each count), or a scene of
//! several drawn as one crowd, and for `--compare-separate` the same
//! models each drawn by its own renderer.

use super::BenchError;
use super::args::BenchPlan;
use super::report::ModelReport;
use crate::crowd::scene_spec::load_scene;
use crate::crowd::setup::{Loaded, MotionChoice};
use crate::gpu::GpuContext;
use crate::render::data::models::SceneModel;
use crate::render::headless::FORMAT;
use crate::render::{Renderer, RendererConfig};
use crate::vat::Precision;
use std::sync::Arc;

/// The loaded models of a plan, each with its count (one model: the
/// first count; `set_count` changes it).
pub(super) struct BenchModels {
    pub loaded: Vec<(Loaded, u32)>,
}

impl BenchModels {
    /// Loads and bakes every model of `plan` (in parallel); one that fails
    /// stops the benchmark, naming it.
    pub fn load(plan: &BenchPlan, precision: Precision) -> Result<Self, BenchError> {
        let mut load = load_scene(&plan.scene, 30.0, precision, &[], MotionChoice::Auto);
        if let Some((_, e)) = load.failed.drain(..).next() {
            return Err(e.into());
        }
        if let ([(_, count)], Some(&first)) = (&mut load.loaded[..], plan.counts.first()) {
            *count = first;
        }
        Ok(Self {
            loaded: load.loaded,
        })
    }

    /// The first model's config with `count` instances.
    pub fn config(&self, (w, h): (u32, u32), count: u32, seed: u64) -> RendererConfig {
        RendererConfig::for_model(&self.loaded[0].0, w, h, count, seed, FORMAT)
    }

    /// Each model's name and count, in order.
    pub fn names(&self) -> Vec<(String, u32)> {
        self.loaded
            .iter()
            .map(|(l, n)| (l.choice.label(), *n))
            .collect()
    }

    /// The renderer of the whole plan: one model, or the scene of all.
    pub fn renderer(
        &self,
        gpu: &Arc<GpuContext>,
        config: &RendererConfig,
    ) -> Result<Renderer, BenchError> {
        let models: Vec<SceneModel<'_>> = self
            .loaded
            .iter()
            .map(|(loaded, count)| SceneModel {
                loaded,
                count: *count,
            })
            .collect();
        Ok(Renderer::from_scene(gpu.clone(), &models, config)?)
    }

    /// One renderer per model, each with its count and `config`'s
    /// settings (`--compare-separate`).
    pub fn separate(
        &self,
        gpu: &Arc<GpuContext>,
        config: &RendererConfig,
    ) -> Result<Vec<Renderer>, BenchError> {
        self.loaded
            .iter()
            .map(|(loaded, count)| {
                let own = RendererConfig {
                    behaviour: config.behaviour,
                    cull: config.cull,
                    shadows: config.shadows,
                    targets: config.targets,
                    ..RendererConfig::for_model(
                        loaded,
                        config.width,
                        config.height,
                        *count,
                        config.seed,
                        FORMAT,
                    )
                };
                Ok(Renderer::new(
                    gpu.clone(),
                    &loaded.model,
                    &loaded.vat,
                    &own,
                )?)
            })
            .collect()
    }

    /// The clip each model plays.
    pub fn clips(&self) -> Vec<Option<u32>> {
        self.loaded.iter().map(|(l, _)| l.clip).collect()
    }

    /// The report's model (one model's; a scene's sum, joints the most)
    /// and, for a scene, each model with its count.
    pub fn reports(&self) -> (ModelReport, Vec<ModelReport>) {
        let each: Vec<ModelReport> = self
            .loaded
            .iter()
            .map(|(l, count)| ModelReport {
                name: l.choice.label(),
                vertices: l.model.vertex_count() as u64,
                triangles: l.model.triangle_count() as u64,
                joints: l.model.stats.joints as u64,
                clips: l.vat.clips.len() as u64,
                vat_bytes: l.vat.total_bytes() as u64,
                precision: l.vat.precision.name().into(),
                bake_ms: l.vat.bake_ms,
                count: (self.loaded.len() > 1).then_some(*count),
            })
            .collect();
        if let [one] = &each[..] {
            return (one.clone(), Vec::new());
        }
        let sum = ModelReport {
            name: each
                .iter()
                .map(|m| m.name.as_str())
                .collect::<Vec<_>>()
                .join(" + "),
            vertices: each.iter().map(|m| m.vertices).sum(),
            triangles: each.iter().map(|m| m.triangles).sum(),
            joints: each.iter().map(|m| m.joints).max().unwrap_or(0),
            clips: each.iter().map(|m| m.clips).sum(),
            vat_bytes: each.iter().map(|m| m.vat_bytes).sum(),
            precision: each[0].precision.clone(),
            bake_ms: each.iter().map(|m| m.bake_ms).sum(),
            count: Some(each.iter().filter_map(|m| m.count).sum()),
        };
        (sum, each)
    }
}
