//! CPU skinning against references that do not go through our sampler.

mod common;

use glam::{Mat4, Vec3};
use stampede::Model;
use stampede::anim::Pose;
use stampede::skin;

/// World matrices of every node, computed from the gltf crate's own node
/// matrices (not from our importer's hierarchy).
fn gltf_world_matrices(doc: &gltf::Document) -> Vec<Mat4> {
    let mut world = vec![Mat4::IDENTITY; doc.nodes().len()];
    fn visit(node: gltf::Node, parent: Mat4, world: &mut [Mat4]) {
        let m = parent * Mat4::from_cols_array_2d(&node.transform().matrix());
        world[node.index()] = m;
        for child in node.children() {
            visit(child, m, world);
        }
    }
    for scene in doc.scenes() {
        for node in scene.nodes() {
            visit(node, Mat4::IDENTITY, &mut world);
        }
    }
    world
}

/// With every joint at its own rest TRS, skinning gives back the bind shape
/// placed by the mesh node's world transform (true for these two files,
/// whose inverse bind matrices invert the joints' rest transforms).
#[test]
fn rest_pose_reproduces_the_bind_shape() {
    for file in ["Fox.glb", "CesiumMan.glb"] {
        let path = model_or_skip!(file);
        let model = Model::load(&path).unwrap();
        let (doc, buffers, _) = gltf::import(&path).unwrap();
        let world = gltf_world_matrices(&doc);
        let mesh_node = doc.nodes().find(|n| n.mesh().is_some()).unwrap();
        let prim = mesh_node.mesh().unwrap().primitives().next().unwrap();
        let bind: Vec<Vec3> = prim
            .reader(|b| Some(&buffers[b.index()]))
            .read_positions()
            .unwrap()
            .map(Vec3::from)
            .collect();
        let (skinned, normals) = skin::skin(&model, &Pose::rest(&model));
        let size = model.bind_bounds().diagonal();
        let m = world[mesh_node.index()];
        let worst = bind
            .iter()
            .zip(&skinned)
            .map(|(b, s)| m.transform_point3(*b).distance(*s))
            .fold(0.0, f32::max);
        assert!(
            worst <= 1e-4 * size,
            "{file}: rest pose off by {worst} (size {size})"
        );
        assert!(
            normals.iter().all(|n| (n.length() - 1.0).abs() < 1e-4),
            "{file}: unit normals"
        );
    }
}

/// SimpleSkin, worked by hand from the file: joint 0 (node 1) sits at
/// (0, 1, 0); joint 1 (node 2) is its child, rotated about Z by the clip
/// (0° at 0 s, 45° at 0.5 s, 90° at 1 s). Both inverse bind matrices are
/// T(-0.5, -1, 0), so palette 0 = T(-0.5, 0, 0) and
/// palette 1 = T(0, 1, 0) · Rz(a) · T(-0.5, -1, 0).
#[test]
fn simple_skin_by_hand() {
    let model = Model::load(model_or_skip!("SimpleSkin.gltf")).unwrap();
    let mut pose = Pose::rest(&model);
    let check = |pose: &Pose, expected: &[(usize, [f32; 3])], tol: f32| {
        let (p, _) = skin::skin(&model, pose);
        for &(v, e) in expected {
            let e = Vec3::from(e);
            assert!(
                p[v].distance(e) < tol,
                "vertex {v}: {} vs hand-worked {e}",
                p[v]
            );
        }
    };
    // t = 1 s: a 90° key. Vertex 8 (0, 2, 0) is all joint 1:
    // Rz90 (-0.5, 1) = (-1, -0.5), + (0, 1) = (-1, 0.5).
    // Vertex 4 (0, 1, 0) is half and half: (-0.5, 1) and Rz90 (-0.5, 0) + (0, 1) = (0, 0.5)
    // → (-0.25, 0.75). Vertex 9 (1, 2, 0): Rz90 (0.5, 1) + (0, 1) = (-1, 1.5).
    // Vertex 0 (0, 0, 0) is all joint 0: (-0.5, 0).
    pose.sample(&model, Some(0), 1.0);
    check(
        &pose,
        &[
            (8, [-1.0, 0.5, 0.0]),
            (4, [-0.25, 0.75, 0.0]),
            (9, [-1.0, 1.5, 0.0]),
            (0, [-0.5, 0.0, 0.0]),
        ],
        1e-4,
    );
    // t = 0.25 s: halfway from 0° to the 45° key, so 22.5° (the file's key
    // is 45.017°; the tolerance covers that). Vertex 8: Rz22.5 (-0.5, 1)
    // = (-0.5c - s, -0.5s + c) + (0, 1) with c = 0.92388, s = 0.38268.
    pose.sample(&model, Some(0), 0.25);
    let (c, s) = (0.923_88_f32, 0.382_68_f32);
    let v8 = [-0.5 * c - s, -0.5 * s + c + 1.0, 0.0];
    // Vertex 2 (0, 0.5, 0) with weights 0.75 / 0.25:
    // 0.75 (-0.5, 0.5) + 0.25 (Rz22.5 (-0.5, -0.5) + (0, 1)).
    let r = [-0.5 * c + 0.5 * s, -0.5 * s - 0.5 * c + 1.0];
    let v2 = [0.75 * -0.5 + 0.25 * r[0], 0.75 * 0.5 + 0.25 * r[1], 0.0];
    check(&pose, &[(8, v8), (2, v2)], 1e-3);
}

/// The morph cube's VAT must show its morph targets: at a key time the pose
/// equals node world × (base + Σ wₖ Δₖ), with weights and deltas read here
/// with the gltf crate.
#[test]
fn morph_targets_are_applied() {
    let path = model_or_skip!("AnimatedMorphCube.gltf");
    let model = Model::load(&path).unwrap();
    let (doc, buffers, _) = gltf::import(&path).unwrap();
    let world = gltf_world_matrices(&doc);
    let node = doc.nodes().find(|n| n.mesh().is_some()).unwrap();
    let prim = node.mesh().unwrap().primitives().next().unwrap();
    let reader = prim.reader(|b| Some(&buffers[b.index()]));
    let base: Vec<Vec3> = reader.read_positions().unwrap().map(Vec3::from).collect();
    let deltas: Vec<Vec<Vec3>> = reader
        .read_morph_targets()
        .map(|(p, _, _)| p.unwrap().map(Vec3::from).collect())
        .collect();
    let channel = doc.animations().next().unwrap().channels().next().unwrap();
    let ch_reader = channel.reader(|b| Some(&buffers[b.index()]));
    let times: Vec<f32> = ch_reader.read_inputs().unwrap().collect();
    let weights: Vec<f32> = match ch_reader.read_outputs().unwrap() {
        gltf::animation::util::ReadOutputs::MorphTargetWeights(w) => w.into_f32().collect(),
        _ => panic!("expected a weights channel"),
    };
    let n = deltas.len();
    let mut moved = false;
    for (k, &t) in times.iter().enumerate() {
        let w = &weights[k * n..(k + 1) * n];
        let pose = model.sample_pose(Some(0), t - times[0]);
        let (p, _) = skin::skin(&model, &pose);
        for (v, b) in base.iter().enumerate() {
            let local = *b + (0..n).map(|i| w[i] * deltas[i][v]).sum::<Vec3>();
            let expected = world[node.index()].transform_point3(local);
            assert!(
                p[v].distance(expected) < 1e-4,
                "key {k} vertex {v}: {} vs {expected}",
                p[v]
            );
            moved |= w.iter().any(|&w| w > 0.1);
        }
    }
    assert!(moved, "the clip must drive the morph weights");
}
