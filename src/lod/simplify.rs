//! The two ways a level's triangles are chosen, both with meshoptimizer
//! over the model's own vertex stream (new indices, never new vertices).
//! meshoptimizer is its pure-Rust port (`meshoptimizer-rs`, byte-identical
//! to the C++ 1.3 it follows; tests/lod_chains.rs holds it to the chains
//! the C++ made), so the same chains are built on every target, wasm32
//! included.

use super::frames::{Frames, P3};
use meshoptimizer_rs::{
    Attributes, Positions, SimplifyOptions, SimplifySettings, VertexFlags, Workspace,
};

/// The most sampled poses fed to the simplifier: meshoptimizer takes at
/// most 32 attribute floats per vertex, and a pose takes three.
pub const MAX_POSES: usize = 10;

/// What the simplifier sees.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// The rest pose, plus up to [`MAX_POSES`] baked poses spread over the
    /// clips as weighted attribute channels
    /// (`simplify_with_attributes`): a collapse that
    /// looks fine at rest but tears a moving part costs attribute error.
    #[default]
    Poses,
    /// The rest pose only (`simplify`); levels whose animated
    /// error is too large are retried with more triangles or dropped.
    Rest,
}

impl Strategy {
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Poses => "poses",
            Strategy::Rest => "rest",
        }
    }
}

impl std::str::FromStr for Strategy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "poses" => Ok(Self::Poses),
            "rest" => Ok(Self::Rest),
            _ => Err(format!(
                "unknown LOD strategy '{s}' (expected poses or rest)"
            )),
        }
    }
}

/// A simplifier set up once per model and run once per level attempt.
pub struct Simplifier<'a> {
    full: &'a [u32],
    rest: Vec<[f32; 3]>,
    /// meshoptimizer's extent of the rest pose: its relative errors times
    /// this are model units.
    pub scale: f32,
    strategy: Strategy,
    /// Per vertex, 3 floats per sampled pose, divided by `scale` so the
    /// attribute error is on the same footing as the geometric one.
    attributes: Vec<f32>,
    weights: Vec<f32>,
    /// No vertex is locked: one empty flag per vertex.
    locks: Vec<VertexFlags>,
}

impl<'a> Simplifier<'a> {
    /// `rest`: the rest pose; `frames` and `clips`: where the sampled poses
    /// come from; `pose_weight`: the weight of each pose's channels.
    pub fn new(
        full: &'a [u32],
        rest: &[P3],
        frames: &Frames,
        clips: usize,
        strategy: Strategy,
        pose_weight: f32,
    ) -> Self {
        let rest = rest.to_vec();
        // A non-finite position has no extent (the simplifier then refuses
        // the mesh, and the chain keeps its full level only).
        let scale = meshoptimizer_rs::simplify_scale(Positions::from_packed(&rest))
            .unwrap_or(0.0)
            .max(f32::MIN_POSITIVE);
        let (attributes, weights) = match strategy {
            Strategy::Rest => (Vec::new(), Vec::new()),
            Strategy::Poses => {
                let picked = frames.spread(clips, MAX_POSES);
                let mut attributes = Vec::with_capacity(rest.len() * picked.len() * 3);
                for v in 0..rest.len() {
                    for &f in &picked {
                        attributes.extend(frames.frame(f)[v].map(|x| x / scale));
                    }
                }
                (attributes, vec![pose_weight; picked.len() * 3])
            }
        };
        Self {
            full,
            locks: vec![VertexFlags::default(); rest.len()],
            rest,
            scale,
            strategy,
            attributes,
            weights,
        }
    }

    /// A triangle list of about `target` triangles, and the error
    /// meshoptimizer reports for it in model units (for [`Strategy::Poses`]
    /// that includes the attribute error). No error limit: the count rules,
    /// and the caller measures the animated error itself.
    ///
    /// Attribute seams (vertices split for UVs or flat normals) hold the
    /// simplifier back; a mesh split at every edge, like the Fox, cannot be
    /// simplified at all. When the result keeps more than `most` triangles,
    /// it is run again in permissive mode, which may collapse across seams
    /// (the triangles still use the original vertices, so a texture can
    /// shift across a seam at that level).
    pub fn run(&self, target: usize, most: usize) -> (Vec<u32>, f32) {
        let (indices, error) = self.run_with(target, SimplifyOptions::EMPTY);
        if indices.len() / 3 <= most {
            return (indices, error);
        }
        self.run_with(target, SimplifyOptions::PERMISSIVE)
    }

    /// The candidates for a coarse level of about `target` triangles:
    /// the permissive simplifier (which may collapse across seams), and
    /// meshoptimizer's sloppy simplifier, which ignores the topology
    /// altogether (it clusters vertices on a grid) and so reaches a few
    /// dozen triangles on any mesh. The caller keeps the one whose
    /// animated error is lower.
    pub fn run_coarse(&self, target: usize) -> Vec<(Vec<u32>, f32)> {
        // meshoptimizer asserts (aborts) on a target above the mesh's count.
        let target = target.min(self.full.len() / 3);
        if target == 0 {
            return Vec::new();
        }
        let permissive = self.run_with(target, SimplifyOptions::PERMISSIVE);
        let sloppy = meshoptimizer_rs::simplify_sloppy(
            self.full,
            Positions::from_packed(&self.rest),
            None,
            target * 3,
            f32::MAX,
            &mut Workspace::default(),
        );
        let Some(sloppy) = self.kept("sloppy", sloppy) else {
            return vec![permissive];
        };
        log::debug!(
            "sloppy simplifier: {} -> {} triangles (asked {target})",
            self.full.len() / 3,
            sloppy.indices.len() / 3
        );
        vec![permissive, (sloppy.indices, sloppy.error * self.scale)]
    }

    fn run_with(&self, target: usize, options: SimplifyOptions) -> (Vec<u32>, f32) {
        let positions = Positions::from_packed(&self.rest);
        let settings = SimplifySettings {
            target_index_count: target * 3,
            target_error: f32::MAX,
            options,
        };
        let workspace = &mut Workspace::default();
        let result = if self.weights.is_empty() {
            meshoptimizer_rs::simplify(self.full, positions, settings, workspace)
        } else {
            let width = self.weights.len();
            Attributes::from_interleaved(&self.attributes, self.rest.len(), width, width, 0)
                .and_then(|attributes| {
                    meshoptimizer_rs::simplify_with_attributes(
                        self.full,
                        positions,
                        attributes,
                        &self.weights,
                        Some(&self.locks),
                        settings,
                        workspace,
                    )
                })
        };
        let Some(out) = self.kept("simplifier", result) else {
            return (self.full.to_vec(), 0.0);
        };
        log::debug!(
            "{} simplifier ({options:?}): {} -> {} triangles (asked {target})",
            self.strategy.name(),
            self.full.len() / 3,
            out.indices.len() / 3
        );
        (out.indices, out.error * self.scale)
    }

    /// The simplifier's result, or `None` with a warning when it refused
    /// the mesh (a non-finite position, an index past the vertices): the
    /// level is then not made.
    fn kept<T>(&self, what: &str, result: Result<T, meshoptimizer_rs::Error>) -> Option<T> {
        result
            .map_err(|e| log::warn!("the {what} refused the mesh ({e}); no level made from it"))
            .ok()
    }
}
