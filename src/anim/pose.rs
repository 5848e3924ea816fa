//! A sampled pose: node world matrices, the joint palette and morph weights.

use super::Path;
use crate::model::Model;
use glam::{Mat4, Quat, Vec3};

/// The state of every node at one instant. Reuse one `Pose` across samples:
/// sampling allocates nothing once it exists.
#[derive(Clone, Debug)]
pub struct Pose {
    /// Local translation, rotation and scale of every node.
    pub local: Vec<(Vec3, Quat, Vec3)>,
    /// World (scene root space) matrix of every node.
    pub world: Vec<Mat4>,
    /// `world[entry.node] × entry.inverse_bind` for every palette entry.
    pub palette: Vec<Mat4>,
    /// Morph weights of every node (empty for nodes without morph targets).
    pub morph_weights: Vec<Vec<f32>>,
    scratch: Vec<f32>,
}

impl Pose {
    /// The rest pose: every node at its own TRS, morph weights at their defaults.
    pub fn rest(model: &Model) -> Self {
        let mut pose = Self {
            local: Vec::with_capacity(model.nodes.len()),
            world: vec![Mat4::IDENTITY; model.nodes.len()],
            palette: vec![Mat4::IDENTITY; model.palette.len()],
            morph_weights: model.nodes.iter().map(|n| n.weights.clone()).collect(),
            scratch: Vec::new(),
        };
        pose.reset(model);
        pose.finish(model);
        pose
    }

    /// Samples `clip` at clip time `t` (seconds from its first key); `None`
    /// gives the rest pose.
    pub fn sample(&mut self, model: &Model, clip: Option<usize>, t: f32) {
        self.reset(model);
        if let Some(clip) = clip.and_then(|c| model.clips.get(c)) {
            let time = clip.start + t;
            for channel in &clip.channels {
                self.scratch.resize(channel.width, 0.0);
                channel.sample_into(time, &mut self.scratch);
                let v = &self.scratch;
                let (tr, rot, sc) = &mut self.local[channel.node];
                match channel.path {
                    Path::Translation => *tr = Vec3::from_slice(v),
                    Path::Rotation => *rot = Quat::from_slice(v),
                    Path::Scale => *sc = Vec3::from_slice(v),
                    Path::Weights => {
                        let w = &mut self.morph_weights[channel.node];
                        let n = w.len().min(v.len());
                        w[..n].copy_from_slice(&v[..n]);
                    }
                }
            }
        }
        self.finish(model);
    }

    fn reset(&mut self, model: &Model) {
        self.local.clear();
        self.local.extend(
            model
                .nodes
                .iter()
                .map(|n| (n.translation, n.rotation, n.scale)),
        );
        for (w, node) in self.morph_weights.iter_mut().zip(&model.nodes) {
            w.copy_from_slice(&node.weights);
        }
    }

    /// World matrices in parent-first order, then the palette.
    fn finish(&mut self, model: &Model) {
        for &i in &model.node_order {
            let (t, r, s) = self.local[i];
            let local = Mat4::from_scale_rotation_translation(s, r, t);
            self.world[i] = match model.nodes[i].parent {
                Some(p) => self.world[p] * local,
                None => local,
            };
        }
        for (out, entry) in self.palette.iter_mut().zip(&model.palette) {
            *out = self.world[entry.node] * entry.inverse_bind;
        }
    }
}

impl Model {
    /// Samples a pose; see [`Pose::sample`].
    pub fn sample_pose(&self, clip: Option<usize>, t: f32) -> Pose {
        let mut pose = Pose::rest(self);
        if clip.is_some() {
            pose.sample(self, clip, t);
        }
        pose
    }
}
