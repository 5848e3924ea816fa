//! The procedural horse and bird: committed assets are current, the files
//! are valid glTF with sane skins and looping clips, and the gaits match the
//! documented ground speeds.
//!
//! Reads the files with the `gltf` crate directly, independent of the
//! project's importer.

use std::collections::HashMap;

use glam::{Mat4, Quat, Vec3};
use gltf::animation::Interpolation;
use gltf::animation::util::ReadOutputs;
use stampede::procgen::{self, HORSE_GALLOP_SPEED, HORSE_WALK_SPEED};

/// Everything the checks need from one `.glb`, read with `gltf::import_slice`.
struct Asset {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    colors: Vec<[f32; 4]>,
    joints: Vec<[u16; 4]>,
    weights: Vec<[f32; 4]>,
    indices: Vec<u32>,
    /// Node index of each skin joint.
    joint_nodes: Vec<usize>,
    joint_names: Vec<String>,
    inverse_bind: Vec<Mat4>,
    parents: Vec<Option<usize>>,
    rest: Vec<(Vec3, Quat, Vec3)>,
    clips: HashMap<String, Vec<Channel>>,
    doc: gltf::Document,
}

struct Channel {
    node: usize,
    times: Vec<f32>,
    values: Values,
}

enum Values {
    Rotation(Vec<Quat>),
    Translation(Vec<Vec3>),
}

fn load(bytes: &[u8]) -> Asset {
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
    fn joint(&self, name: &str) -> usize {
        self.joint_names
            .iter()
            .position(|n| n == name)
            .unwrap_or_else(|| panic!("joint {name} exists"))
    }

    fn duration(&self, clip: &str) -> f32 {
        self.clips[clip]
            .iter()
            .map(|c| *c.times.last().expect("keys"))
            .fold(0.0, f32::max)
    }

    /// Node world transforms for node-local TRS values.
    fn world(&self, local: &[(Vec3, Quat, Vec3)]) -> Vec<Mat4> {
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
    fn pose(&self, clip: &str, t: f32) -> Vec<Mat4> {
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
    fn skin(&self, world: &[Mat4], v: usize) -> Vec3 {
        let mut out = Vec3::ZERO;
        for (j, w) in self.joints[v].iter().zip(self.weights[v]) {
            let j = usize::from(*j);
            out += w
                * (world[self.joint_nodes[j]] * self.inverse_bind[j])
                    .transform_point3(self.positions[v]);
        }
        out
    }

    fn key_times(&self, clip: &str) -> Vec<f32> {
        self.clips[clip][0].times.clone()
    }
}

fn check_common(a: &Asset, name: &str) {
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
fn check_loops(a: &Asset, name: &str, clip: &str) {
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

fn bounds(points: &[Vec3]) -> (Vec3, Vec3) {
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

#[test]
fn committed_assets_match_the_generator() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    for (file, bytes) in [
        ("horse.glb", procgen::horse_glb()),
        ("bird.glb", procgen::bird_glb()),
    ] {
        let path = root.join(file);
        let committed = std::fs::read(&path).unwrap_or_default();
        assert!(
            committed == bytes,
            "{} is missing or out of date with src/procgen: run `cargo run -- make-assets`",
            path.display()
        );
    }
}

#[test]
fn generator_is_deterministic() {
    assert!(
        procgen::horse_glb() == procgen::horse_glb(),
        "horse bytes differ between calls"
    );
    assert!(
        procgen::bird_glb() == procgen::bird_glb(),
        "bird bytes differ between calls"
    );
}

#[test]
fn write_assets_writes_both_files() {
    let dir = std::env::temp_dir().join(format!("stampede-procgen-{}", std::process::id()));
    let written = procgen::write_assets(&dir).expect("write_assets");
    let names: Vec<_> = written
        .iter()
        .filter_map(|p| p.file_name()?.to_str())
        .collect();
    assert_eq!(names, ["horse.glb", "bird.glb"]);
    assert_eq!(
        std::fs::read(&written[0]).expect("horse written"),
        procgen::horse_glb()
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn horse_is_a_valid_skinned_horse() {
    let a = load(&procgen::horse_glb());
    check_common(&a, "horse");
    let n = a.positions.len();
    assert!((1500..=3000).contains(&n), "horse has {n} vertices");
    assert!(
        a.joint_nodes.len() >= 20,
        "horse has {} joints",
        a.joint_nodes.len()
    );
    for joint in [
        "Hips", "Spine1", "Spine2", "Neck1", "Neck2", "Head", "Tail1", "Tail2",
    ] {
        a.joint(joint);
    }
    for leg in ["FrontLeft", "FrontRight", "HindLeft", "HindRight"] {
        for part in ["Upper", "Lower", "Cannon", "Hoof"] {
            a.joint(&format!("{leg}{part}"));
        }
    }
    let (min, max) = bounds(&a.positions);
    let height = max.y - min.y;
    assert!((1.3..=2.2).contains(&height), "horse is {height} m tall");
    assert!(
        min.y.abs() < 0.01,
        "hooves rest on y = 0, lowest point is {}",
        min.y
    );
    assert!(
        (1.9..=2.8).contains(&(max.z - min.z)),
        "horse is {} m long",
        max.z - min.z
    );
    assert!(max.x - min.x < 0.8, "horse is {} m wide", max.x - min.x);

    for (clip, period) in [("Gallop", 0.6), ("Walk", 1.1), ("Idle", 0.0)] {
        assert!(a.clips.contains_key(clip), "horse has a {clip} clip");
        check_loops(&a, "horse", clip);
        if period > 0.0 {
            assert!(
                (a.duration(clip) - period).abs() < 0.05,
                "{clip} lasts {}",
                a.duration(clip)
            );
        }
    }
}

#[test]
fn bird_is_a_valid_skinned_bird() {
    let a = load(&procgen::bird_glb());
    check_common(&a, "bird");
    let n = a.positions.len();
    assert!((500..=1500).contains(&n), "bird has {n} vertices");
    assert!(
        a.joint_nodes.len() >= 9,
        "bird has {} joints",
        a.joint_nodes.len()
    );
    for joint in ["Body", "Neck", "Head", "Tail"] {
        a.joint(joint);
    }
    for side in ["Left", "Right"] {
        for part in ["Inner", "Outer", "Tip"] {
            a.joint(&format!("{side}Wing{part}"));
        }
    }
    let (min, max) = bounds(&a.positions);
    let span = max.x - min.x;
    assert!((0.8..=1.3).contains(&span), "wingspan is {span} m");
    assert!(
        min.y.abs() < 0.01,
        "the bird rests on y = 0, lowest point is {}",
        min.y
    );
    for (clip, period) in [("Flap", 0.5), ("Glide", 2.0)] {
        assert!(a.clips.contains_key(clip), "bird has a {clip} clip");
        check_loops(&a, "bird", clip);
        assert!(
            (a.duration(clip) - period).abs() < 0.05,
            "{clip} lasts {}",
            a.duration(clip)
        );
    }
}

/// The toe of each hoof: the frontmost sole vertex bound only to that hoof.
fn toe_vertices(a: &Asset) -> Vec<(String, usize)> {
    ["FrontLeft", "FrontRight", "HindLeft", "HindRight"]
        .iter()
        .map(|leg| {
            let hoof = a.joint(&format!("{leg}Hoof"));
            let toe = (0..a.positions.len())
                .filter(|&v| usize::from(a.joints[v][0]) == hoof && a.weights[v][0] > 0.999)
                .filter(|&v| a.positions[v].y < 1e-3)
                .max_by(|&u, &v| a.positions[u].z.total_cmp(&a.positions[v].z))
                .expect("a sole vertex on the hoof");
            (leg.to_string(), toe)
        })
        .collect()
}

/// While a hoof is planted it moves backwards at exactly the documented
/// speed, so a horse moved forward at that speed does not slide.
#[test]
fn planted_hooves_match_the_documented_speeds() {
    let a = load(&procgen::horse_glb());
    let toes = toe_vertices(&a);
    for (clip, speed, min_duty, max_duty) in [
        ("Walk", HORSE_WALK_SPEED, 0.5, 0.75),
        ("Gallop", HORSE_GALLOP_SPEED, 0.15, 0.4),
    ] {
        let times = a.key_times(clip);
        let poses: Vec<Vec<Mat4>> = times.iter().map(|&t| a.pose(clip, t)).collect();
        let mut planted_per_key = vec![0; times.len()];
        let mut touchdowns = Vec::new();
        for (leg, toe) in &toes {
            let path: Vec<Vec3> = poses.iter().map(|w| a.skin(w, *toe)).collect();
            let lowest = path.iter().map(|p| p.y).fold(f32::MAX, f32::min);
            assert!(lowest > -2e-3, "{clip}: {leg} toe sinks to {lowest}");
            let planted: Vec<bool> = path.iter().map(|p| p.y < 1e-3).collect();
            let keys = times.len() - 1;
            let duty = planted[..keys].iter().filter(|&&p| p).count() as f32 / keys as f32;
            assert!(
                (min_duty..=max_duty).contains(&duty),
                "{clip}: {leg} is planted {duty} of the cycle"
            );
            for k in 0..keys {
                planted_per_key[k] += usize::from(planted[k]);
                if planted[k] && !planted[(k + keys - 1) % keys] {
                    touchdowns.push(times[k] / times[keys]);
                }
                if planted[k] && planted[k + 1] {
                    let v = (path[k + 1] - path[k]) / (times[k + 1] - times[k]);
                    assert!(
                        (v.z + speed).abs() < 0.02 * speed && v.x.abs() < 1e-3 && v.y.abs() < 1e-3,
                        "{clip}: planted {leg} toe moves at {v} at t = {}, expected (0, 0, {})",
                        times[k],
                        -speed
                    );
                }
            }
        }
        touchdowns.sort_by(f32::total_cmp);
        assert_eq!(
            touchdowns.len(),
            4,
            "{clip}: each hoof lands once per cycle"
        );
        touchdowns.dedup_by(|x, y| (*x - *y).abs() < 0.04);
        assert_eq!(
            touchdowns.len(),
            4,
            "{clip}: a four-beat gait lands each hoof at its own time"
        );
        let support = &planted_per_key[..times.len() - 1];
        match clip {
            "Walk" => assert!(
                support.iter().all(|&s| s >= 2),
                "the walk always has two or more hooves down"
            ),
            _ => assert!(
                support.contains(&0),
                "the gallop has a moment of suspension"
            ),
        }
    }
}

/// Largest rotation (degrees) a joint makes away from its rest over a clip.
fn max_swing(a: &Asset, clip: &str, joint: &str) -> f32 {
    let node = a.joint_nodes[a.joint(joint)];
    let rest = a.rest[node].1;
    a.clips[clip]
        .iter()
        .filter(|c| c.node == node)
        .flat_map(|c| match &c.values {
            Values::Rotation(v) => v
                .iter()
                .map(|q| q.angle_between(rest).to_degrees())
                .collect(),
            Values::Translation(_) => Vec::new(),
        })
        .fold(0.0, f32::max)
}

#[test]
fn clips_move_the_right_parts() {
    let horse = load(&procgen::horse_glb());
    assert!(
        max_swing(&horse, "Gallop", "Hips") > 3.0,
        "the gallop pitches the body"
    );
    assert!(
        max_swing(&horse, "Gallop", "Neck1") > 10.0,
        "the gallop bobs the neck"
    );
    assert!(
        max_swing(&horse, "Gallop", "FrontLeftCannon") > 45.0,
        "the gallop folds the forelegs"
    );
    // Idle: the horse lowers its head to graze.
    let head = horse.joint("Head");
    let head_verts: Vec<usize> = (0..horse.positions.len())
        .filter(|&v| usize::from(horse.joints[v][0]) == head && horse.weights[v][0] > 0.999)
        .collect();
    let lowest_muzzle = horse
        .key_times("Idle")
        .iter()
        .map(|&t| {
            let world = horse.pose("Idle", t);
            head_verts
                .iter()
                .map(|&v| horse.skin(&world, v).y)
                .fold(f32::MAX, f32::min)
        })
        .fold(f32::MAX, f32::min);
    assert!(
        lowest_muzzle < 0.15,
        "grazing brings the muzzle to {lowest_muzzle} m"
    );

    let bird = load(&procgen::bird_glb());
    for side in ["Left", "Right"] {
        assert!(
            max_swing(&bird, "Flap", &format!("{side}WingInner")) > 35.0,
            "a full wing stroke"
        );
        assert!(
            max_swing(&bird, "Flap", &format!("{side}WingOuter")) > 15.0,
            "the wing bends at the elbow"
        );
        assert!(
            max_swing(&bird, "Flap", &format!("{side}WingTip")) > 15.0,
            "the wing bends at the wrist"
        );
        assert!(
            max_swing(&bird, "Glide", &format!("{side}WingInner")) < 15.0,
            "gliding wings stay spread"
        );
    }
}
