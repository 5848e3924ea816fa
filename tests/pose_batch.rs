//! The CPU halves of the skinning techniques against single-instance skinning.

mod common;

use glam::Vec3;
use stampede::Model;
use stampede::bones::{BoneTexture, joint_rows};
use stampede::pose_batch::PoseBatch;
use stampede::skin;
use stampede::vat::{self, BakeOptions};

fn clip_time(model: &Model) -> impl Fn(usize) -> (Option<usize>, f32) + Sync + '_ {
    move |i| (Some(i % model.clips.len()), 0.137 * i as f32)
}

#[test]
fn batched_palettes_and_skinning_equal_one_instance_at_a_time() {
    let model = Model::load(model_or_skip!("Fox.glb")).unwrap();
    let joints = model.palette.len();
    let n = model.vertex_count();
    let count = 13;
    let mut batch = PoseBatch::new(&model);
    let mut palettes = vec![[[0.0; 4]; 3]; count * joints];
    let f = clip_time(&model);
    batch.palettes(&model, count, |i| Some(f(i)), &mut palettes);
    let mut pos = vec![Vec3::ZERO; count * n];
    let mut nrm = vec![Vec3::ZERO; count * n];
    batch.skin(&model, count, clip_time(&model), &mut pos, &mut nrm);
    let f = clip_time(&model);
    for i in 0..count {
        let (clip, t) = f(i);
        let pose = model.sample_pose(clip, t);
        for j in 0..joints {
            assert_eq!(
                palettes[i * joints + j],
                joint_rows(&pose.palette[j]),
                "instance {i} joint {j}"
            );
        }
        let (p, nr) = skin::skin(&model, &pose);
        assert_eq!(&pos[i * n..(i + 1) * n], &p[..]);
        assert_eq!(&nrm[i * n..(i + 1) * n], &nr[..]);
    }
}

#[test]
fn bone_texture_frames_are_the_palettes_at_the_vat_frame_times() {
    let model = Model::load(model_or_skip!("Fox.glb")).unwrap();
    let vat = vat::bake(&model, &BakeOptions::default()).unwrap();
    let bones = BoneTexture::bake(&model, &vat.clips, 8192, 8192).unwrap();
    assert_eq!(bones.width, 3 * 24);
    assert_eq!(
        bones.height,
        vat.clips.iter().map(|c| c.frame_count).sum::<u32>()
    );
    for (c, clip) in bones.clips.iter().enumerate() {
        for k in [0, clip.frame_count / 2, clip.frame_count - 1] {
            let k_time = if clip.looping && k == clip.segments() {
                0
            } else {
                k
            };
            let pose = model.sample_pose(clip.source, clip.frame_time(k_time));
            for j in 0..bones.joints {
                assert_eq!(bones.joint(c, k, j), joint_rows(&pose.palette[j as usize]));
            }
        }
    }
    assert!(BoneTexture::bake(&model, &vat.clips, 16, 8192).is_err());
    assert!(BoneTexture::bake(&model, &vat.clips, 8192, 10).is_err());
}
