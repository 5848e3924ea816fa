//! What `stampede bench` found: the JSON schema, the printed table, the
//! ratios and the CSV. Plain data; nothing here touches the GPU.

use super::stats::Percentiles;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Why a report could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("could not write {path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("could not encode the results as JSON: {0}")]
    Json(#[from] serde_json::Error),
}

/// The adapter the figures belong to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AdapterReport {
    pub name: String,
    pub backend: String,
    pub device_type: String,
    /// Driver name and version, e.g. "llvmpipe / Mesa 22.3.6 (LLVM 15.0.6)".
    pub driver: String,
    /// What the device left out (`GpuContext::limitations`), one line each.
    #[serde(default)]
    pub off: Vec<String>,
}

impl AdapterReport {
    pub fn from_info(info: &wgpu::AdapterInfo) -> Self {
        let driver = match (info.driver.is_empty(), info.driver_info.is_empty()) {
            (false, false) => format!("{} / {}", info.driver, info.driver_info),
            (false, true) => info.driver.clone(),
            (true, false) => info.driver_info.clone(),
            (true, true) => "unknown".into(),
        };
        Self {
            name: info.name.clone(),
            backend: format!("{:?}", info.backend),
            device_type: format!("{:?}", info.device_type),
            driver,
            off: Vec::new(),
        }
    }

    /// The adapter of `gpu`, with what its device leaves out.
    pub fn from_gpu(gpu: &crate::gpu::GpuContext) -> Self {
        Self {
            off: gpu.limitations.clone(),
            ..Self::from_info(&gpu.info)
        }
    }
}

/// The model that was drawn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelReport {
    pub name: String,
    pub vertices: u64,
    pub triangles: u64,
    pub joints: u64,
    pub clips: u64,
    /// Bytes of the VAT textures (positions + normals, or the packed one).
    pub vat_bytes: u64,
    /// The VAT's texel precision: f16, f32 or packed.
    pub precision: String,
    pub bake_ms: f64,
    /// Its instances in a scene of several models (`null`: the one model,
    /// at each count).
    #[serde(default)]
    pub count: Option<u32>,
}

/// What one model of a scene drew in a result's last measured frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelDraws {
    pub name: String,
    pub count: u32,
    pub visible: u32,
    pub triangles: u64,
}

/// Of the instances a frame drew, each drawn alone against the frame's
/// depth and against nothing (`render::exact_visibility`): what perfect
/// culling would leave.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ExactCounts {
    /// With a sample showing in the picture.
    pub visible: u32,
    /// Covering a sample alone but showing none: hidden behind the others.
    pub occluded: u32,
    /// Covering no sample even alone (too small or thin).
    pub covering_none: u32,
    /// The triangles of those that show: what a culler leaving out
    /// everything the picture does not need would draw.
    pub visible_triangles: u64,
    /// The triangles of all but the occluded: what a perfect occlusion
    /// culler would draw.
    pub unoccluded_triangles: u64,
}

impl From<&crate::render::probes::exact_visibility::ExactVisibility> for ExactCounts {
    fn from(e: &crate::render::probes::exact_visibility::ExactVisibility) -> Self {
        Self {
            visible: e.visible(),
            occluded: e.occluded(),
            covering_none: e.covering_none(),
            visible_triangles: e.visible_triangles(),
            unoccluded_triangles: e.unoccluded_triangles(),
        }
    }
}

/// One (technique, count) measurement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    pub technique: String,
    pub count: u32,
    /// Instances actually drawn (below `count` when the technique caps it).
    pub drawn: u32,
    /// The technique's instance cap, when it has one.
    pub cap: Option<u32>,
    /// The model has morph targets and this technique ignores them.
    pub morphs_ignored: bool,
    pub frames: u32,
    /// Prepare + encode + submit, per frame.
    pub cpu_ms: Percentiles,
    /// Timestamp queries around the scene pass; `null` when the adapter has none.
    pub gpu_ms: Option<Percentiles>,
    /// Timestamp queries around the shadow passes (every cascade), apart
    /// from `gpu_ms`; `null` with shadows off or no timestamps.
    #[serde(default)]
    pub shadow_gpu_ms: Option<Percentiles>,
    /// Timestamp queries around the cull passes before the scene (the
    /// camera's, with the splats it writes, and every cascade's), apart
    /// from `gpu_ms`; `null` with nothing culled or no timestamps.
    #[serde(default)]
    pub cull_gpu_ms: Option<Percentiles>,
    /// The shadow cascades' part of `cull_gpu_ms` (their cull passes over
    /// the camera's list or the crowd); `null` with shadows off, nothing
    /// culled or no timestamps.
    #[serde(default)]
    pub cascade_cull_gpu_ms: Option<Percentiles>,
    /// Timestamp queries around the technique's own pass (compute
    /// skinning's skin pass), apart from `gpu_ms` and `shadow_gpu_ms`;
    /// `null` for the techniques without one or with no timestamps.
    #[serde(default)]
    pub technique_gpu_ms: Option<Percentiles>,
    /// Instances that pass processed in the last measured frame (compute
    /// skinning: each instance some view drew, skinned once).
    #[serde(default)]
    pub pass_instances: Option<u32>,
    /// Vertex invocations that pass launched in that frame.
    #[serde(default)]
    pub pass_vertices: Option<u64>,
    /// The whole frame, including the wait for the GPU.
    pub wall_ms: Percentiles,
    /// The technique's own share of `cpu_ms`: sampling, skinning, uploads,
    /// recording its draw (as `Renderer::costs` measures it).
    pub technique_cpu_ms: Percentiles,
    /// The behaviour's share of `cpu_ms` (the herd's table or the flock's
    /// dispatches), the same whatever the technique.
    pub behaviour_cpu_ms: Percentiles,
    /// Mean bytes the technique uploaded per measured frame.
    pub upload_bytes_per_frame: u64,
    pub gpu_memory_bytes: u64,
    /// Instances the GPU drew in the last measured frame, after culling
    /// (read back from the cull pass; `drawn` without it).
    #[serde(default)]
    pub visible: u32,
    /// Triangles drawn in that frame, every LOD level together.
    #[serde(default)]
    pub triangles: u64,
    /// Measured with culling and LOD off, as the baseline of
    /// `--compare-culling` (the report's other results use its settings).
    #[serde(default)]
    pub unculled: bool,
    /// Measured with the far field off (no coarse levels, no impostors, no
    /// caster skipping, no shadow distance), as the baseline of
    /// `--compare-far-field`.
    #[serde(default)]
    pub far_field_off: bool,
    /// Measured with occlusion culling off, as the baseline of
    /// `--compare-occlusion`.
    #[serde(default)]
    pub occlusion_off: bool,
    /// Measured with the impostors' quads the spheres' squares, as the
    /// baseline of `--compare-impostor-quads`.
    #[serde(default)]
    pub square_impostors: bool,
    /// Measured with the splat level off, as the baseline of
    /// `--compare-splat`.
    #[serde(default)]
    pub splat_off: bool,
    /// Measured with each vertex computing its instance's state, as the
    /// baseline of `--compare-state`.
    #[serde(default)]
    pub state_computed: bool,
    /// Every renderer's camera lists kept each listed instance's state
    /// (`crowd::resolved`) in the measured frames (reports from before it
    /// read as false).
    #[serde(default)]
    pub resolved_state: bool,
    /// Instances in the view that occlusion culling did not draw in that
    /// frame (0 with it off).
    #[serde(default)]
    pub occluded: u32,
    /// With occlusion culling on: the wall milliseconds of the three
    /// frames after a camera cut (half round and back), while the
    /// visibility it keeps catches up.
    #[serde(default)]
    pub after_cut_wall_ms: Vec<f64>,
    /// With `--exact-visibility`: which of the instances drawn in that
    /// frame show. `None` without it or for a technique other than vat.
    #[serde(default)]
    pub exact: Option<ExactCounts>,
    /// Instances drawn at each mesh level, finest first, in that frame.
    #[serde(default)]
    pub visible_per_level: Vec<u32>,
    /// Instances drawn as impostors in that frame.
    #[serde(default)]
    pub impostors: u32,
    /// Instances drawn as splats in that frame (under --splat-px; neither
    /// meshes nor impostors).
    #[serde(default)]
    pub splats: u32,
    /// Per shadow cascade, nearest first: the casters it drew in that
    /// frame (empty with shadows off).
    #[serde(default)]
    pub shadow_casters: Vec<u32>,
    /// Per shadow cascade: the triangles it drew.
    #[serde(default)]
    pub shadow_triangles: Vec<u64>,
    /// Per shadow cascade: the casters in its box it did not draw because
    /// their shadow cannot reach what the camera sees (the receivers rule).
    #[serde(default)]
    pub shadow_casters_dropped: Vec<u32>,
    /// The instances the camera's cull pass listed for the cascades'
    /// passes to go over (`--caster-list`; 0 with it off: each cascade
    /// went over the whole crowd).
    #[serde(default)]
    pub shadow_casters_listed: u32,
    /// Per shadow cascade: the casters it drew that the camera did not
    /// draw (outside its view, or hidden by occlusion culling), and their
    /// triangles: the most that culling casters by what the camera sees
    /// could remove. Empty with shadows or the cull pass off.
    #[serde(default)]
    pub shadow_casters_unseen: Vec<u32>,
    #[serde(default)]
    pub shadow_triangles_unseen: Vec<u64>,
    /// The anti-aliasing it ran with (`msaa`, `taa`, `off`), whether the
    /// scene pass wrote the velocity target, and whether it is a baseline
    /// of `--compare-aa`.
    #[serde(default)]
    pub aa: String,
    #[serde(default)]
    pub velocity: bool,
    #[serde(default)]
    pub aa_baseline: bool,
    /// The TAA resolve's GPU time (with --aa taa).
    #[serde(default)]
    pub resolve_gpu_ms: Option<Percentiles>,
    /// The crowd's draw calls in the last measured frame, every pass
    /// together (scene, shadow cascades, impostors).
    #[serde(default)]
    pub draw_calls: u32,
    /// Per model of a scene (one model: one entry), what it drew.
    #[serde(default)]
    pub per_model: Vec<ModelDraws>,
    /// The baseline of `--compare-separate`: each model of the scene drawn
    /// by its own renderer, all into one frame.
    #[serde(default)]
    pub separate: bool,
}

impl RunResult {
    /// True for a baseline of a comparison (not the run's own settings).
    pub fn baseline(&self) -> bool {
        self.unculled
            || self.far_field_off
            || self.occlusion_off
            || self.square_impostors
            || self.splat_off
            || self.state_computed
            || self.aa_baseline
            || self.separate
    }

    /// Every cascade's casters together.
    pub fn casters_total(&self) -> u64 {
        self.shadow_casters.iter().map(|&c| c as u64).sum()
    }

    /// Every cascade's triangles together.
    pub fn shadow_triangles_total(&self) -> u64 {
        self.shadow_triangles.iter().sum()
    }
}

impl RunResult {
    /// The p50s of every timed pass added up: the scene pass, the shadow
    /// passes, the cull passes, TAA's resolve and the technique's own
    /// (what the ratios' GPU compares, so that work moved out of the scene
    /// pass, a technique's own pass or the splats the cull pass writes, is
    /// not flattered); `None` without timestamps.
    pub fn gpu_total_ms(&self) -> Option<f64> {
        let scene = self.gpu_ms.as_ref()?.p50;
        let other = |p: &Option<Percentiles>| p.as_ref().map_or(0.0, |p| p.p50);
        Some(
            scene
                + other(&self.shadow_gpu_ms)
                + other(&self.cull_gpu_ms)
                + other(&self.technique_gpu_ms)
                + other(&self.resolve_gpu_ms),
        )
    }
}

/// The far field's settings and the impostor atlas of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FarFieldReport {
    pub impostors: bool,
    pub impostor_px: f32,
    /// Quads fitted to each atlas cell's covered texels (reports from
    /// before tight quads read as false: their quads were the squares).
    #[serde(default)]
    pub tight_impostors: bool,
    /// The splat level and its switch (reports from before it read as
    /// off).
    #[serde(default)]
    pub splats: bool,
    #[serde(default)]
    pub splat_px: f32,
    /// The run asked for each listed instance's state kept by the cull
    /// pass (`--resolved-state`; whether it was, per run: `resolved_state`
    /// of each result). Reports from before it read as false.
    #[serde(default)]
    pub resolved_state: bool,
    /// The shadow cascades' cull passes went over the casters the camera's
    /// pass listed (`--caster-list`; reports from before it read as false:
    /// they went over every instance).
    #[serde(default)]
    pub caster_list: bool,
    pub coarse_levels: bool,
    /// `auto`, `off` or world units.
    pub shadow_distance: String,
    pub shadow_min_texels: f32,
    /// The casters' LOD error budget in multiples of the camera's.
    pub shadow_error_scale: f32,
    /// The atlas: bytes on the GPU, its build time, its cell size and
    /// how many cells (views × frames); 0 when none was built.
    pub atlas_bytes: u64,
    pub atlas_build_ms: f64,
    pub atlas_cell: u32,
    pub atlas_cells: u32,
    /// Each model's mesh levels' triangles, finest first.
    pub level_triangles: Vec<Vec<u32>>,
}

/// A run that was not measured, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    pub technique: String,
    pub count: u32,
    pub reason: String,
}

/// Everything `--json` writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchReport {
    pub adapter: AdapterReport,
    /// The model; for a scene of several, their sum (names joined, the
    /// most joints) with each in `models`.
    pub model: ModelReport,
    /// A scene's models, each with its count (empty for one model).
    #[serde(default)]
    pub models: Vec<ModelReport>,
    pub size: [u32; 2],
    /// Culling, LOD and the LOD pixel budget the run used.
    #[serde(default)]
    pub culling: bool,
    #[serde(default)]
    pub lod: bool,
    #[serde(default)]
    pub lod_error_px: f32,
    /// Sun shadows were on (their GPU time is each result's `shadow_gpu_ms`).
    #[serde(default)]
    pub shadows: bool,
    /// The run's occlusion culling (its results; `--compare-occlusion`'s
    /// baselines have it off).
    #[serde(default)]
    pub occlusion: bool,
    /// The run's anti-aliasing (its results; `--compare-aa`'s baselines
    /// have their own).
    #[serde(default)]
    pub aa: String,
    /// The far field: impostors and coarse levels on, the impostor switch
    /// (pixels), the shadow distance and the caster skipping (texels).
    #[serde(default)]
    pub far_field: Option<FarFieldReport>,
    pub frames: u32,
    pub warmup: u32,
    /// The techniques the renderer offered when this ran.
    pub techniques_available: Vec<String>,
    pub results: Vec<RunResult>,
    pub ratios: Ratios,
    pub skipped: Vec<Skipped>,
}

impl BenchReport {
    pub fn write_json(&self, path: &Path) -> Result<(), ReportError> {
        write(path, &serde_json::to_string_pretty(self)?)
    }

    pub fn write_csv(&self, path: &Path) -> Result<(), ReportError> {
        write(path, &self.csv())
    }
}

pub(crate) const MIB: f64 = 1024.0 * 1024.0;

/// Writes `text` to `path`, creating the parent folder.
pub(crate) fn write(path: &Path, text: &str) -> Result<(), ReportError> {
    let err = |source| ReportError::Write {
        path: path.to_owned(),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(err)?;
    }
    std::fs::write(path, text).map_err(err)
}

mod ratios;
mod text;

pub use ratios::{CullRatio, RatioAtCount, Ratios, ScaleRatio};

#[cfg(test)]
mod tests;
