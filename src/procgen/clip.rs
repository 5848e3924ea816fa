//! Looping animation clips sampled from a pose function.

use glam::{Quat, Vec3};

use super::skeleton::{Pose, Skeleton};

/// One animated property of one joint, one value per key.
#[derive(Clone, Debug)]
pub enum Track {
    Rotation { joint: usize, values: Vec<Quat> },
    Translation { joint: usize, values: Vec<Vec3> },
}

/// A named clip: shared key times and one track per animated property.
#[derive(Clone, Debug)]
pub struct Clip {
    pub name: String,
    pub times: Vec<f32>,
    pub tracks: Vec<Track>,
}

impl Clip {
    /// Samples `pose_at(phase)` for `phase` in `[0, 1)` at `keys` evenly spaced
    /// times over `duration` seconds, then repeats the first key at
    /// `t = duration`, so the clip loops exactly. Every joint gets a rotation
    /// track and every root a translation track.
    pub fn looping(
        name: &str,
        skeleton: &Skeleton,
        duration: f32,
        keys: usize,
        pose_at: impl Fn(f32) -> Pose,
    ) -> Self {
        let keys = keys.max(2);
        let poses: Vec<Pose> = (0..keys).map(|k| pose_at(k as f32 / keys as f32)).collect();
        let mut times: Vec<f32> = (0..keys)
            .map(|k| duration * k as f32 / keys as f32)
            .collect();
        times.push(duration);

        let mut tracks = Vec::new();
        for (joint, rest) in skeleton.joints().iter().enumerate() {
            let mut values: Vec<Quat> = Vec::with_capacity(keys + 1);
            for pose in &poses {
                let mut q = pose.rotations.get(joint).copied().unwrap_or(Quat::IDENTITY);
                q = (rest.rotation * q).normalize();
                // Keep neighbouring keys in one hemisphere so LINEAR takes the short way.
                if let Some(prev) = values.last()
                    && prev.dot(q) < 0.0
                {
                    q = -q;
                }
                values.push(q);
            }
            if let Some(&first) = values.first() {
                values.push(first);
            }
            tracks.push(Track::Rotation { joint, values });
        }
        for root in skeleton.roots() {
            let rest = skeleton.joints()[root].translation;
            let mut values: Vec<Vec3> = poses.iter().map(|p| rest + p.root_offset).collect();
            if let Some(&first) = values.first() {
                values.push(first);
            }
            tracks.push(Track::Translation {
                joint: root,
                values,
            });
        }
        Self {
            name: name.to_owned(),
            times,
            tracks,
        }
    }
}
