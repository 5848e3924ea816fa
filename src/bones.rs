//! Joint palettes for the skinning techniques: the GPU layout of one joint
//! matrix, and the baked bone texture (every frame's palette, stored once).
//!
//! The bone texture uses the VAT's own clip timing ([`VatClip`]), so both
//! techniques show the same pose at the same instant. Because a skinned
//! position is linear in the joint matrices, lerping the matrices of two
//! frames gives exactly the lerp of the two skinned positions: the bone
//! texture's interpolation error equals the VAT's (in f32).

use crate::anim::Pose;
use crate::model::Model;
use crate::vat::VatClip;
use glam::Mat4;
use rayon::prelude::*;

/// One joint matrix as the GPU reads it: the top three rows of the affine
/// matrix (the fourth is always 0, 0, 0, 1). 48 bytes.
pub type JointRows = [[f32; 4]; 3];

/// Texels (RGBA32F) per joint in the bone texture.
pub const TEXELS_PER_JOINT: u32 = 3;

/// The rows of `m`'s affine part.
#[inline]
pub fn joint_rows(m: &Mat4) -> JointRows {
    let t = m.transpose();
    [
        t.x_axis.to_array(),
        t.y_axis.to_array(),
        t.z_axis.to_array(),
    ]
}

/// Every frame's palette in one RGBA32F texture: frame `k` of a clip is row
/// `clip.first_row + k`, joint `j` takes texels `3j .. 3j + 3`.
#[derive(Clone, Debug)]
pub struct BoneTexture {
    pub joints: u32,
    /// Texels per row: `3 × joints`.
    pub width: u32,
    /// Rows: the frames of every clip.
    pub height: u32,
    /// The VAT's clips with `first_row` (and `layer` 0) in this texture.
    pub clips: Vec<VatClip>,
    /// Row-major RGBA32F texels.
    pub texels: Vec<[f32; 4]>,
}

#[derive(Debug, thiserror::Error)]
pub enum BoneError {
    #[error(
        "{model}: {joints} joints need {width} texels per row, more than the texture width {max}"
    )]
    TooManyJoints {
        model: String,
        joints: u32,
        width: u32,
        max: u32,
    },
    #[error(
        "{model}: the bone texture needs {rows} rows (one per frame), more than the texture height {max}; lower the bake rate"
    )]
    TooManyFrames { model: String, rows: u32, max: u32 },
}

impl BoneTexture {
    /// Bakes the palette of every frame of `clips` (taken from a VAT bake).
    /// Morph targets are not represented: skinning techniques ignore them.
    pub fn bake(
        model: &Model,
        clips: &[VatClip],
        max_width: u32,
        max_height: u32,
    ) -> Result<Self, BoneError> {
        let joints = model.palette.len() as u32;
        let width = joints.max(1) * TEXELS_PER_JOINT;
        if width > max_width {
            return Err(BoneError::TooManyJoints {
                model: model.name(),
                joints,
                width,
                max: max_width,
            });
        }
        let mut table = clips.to_vec();
        let mut row = 0u32;
        for c in &mut table {
            c.layer = 0;
            c.first_row = row;
            row += c.frame_count;
        }
        if row > max_height {
            return Err(BoneError::TooManyFrames {
                model: model.name(),
                rows: row,
                max: max_height,
            });
        }
        let jobs: Vec<(usize, u32)> = table
            .iter()
            .enumerate()
            .flat_map(|(c, clip)| (0..clip.frame_count).map(move |k| (c, k)))
            .collect();
        let mut texels = vec![[0.0f32; 4]; (width * row.max(1)) as usize];
        texels
            .par_chunks_mut(width as usize)
            .zip(jobs)
            .for_each_init(
                || Pose::rest(model),
                |pose, (out, (c, k))| {
                    let clip = &table[c];
                    // The looping copy of frame 0 samples time 0, as the VAT does.
                    let k = if clip.looping && k == clip.segments() {
                        0
                    } else {
                        k
                    };
                    pose.sample(model, clip.source, clip.frame_time(k));
                    for (j, m) in pose.palette.iter().enumerate() {
                        out[3 * j..3 * j + 3].copy_from_slice(&joint_rows(m));
                    }
                },
            );
        Ok(Self {
            joints,
            width,
            height: row.max(1),
            clips: table,
            texels,
        })
    }

    /// Several models' textures in one: each one's rows after the
    /// previous one's (its clips' `first_row` moved with them), the width
    /// the widest one's (narrower rows padded with zeros, never read).
    pub fn stack(mut parts: Vec<BoneTexture>, max_height: u32) -> Result<Self, BoneError> {
        if parts.len() == 1 {
            return Ok(parts.remove(0));
        }
        let width = parts
            .iter()
            .map(|p| p.width)
            .max()
            .unwrap_or(TEXELS_PER_JOINT);
        let rows: u32 = parts.iter().map(|p| p.height).sum();
        if rows > max_height {
            return Err(BoneError::TooManyFrames {
                model: "the scene".into(),
                rows,
                max: max_height,
            });
        }
        let mut texels = Vec::with_capacity((width * rows.max(1)) as usize);
        let mut clips = Vec::new();
        let mut first = 0u32;
        for p in &parts {
            for row in p.texels.chunks(p.width as usize) {
                texels.extend_from_slice(row);
                texels.resize(texels.len() + (width - p.width) as usize, [0.0; 4]);
            }
            clips.extend(p.clips.iter().map(|c| VatClip {
                first_row: c.first_row + first,
                ..c.clone()
            }));
            first += p.height;
        }
        if texels.is_empty() {
            texels.resize(width as usize, [0.0; 4]);
        }
        Ok(Self {
            joints: width / TEXELS_PER_JOINT,
            width,
            height: rows.max(1),
            clips,
            texels,
        })
    }

    /// Bytes of the texture.
    pub fn bytes(&self) -> &[u8] {
        bytemuck::cast_slice(&self.texels)
    }

    /// The stored rows of joint `j` in frame `k` of clip `c`.
    pub fn joint(&self, c: usize, k: u32, j: u32) -> JointRows {
        let row = (self.clips[c].first_row + k) as usize;
        let i = row * self.width as usize + (3 * j) as usize;
        [self.texels[i], self.texels[i + 1], self.texels[i + 2]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Quat, Vec3, Vec4};

    #[test]
    fn joint_rows_reproduce_the_affine_transform() {
        let m = Mat4::from_scale_rotation_translation(
            Vec3::new(1.0, 2.0, 3.0),
            Quat::from_rotation_y(0.7),
            Vec3::new(4.0, 5.0, 6.0),
        );
        let rows = joint_rows(&m);
        let p = Vec4::new(0.3, -1.2, 2.5, 1.0);
        let expected = m * p;
        for (r, e) in rows.iter().zip(expected.to_array()) {
            assert!((Vec4::from_array(*r).dot(p) - e).abs() < 1e-5);
        }
    }

    /// A texture of `joints` joints and `frames` frames of one clip, each
    /// texel holding (part, frame, texel, 1).
    fn fake(part: f32, joints: u32, frames: u32) -> BoneTexture {
        let width = joints * TEXELS_PER_JOINT;
        BoneTexture {
            joints,
            width,
            height: frames,
            clips: vec![VatClip {
                name: format!("clip {part}"),
                source: Some(0),
                layer: 0,
                first_row: 0,
                frame_count: frames,
                fps: 1.0,
                duration: frames as f32,
                looping: false,
            }],
            texels: (0..frames)
                .flat_map(|f| (0..width).map(move |x| [part, f as f32, x as f32, 1.0]))
                .collect(),
        }
    }

    #[test]
    fn a_stack_keeps_every_parts_joints_where_its_clips_say() {
        let parts = vec![fake(0.0, 2, 3), fake(1.0, 5, 2), fake(2.0, 1, 4)];
        let stacked = BoneTexture::stack(parts.clone(), 64).unwrap();
        assert_eq!((stacked.width, stacked.height), (15, 9));
        assert_eq!(
            stacked
                .clips
                .iter()
                .map(|c| c.first_row)
                .collect::<Vec<_>>(),
            [0, 3, 5]
        );
        for (c, part) in parts.iter().enumerate() {
            for k in 0..part.height {
                for j in 0..part.joints {
                    assert_eq!(stacked.joint(c, k, j), part.joint(0, k, j));
                }
            }
        }
        // Past its height the stack is refused, naming the rows.
        let err = BoneTexture::stack(parts, 8).unwrap_err().to_string();
        assert!(err.contains("9 rows"), "{err}");
    }
}
