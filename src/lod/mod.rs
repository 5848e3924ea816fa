//! Mesh levels of detail that respect the animation: index buffers over the
//! model's own vertex stream (so the VAT, the bone data and every technique
//! serve every level with no rebake), each with its error measured over
//! every baked frame of every clip.
//!
//! No wgpu here: the renderer uploads [`LodChain::indices`] and picks a
//! level per instance on the GPU from [`LodLevel::error`].

mod distance;
mod export;
mod frames;
mod report;
mod set;
mod simplify;

pub use distance::{CANDIDATES, point_triangle_sq};
pub use export::{INDEX_FILE, LevelJson, LodError, LodJson, write};
pub use frames::nearest_frame_errors;
pub use report::{LodSummary, markdown_table};
pub use set::{GeometrySet, GeometrySetError, Region, SetMesh};
pub use simplify::{MAX_POSES, Strategy};

use crate::Model;
use crate::skin;
use crate::vat::Vat;
use distance::Candidates;
use frames::{Frames, P3};
use glam::Vec3;
use simplify::Simplifier;
use web_time::Instant;

/// The triangle fractions the chain aims for, finest first.
pub const DEFAULT_TARGETS: [f32; 4] = [1.0, 0.35, 0.12, 0.04];

/// The far field's coarse levels, in triangles (not fractions: a horse a
/// few pixels tall needs a few dozen triangles whatever the full mesh
/// has), after the fractional levels.
pub const DEFAULT_COARSE: [u32; 2] = [48, 12];

/// The most mesh levels a chain holds (the GPU packs the level in three
/// bits, with one value left for the impostor).
pub const MAX_LEVELS: usize = 6;

/// How often a level whose animated error is over the limit is retried
/// with more triangles before the chain stops.
pub const RETRIES: usize = 2;

/// How a chain is built.
#[derive(Clone, Debug, PartialEq)]
pub struct LodOptions {
    /// Triangle fractions, finest first; the first must be 1.0.
    pub targets: Vec<f32>,
    /// What the simplifier sees.
    pub strategy: Strategy,
    /// The largest animated error a level may have, as a fraction of the
    /// bake's bounding-box diagonal; `f32::INFINITY` keeps every level.
    pub max_error: f32,
    /// A level must keep at most this fraction of the previous level's
    /// triangles, or it is dropped as not worth a level.
    pub max_ratio: f32,
    /// Weight of each sampled pose's channels for [`Strategy::Poses`].
    pub pose_weight: f32,
    /// Coarse levels after `targets`, in triangles, made with the
    /// permissive or the sloppy simplifier (whichever errs less when
    /// animated); empty for none.
    pub coarse: Vec<u32>,
    /// The largest animated error a coarse level may have, as a fraction
    /// of the diagonal: such a level is only drawn where that error is
    /// under the pixel budget, so the limit only drops levels that are
    /// no longer the model at all.
    pub coarse_max_error: f32,
}

impl Default for LodOptions {
    fn default() -> Self {
        Self {
            targets: DEFAULT_TARGETS.to_vec(),
            strategy: Strategy::default(),
            max_error: 0.05,
            max_ratio: 0.9,
            pose_weight: 1.0,
            coarse: DEFAULT_COARSE.to_vec(),
            coarse_max_error: 0.5,
        }
    }
}

impl LodOptions {
    /// These options without the coarse levels (the chain before the far
    /// field had them, for comparison).
    pub fn without_coarse(&self) -> Self {
        Self {
            coarse: Vec::new(),
            ..self.clone()
        }
    }
}

/// One level: a range of [`LodChain::indices`].
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct LodLevel {
    pub first_index: u32,
    pub index_count: u32,
    /// Worst distance, over every baked frame of every clip, between the
    /// full mesh's surface and this level's, in model units (0 for level 0);
    /// never below the previous level's (the running worst), so the GPU can
    /// pick levels by comparing it with a pixel budget.
    pub error: f32,
    /// The same measure in the rest pose only (this level's own, not a
    /// running worst): what simplifying a static mesh would see.
    pub rest_error: f32,
    /// The error meshoptimizer reported, scaled to model units (for
    /// [`Strategy::Poses`] it includes the pose attributes' error).
    pub simplifier_error: f32,
    /// A coarse level ([`LodOptions::coarse`]): made by the permissive or
    /// the sloppy simplifier.
    pub coarse: bool,
}

impl LodLevel {
    pub fn triangles(&self) -> u32 {
        self.index_count / 3
    }
}

/// A model's levels of detail, finest (the full mesh) first, with errors
/// that never decrease from one level to the next.
#[derive(Clone, Debug, Default)]
pub struct LodChain {
    /// Every level's triangle list, one after the other; level 0 is the
    /// model's own indices.
    pub indices: Vec<u32>,
    pub levels: Vec<LodLevel>,
    /// Per baked clip: the worst distance between a vertex's lerped position
    /// and its nearest stored frame's (what sampling the nearest frame
    /// instead of two costs), in model units.
    pub nearest_frame_error: Vec<f32>,
    /// Wall time of the build in milliseconds.
    pub build_ms: f64,
    /// The strategy the levels were made with.
    pub strategy: Strategy,
    /// The options it was built with.
    pub options: LodOptions,
}

impl LodChain {
    /// Level `i`'s triangle list.
    pub fn level_indices(&self, i: usize) -> &[u32] {
        let l = &self.levels[i];
        &self.indices[l.first_index as usize..(l.first_index + l.index_count) as usize]
    }
}

/// Builds the chain: the full mesh, then one level per further target
/// that meshoptimizer can reach with at most `max_ratio` of the previous
/// level's triangles and an animated error within `max_error` of the
/// diagonal (a level over the limit is retried [`RETRIES`] times, each
/// halfway, in log scale, towards the previous level's count; if it is
/// still over, the chain ends there). A model that cannot be simplified
/// keeps the full mesh as its only level.
pub fn build(model: &Model, vat: &Vat, options: &LodOptions) -> LodChain {
    let started = Instant::now();
    let full = &model.indices;
    let mut chain = LodChain {
        indices: full.clone(),
        levels: vec![LodLevel {
            first_index: 0,
            index_count: full.len() as u32,
            ..LodLevel::default()
        }],
        nearest_frame_error: vec![f32::INFINITY; vat.clips.len()],
        build_ms: 0.0,
        strategy: options.strategy,
        options: options.clone(),
    };
    let n = model.vertex_count();
    if full.is_empty() || n == 0 || vat.layout.vertex_count as usize != n {
        chain.nearest_frame_error = nearest_frame_errors(vat);
        chain.build_ms = started.elapsed().as_secs_f64() * 1e3;
        return chain;
    }
    let frames = Frames::from_vat(vat);
    chain.nearest_frame_error = frames::nearest_from(vat, &frames);
    let rest: Vec<P3> = rest_positions(model).iter().map(|p| p.to_array()).collect();
    let simplifier = Simplifier::new(
        full,
        &rest,
        &frames,
        vat.clips.len(),
        options.strategy,
        options.pose_weight,
    );
    let limit = options.max_error * vat.bounds.diagonal();
    let full_triangles = full.len() / 3;
    'targets: for &target in options.targets.iter().skip(1) {
        if chain.levels.len() >= MAX_LEVELS {
            break;
        }
        let previous = *chain.levels.last().expect("level 0 is always there");
        let ceiling = (previous.triangles() as f32 * options.max_ratio).floor() as usize;
        let mut want = ((target * full_triangles as f32).round() as usize).min(ceiling);
        for attempt in 0..=RETRIES {
            if want == 0 {
                break 'targets;
            }
            let (indices, simplifier_error) = simplifier.run(want, ceiling);
            let triangles = indices.len() / 3;
            if triangles == 0 || triangles > ceiling {
                // Cannot reach this count; a smaller target may still work.
                continue 'targets;
            }
            let candidates = Candidates::new(&rest, full, &indices);
            let error = candidates.worst(&indices, frames.count(), |i| frames.frame(i));
            log::debug!(
                "lod {}: attempt {attempt}, {triangles} triangles, animated error {error:.4e} (limit {limit:.4e})",
                chain.levels.len()
            );
            if error > limit {
                // Halfway (geometrically) towards the previous level.
                want = ((want as f64 * previous.triangles() as f64).sqrt() as usize)
                    .max(want + 1)
                    .min(ceiling);
                if attempt == RETRIES || triangles >= ceiling {
                    break 'targets;
                }
                continue;
            }
            let rest_error = candidates.worst(&indices, 1, |_| rest.as_slice());
            chain.levels.push(LodLevel {
                first_index: chain.indices.len() as u32,
                index_count: indices.len() as u32,
                error: error.max(previous.error),
                rest_error,
                simplifier_error,
                coarse: false,
            });
            chain.indices.extend(indices);
            continue 'targets;
        }
        break;
    }
    add_coarse_levels(&mut chain, options, &simplifier, &rest, full, &frames, vat);
    chain.build_ms = started.elapsed().as_secs_f64() * 1e3;
    log::info!(
        "LOD chain of {}: {} ({} strategy, {:.1} ms)",
        model.name(),
        chain
            .levels
            .iter()
            .map(|l| format!("{} tris @ {:.3e}", l.triangles(), l.error))
            .collect::<Vec<_>>()
            .join(", "),
        chain.strategy.name(),
        chain.build_ms
    );
    chain
}

/// Appends the coarse levels of `options` that fit under
/// [`MAX_LEVELS`], keep at most `max_ratio` of the previous level's
/// triangles and err at most `coarse_max_error` of the diagonal when
/// animated; of the permissive and the sloppy result, the one with the
/// lower animated error is kept.
fn add_coarse_levels(
    chain: &mut LodChain,
    options: &LodOptions,
    simplifier: &Simplifier<'_>,
    rest: &[P3],
    full: &[u32],
    frames: &Frames,
    vat: &Vat,
) {
    let limit = options.coarse_max_error * vat.bounds.diagonal();
    for &target in &options.coarse {
        if chain.levels.len() >= MAX_LEVELS || target == 0 {
            break;
        }
        let previous = *chain.levels.last().expect("level 0 is always there");
        let ceiling = (previous.triangles() as f32 * options.max_ratio).floor() as usize;
        let best = simplifier
            .run_coarse((target as usize).min(ceiling))
            .into_iter()
            .filter(|(indices, _)| !indices.is_empty() && indices.len() / 3 <= ceiling)
            .map(|(indices, simplifier_error)| {
                let candidates = Candidates::new(rest, full, &indices);
                let error = candidates.worst(&indices, frames.count(), |i| frames.frame(i));
                (indices, simplifier_error, error, candidates)
            })
            .min_by(|a, b| a.2.total_cmp(&b.2));
        let Some((indices, simplifier_error, error, candidates)) = best else {
            log::debug!("coarse level of {target} triangles: no result under {ceiling}");
            continue;
        };
        log::debug!(
            "coarse level {}: {} triangles, animated error {error:.4e} (limit {limit:.4e})",
            chain.levels.len(),
            indices.len() / 3
        );
        if error > limit {
            break;
        }
        let rest_error = candidates.worst(&indices, 1, |_| rest);
        chain.levels.push(LodLevel {
            first_index: chain.indices.len() as u32,
            index_count: indices.len() as u32,
            error: error.max(previous.error),
            rest_error,
            simplifier_error,
            coarse: true,
        });
        chain.indices.extend(indices);
    }
}

/// The rest pose the simplifier and the candidate search use: the model
/// skinned with no clip, in the same space as the baked frames.
pub fn rest_positions(model: &Model) -> Vec<Vec3> {
    skin::skin(model, &model.sample_pose(None, 0.0)).0
}
