//! Reading a generated `.glb` with the `gltf` crate directly (independent of
//! the project's importer), and the checks every generated model passes.
#![allow(dead_code)]

use std::collections::HashMap;

use glam::{Mat4, Quat, Vec3};
use gltf::animation::Interpolation;
use gltf::animation::util::ReadOutputs;

/// Everything the checks need from one `.glb`, read with `gltf::import_slice`.
pub struct Asset {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub colors: Vec<[f32; 4]>,
    pub joints: Vec<[u16; 4]>,
    pub weights: Vec<[f32; 4]>,
    pub indices: Vec<u32>,
    /// Node index of each skin joint.
    pub joint_nodes: Vec<usize>,
    pub joint_names: Vec<String>,
    pub inverse_bind: Vec<Mat4>,
    pub parents: Vec<Option<usize>>,
    pub rest: Vec<(Vec3, Quat, Vec3)>,
    pub clips: HashMap<String, Vec<Channel>>,
    pub doc: gltf::Document,
}

pub struct Channel {
    pub node: usize,
    pub times: Vec<f32>,
    pub values: Values,
}

pub enum Values {
    Rotation(Vec<Quat>),
    Translation(Vec<Vec3>),
}

pub fn load(bytes: &[u8]) -> Asset {
    gltf::Gltf::from_slice(bytes).expect("Gltf::from_slice parses the file");
    let (doc, buffers, _) = gltf::import_slice(bytes).expect("import_slice loads the file");
    let data = |b: gltf::Buffer| Some(&buffers[b.index()].0[..]);

    assert_eq!(doc.meshes().len(), 1, "one mesh");
    assert_eq!(doc.skins().len(), 1, "one skin");
    let mesh = doc.meshes().next().expect("a mesh");
    let prims: Vec<_> = mesh.primitives().collect();
    assert_eq!(prims.len(), 1, "one primitive");
    let r = prims[0].reader(data);
    let skin = doc.skins().next().expect("a skin");
    let mut parents = vec![None; doc.nodes().len()];
    for node in doc.nodes() {
        for child in node.children() {
            parents[child.index()] = Some(node.index());
        }
    }
    let mut clips = HashMap::new();
    for anim in doc.animations() {
        let channels = anim.channels().map(|c| {
            assert_eq!(c.sampler().interpolation(), Interpolation::Linear);
            let reader = c.reader(data);
            let values = match reader.read_outputs().expect("sampler output") {
                ReadOutputs::Rotations(r) => {
                    Values::Rotation(r.into_f32().map(Quat::from_array).collect())
                }
                ReadOutputs::Translations(t) => Values::Translation(t.map(Vec3::from).collect()),
                _ => panic!("only rotation and translation channels are expected"),
            };
            let times = reader.read_inputs().expect("sampler input").collect();
            Channel {
                node: c.target().node().index(),
                times,
                values,
            }
        });
        clips.insert(anim.name().unwrap_or("").to_owned(), channels.collect());
    }
    Asset {
        positions: r
            .read_positions()
            .expect("POSITION")
            .map(Vec3::from)
            .collect(),
        normals: r.read_normals().expect("NORMAL").map(Vec3::from).collect(),
        colors: r.read_colors(0).expect("COLOR_0").into_rgba_f32().collect(),
        joints: r.read_joints(0).expect("JOINTS_0").into_u16().collect(),
        weights: r.read_weights(0).expect("WEIGHTS_0").into_f32().collect(),
        indices: r.read_indices().expect("indices").into_u32().collect(),
        joint_nodes: skin.joints().map(|n| n.index()).collect(),
        joint_names: skin
            .joints()
            .map(|n| n.name().unwrap_or("").to_owned())
            .collect(),
        inverse_bind: (skin.reader(data).read_inverse_bind_matrices())
            .expect("inverseBindMatrices")
            .map(|m| Mat4::from_cols_array_2d(&m))
            .collect(),
        parents,
        rest: (doc.nodes())
            .map(|n| {
                let (t, r, s) = n.transform().decomposed();
                (Vec3::from(t), Quat::from_array(r), Vec3::from(s))
            })
            .collect(),
        clips,
        doc: doc.clone(),
    }
}

impl Asset {
    pub fn joint(&self, name: &str) -> usize {
        self.joint_names
            .iter()
            .position(|n| n == name)
            .unwrap_or_else(|| panic!("joint {name} exists"))
    }

    pub fn duration(&self, clip: &str) -> f32 {
        self.clips[clip]
            .iter()
            .map(|c| *c.times.last().expect("keys"))
            .fold(0.0, f32::max)
    }

    /// Node world transforms for node-local TRS values.
    pub fn world(&self, local: &[(Vec3, Quat, Vec3)]) -> Vec<Mat4> {
        let mut world: Vec<Option<Mat4>> = vec![None; local.len()];
        fn resolve(
            i: usize,
            a: &Asset,
            local: &[(Vec3, Quat, Vec3)],
            w: &mut [Option<Mat4>],
        ) -> Mat4 {
            if let Some(m) = w[i] {
                return m;
            }
            let (t, r, s) = local[i];
            let m = Mat4::from_scale_rotation_translation(s, r, t);
            let m = match a.parents[i] {
                Some(p) => resolve(p, a, local, w) * m,
                None => m,
            };
            w[i] = Some(m);
            m
        }
        (0..local.len())
            .map(|i| resolve(i, self, local, &mut world))
            .collect()
    }

    /// Node world transforms of `clip` at time `t` (LINEAR, normalised lerp).
    pub fn pose(&self, clip: &str, t: f32) -> Vec<Mat4> {
        let mut local = self.rest.clone();
        for c in &self.clips[clip] {
            let k = c
                .times
                .partition_point(|&x| x <= t)
                .clamp(1, c.times.len() - 1)
                - 1;
            let u = ((t - c.times[k]) / (c.times[k + 1] - c.times[k])).clamp(0.0, 1.0);
            match &c.values {
                Values::Rotation(v) => {
                    let b = if v[k].dot(v[k + 1]) < 0.0 {
                        -v[k + 1]
                    } else {
                        v[k + 1]
                    };
                    local[c.node].1 = v[k].lerp(b, u).normalize();
                }
                Values::Translation(v) => local[c.node].0 = v[k].lerp(v[k + 1], u),
            }
        }
        self.world(&local)
    }

    /// Linear-blend-skinned position of vertex `v` for node world transforms.
    pub fn skin(&self, world: &[Mat4], v: usize) -> Vec3 {
        let mut out = Vec3::ZERO;
        for (j, w) in self.joints[v].iter().zip(self.weights[v]) {
            let j = usize::from(*j);
            out += w
                * (world[self.joint_nodes[j]] * self.inverse_bind[j])
                    .transform_point3(self.positions[v]);
        }
        out
    }

    pub fn key_times(&self, clip: &str) -> Vec<f32> {
        self.clips[clip][0].times.clone()
    }
}

pub fn check_common(a: &Asset, name: &str) {
    let n = a.positions.len();
    assert!(
        a.normals.len() == n && a.colors.len() == n && a.joints.len() == n && a.weights.len() == n
    );
    // Scene: the skinned mesh node (identity) and the skeleton root at the root.
    let scene = a.doc.default_scene().expect("a default scene");
    let roots: Vec<usize> = scene.nodes().map(|n| n.index()).collect();
    let mesh_node = a
        .doc
        .nodes()
        .find(|n| n.mesh().is_some())
        .expect("a mesh node");
    assert!(
        mesh_node.skin().is_some(),
        "{name}: the mesh node is skinned"
    );
    assert!(
        roots.contains(&mesh_node.index()),
        "{name}: the mesh node is a scene root"
    );
    let (t, r, s) = mesh_node.transform().decomposed();
    assert_eq!(
        (t, r, s),
        ([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]),
        "{name}: mesh node has identity transform"
    );
    let skeleton_root = a
        .joint_nodes
        .iter()
        .find(|&&j| !a.joint_nodes.contains(&a.parents[j].unwrap_or(usize::MAX)));
    assert!(
        roots.contains(skeleton_root.expect("a root joint")),
        "{name}: the skeleton root is a scene root"
    );

    for (v, (j, w)) in a.joints.iter().zip(&a.weights).enumerate() {
        let sum: f32 = w.iter().sum();
        assert!(
            (sum - 1.0).abs() < 1e-5,
            "{name}: vertex {v} weights sum to {sum}"
        );
        assert!(
            w.iter().all(|&x| x >= 0.0),
            "{name}: vertex {v} has a negative weight"
        );
        assert!(
            j.iter().all(|&x| usize::from(x) < a.joint_nodes.len()),
            "{name}: vertex {v} joint out of range"
        );
    }
    for (v, nrm) in a.normals.iter().enumerate() {
        assert!(
            (nrm.length() - 1.0).abs() < 1e-4,
            "{name}: normal {v} has length {}",
            nrm.length()
        );
    }
    assert!(
        a.colors.iter().flatten().all(|c| (0.0..=1.0).contains(c)),
        "{name}: colours in 0..1"
    );
    assert!(
        a.indices.iter().all(|&i| (i as usize) < n),
        "{name}: indices in range"
    );

    // Inverse bind matrices invert the rest world transforms.
    let rest_world = a.world(&a.rest);
    for (j, &node) in a.joint_nodes.iter().enumerate() {
        let product = rest_world[node] * a.inverse_bind[j];
        assert!(
            product.abs_diff_eq(Mat4::IDENTITY, 1e-4),
            "{name}: inverse bind matrix of {} does not invert its rest transform",
            a.joint_names[j]
        );
    }

    // Winding: counter-clockwise seen from outside. Closed parts give a
    // positive signed volume, and every face agrees with its vertex normals.
    let mut volume = 0.0;
    for (f, tri) in a.indices.chunks_exact(3).enumerate() {
        let [p0, p1, p2] = [0, 1, 2].map(|k| a.positions[tri[k] as usize]);
        volume += p0.dot(p1.cross(p2)) / 6.0;
        let face = (p1 - p0).cross(p2 - p0);
        let normals: Vec3 = tri.iter().map(|&i| a.normals[i as usize]).sum();
        assert!(
            face.dot(normals) >= 0.0,
            "{name}: face {f} is wound against its normals"
        );
    }
    assert!(
        volume > 0.0,
        "{name}: the mesh is inside out (signed volume {volume})"
    );
}

/// Every clip loops: the last key of each channel equals the first.
pub fn check_loops(a: &Asset, name: &str, clip: &str) {
    for c in &a.clips[clip] {
        let same = match &c.values {
            Values::Rotation(v) => v.first() == v.last(),
            Values::Translation(v) => v.first() == v.last(),
        };
        assert!(
            same,
            "{name} {clip}: node {} does not end where it starts",
            c.node
        );
        assert_eq!(c.times.first(), Some(&0.0), "{name} {clip}: starts at 0");
    }
}

pub fn bounds(points: &[Vec3]) -> (Vec3, Vec3) {
    let min = points
        .iter()
        .copied()
        .fold(Vec3::splat(f32::MAX), Vec3::min);
    let max = points
        .iter()
        .copied()
        .fold(Vec3::splat(f32::MIN), Vec3::max);
    (min, max)
}
