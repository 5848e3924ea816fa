//! The two ways a level's triangles are chosen, both with meshoptimizer
//! over the model's own vertex stream (new indices, never new vertices).

use super::frames::{Frames, P3};
use meshopt::{SimplifyOptions, VertexDataAdapter};

/// The most sampled poses fed to the simplifier: meshoptimizer takes at
/// most 32 attribute floats per vertex, and a pose takes three.
pub const MAX_POSES: usize = 10;

/// What the simplifier sees.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// The rest pose, plus up to [`MAX_POSES`] baked poses spread over the
    /// clips as weighted attribute channels
    /// (`meshopt::simplify_with_attributes_and_locks`): a collapse that
    /// looks fine at rest but tears a moving part costs attribute error.
    #[default]
    Poses,
    /// The rest pose only (`meshopt::simplify`); levels whose animated
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
    /// No vertex is locked; meshoptimizer wants one flag per vertex.
    locks: Vec<bool>,
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
        let scale = meshopt::simplify_scale(&adapter(&rest)).max(f32::MIN_POSITIVE);
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
            locks: vec![false; rest.len()],
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
        let (indices, error) = self.run_with(target, SimplifyOptions::None);
        if indices.len() / 3 <= most {
            return (indices, error);
        }
        self.run_with(target, SimplifyOptions::Permissive)
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
        let permissive = self.run_with(target, SimplifyOptions::Permissive);
        let vertices = adapter(&self.rest);
        let mut error = 0.0f32;
        let sloppy =
            meshopt::simplify_sloppy(self.full, &vertices, target * 3, f32::MAX, Some(&mut error));
        log::debug!(
            "sloppy simplifier: {} -> {} triangles (asked {target})",
            self.full.len() / 3,
            sloppy.len() / 3
        );
        vec![permissive, (sloppy, error * self.scale)]
    }

    fn run_with(&self, target: usize, options: SimplifyOptions) -> (Vec<u32>, f32) {
        let vertices = adapter(&self.rest);
        let mut error = 0.0f32;
        let indices = if self.weights.is_empty() {
            meshopt::simplify(
                self.full,
                &vertices,
                target * 3,
                f32::MAX,
                options,
                Some(&mut error),
            )
        } else {
            meshopt::simplify_with_attributes_and_locks(
                self.full,
                &vertices,
                &self.attributes,
                &self.weights,
                self.weights.len() * std::mem::size_of::<f32>(),
                &self.locks,
                target * 3,
                f32::MAX,
                options,
                Some(&mut error),
            )
        };
        log::debug!(
            "{} simplifier ({options:?}): {} -> {} triangles (asked {target})",
            self.strategy.name(),
            self.full.len() / 3,
            indices.len() / 3
        );
        (indices, error * self.scale)
    }
}

fn adapter(positions: &[[f32; 3]]) -> VertexDataAdapter<'_> {
    VertexDataAdapter::new(bytemuck::cast_slice(positions), 12, 0)
        .expect("tightly packed [f32; 3] positions always form a valid vertex stream")
}
