//! `mesh.glb`, the mesh every export carries: read back by our importer it
//! is the bake's vertex stream; its `TEXCOORD_1` addresses each vertex's
//! texel in every frame; a copy whose vertices and triangles are shuffled
//! (as an engine's importer may) still animates through the lookup; and a
//! flat-shaded model keeps one normal per face through import, bake and
//! export.

mod common;
mod export_common;

use export_common::read_stream;

use glam::{Vec2, Vec3};
use stampede::Model;
use stampede::formats::{self, rest_pose};
use stampede::skin;
use stampede::vat::{self, BakeOptions, Precision, Vat};
use std::path::PathBuf;

/// The models a test runs on, by name: `horse` and `bird` are built in,
/// the others come from the shared models (Fox and CesiumMan carry
/// textures, the deer seven primitives with vertex colours).
fn models(names: &[&str]) -> Vec<Model> {
    let mut out = Vec::new();
    for name in names {
        match *name {
            "horse" | "bird" => out.push(stampede::assets::load_model(name).expect("built in")),
            file => {
                if let Some(path) = common::shared_model(file) {
                    out.push(Model::load(path).expect("shared model"));
                }
            }
        }
    }
    out
}

const EVERY: &[&str] = &[
    "horse",
    "bird",
    "Fox.glb",
    "CesiumMan.glb",
    "QuaterniusDeer.gltf",
];

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stampede-mesh-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Options that keep the debug-build bakes of five models quick (a low
/// rate; two of the deer's thirteen clips): the stream and the lookup do
/// not depend on them.
fn quick(model: &Model) -> BakeOptions {
    let clips = if model.clip_index("Gallop").is_some() && model.clips.len() > 4 {
        vec!["Walk".into(), "Gallop".into()]
    } else {
        Vec::new()
    };
    BakeOptions {
        fps: 10.0,
        clips,
        ..BakeOptions::default()
    }
}

fn bake(model: &Model, precision: Precision) -> Vat {
    vat::bake(
        model,
        &BakeOptions {
            precision,
            max_width: 512,
            ..quick(model)
        },
    )
    .expect("bake")
}

#[test]
fn mesh_glb_read_back_is_the_bakes_vertex_stream_in_the_rest_pose() {
    for model in models(EVERY) {
        let vat = bake(&model, Precision::F16);
        let dir = temp_dir(&model.name());
        let (path, section) = formats::write_mesh(&model, &vat.layout, &dir).expect("mesh.glb");
        assert_eq!(section.pose, "rest");
        let back = Model::load(&path).expect("our importer reads mesh.glb");
        let (rest_p, rest_n) = rest_pose(&model);
        let name = model.name();
        assert_eq!(
            back.vertex_count(),
            vat.layout.vertex_count as usize,
            "{name}"
        );
        assert_eq!(back.positions, rest_p, "{name}: positions");
        for (a, b) in back.normals.iter().zip(&rest_n) {
            assert!(a.distance(*b) < 1e-6, "{name}: normal {a} vs {b}");
        }
        assert_eq!(back.indices, model.indices, "{name}: triangles");
        assert_eq!(back.has_uv, model.has_uv, "{name}");
        if model.has_uv {
            assert_eq!(back.uvs, model.uvs, "{name}: TEXCOORD_0");
        }
        for (a, b) in back.colors.iter().zip(&model.colors) {
            assert!(
                (*a - *b).abs().max_element() < 1e-6,
                "{name}: colour {a} vs {b}"
            );
        }
        let ranges = |m: &Model| -> Vec<(u32, u32, String)> {
            m.primitives
                .iter()
                .map(|p| {
                    (
                        p.first_vertex,
                        p.vertex_count,
                        m.materials[p.material].name.clone(),
                    )
                })
                .collect()
        };
        assert_eq!(
            ranges(&back),
            ranges(&model),
            "{name}: primitives and materials"
        );
        assert_eq!(back.images.len(), model.images.len(), "{name}: textures");
        for (a, b) in back.images.iter().zip(&model.images) {
            assert!(a.rgba8 == b.rgba8, "{name}: a texture changed");
        }
        assert!(
            back.clips.is_empty() && back.stats.skins == 0,
            "{name}: no skin, no clips"
        );
        std::fs::remove_dir_all(dir).ok();
    }
}

/// The texel `(layer, x, row)` a lookup UV names for frame `f` of a clip,
/// by docs/formats.md's formula.
fn texel_of(uv: Vec2, vat: &Vat, clip: &vat::VatClip, f: u32) -> usize {
    let l = &vat.layout;
    let x = (uv.x * l.width as f32).floor() as usize;
    let row = (uv.y * l.height as f32).floor() as usize
        + (clip.first_row + f * l.rows_per_frame) as usize;
    clip.layer as usize * l.layer_texels() + row * l.width as usize + x
}

#[test]
fn the_lookup_addresses_every_vertexs_texel_in_every_frame() {
    for model in models(&["horse", "Fox.glb"]) {
        // Narrow, so vertices wrap over rows, and only as tall as the
        // longest clip, so the clips spill over layers.
        let narrow = BakeOptions {
            max_width: 100,
            ..quick(&model)
        };
        let wide = vat::bake(&model, &narrow).expect("bake");
        let tallest = wide
            .clips
            .iter()
            .map(|c| c.frame_count * wide.layout.rows_per_frame)
            .max();
        let vat = vat::bake(
            &model,
            &BakeOptions {
                max_height: tallest.unwrap_or(1),
                ..narrow
            },
        )
        .expect("bake");
        assert!(vat.clips.len() < 2 || vat.layout.layers > 1);
        let dir = temp_dir(&format!("lookup-{}", model.name()));
        let (path, _) = formats::write_mesh(&model, &vat.layout, &dir).expect("mesh.glb");
        let s = read_stream(&path);
        for (v, (uv, id)) in s.lookup.iter().zip(&s.ids).enumerate() {
            assert_eq!(*id, v as f32, "_VERTEX_ID");
            for clip in &vat.clips {
                for f in 0..clip.frame_count {
                    assert_eq!(
                        texel_of(*uv, &vat, clip, f),
                        vat.layout.texel_index(clip, f, v as u32),
                        "{}: vertex {v}, clip {}, frame {f}",
                        model.name(),
                        clip.name
                    );
                }
            }
        }
        std::fs::remove_dir_all(dir).ok();
    }
}

#[test]
fn a_shuffled_copy_still_animates_through_the_lookup() {
    for model in models(&["bird", "Fox.glb", "CesiumMan.glb"]) {
        let vat = bake(&model, Precision::F16);
        let dir = temp_dir(&format!("shuffle-{}", model.name()));
        let (path, _) = formats::write_mesh(&model, &vat.layout, &dir).expect("mesh.glb");
        let s = read_stream(&path);
        // An importer's reorder: vertex j of the copy is vertex perm[j].
        let n = s.positions.len();
        let mut perm: Vec<usize> = (0..n).collect();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for i in (1..n).rev() {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            perm.swap(i, (state >> 33) as usize % (i + 1));
        }
        let mut inverse = vec![0u32; n];
        for (j, &v) in perm.iter().enumerate() {
            inverse[v] = j as u32;
        }
        let lookup: Vec<Vec2> = perm.iter().map(|&v| s.lookup[v]).collect();
        let mut triangles: Vec<[u32; 3]> = s
            .indices
            .chunks_exact(3)
            .map(|t| {
                [
                    inverse[t[0] as usize],
                    inverse[t[1] as usize],
                    inverse[t[2] as usize],
                ]
            })
            .collect();
        triangles.reverse();
        assert!(perm.iter().enumerate().filter(|(j, v)| j != *v).count() > n / 2);
        let tolerance = vat.report.quantization + 1e-5 * vat.report.diagonal;
        for clip in &vat.clips {
            for f in [0, clip.frame_count / 2, clip.frame_count - 1] {
                let (exact, _) =
                    skin::skin(&model, &model.sample_pose(clip.source, clip.frame_time(f)));
                let exact_frame = if clip.looping && f == clip.segments() {
                    skin::skin(&model, &model.sample_pose(clip.source, 0.0)).0
                } else {
                    exact
                };
                // Each triangle of the copy, animated through its lookup,
                // is the original triangle skinned on the CPU.
                for (t, tri) in triangles.iter().enumerate() {
                    let original = &s.indices[(triangles.len() - 1 - t) * 3..][..3];
                    for (corner, &j) in tri.iter().enumerate() {
                        let animated = vat.position(texel_of(lookup[j as usize], &vat, clip, f));
                        let want = exact_frame[original[corner] as usize];
                        assert!(
                            animated.distance(want) <= tolerance,
                            "{}: clip {} frame {f}: {animated} vs {want}",
                            model.name(),
                            clip.name
                        );
                    }
                }
            }
        }
        std::fs::remove_dir_all(dir).ok();
    }
}

/// A cube of 24 vertices, each face with its own normal (flat shading),
/// turning about a tilted axis: a rigid mesh on an animated node.
fn flat_cube() -> Vec<u8> {
    let mut g = common::MiniGltf::new();
    let faces: [(Vec3, Vec3, Vec3); 6] = [
        (Vec3::X, Vec3::Y, Vec3::Z),
        (-Vec3::X, Vec3::Z, Vec3::Y),
        (Vec3::Y, Vec3::Z, Vec3::X),
        (-Vec3::Y, Vec3::X, Vec3::Z),
        (Vec3::Z, Vec3::X, Vec3::Y),
        (-Vec3::Z, Vec3::Y, Vec3::X),
    ];
    let (mut p, mut nrm, mut idx) = (Vec::new(), Vec::new(), Vec::new());
    for (k, (n, a, b)) in faces.iter().enumerate() {
        for (s, t) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            p.extend((*n + *a * s + *b * t).to_array());
            nrm.extend(n.to_array());
        }
        let base = (k * 4) as u16;
        idx.extend([base, base + 1, base + 2, base, base + 2, base + 3]);
    }
    let pos = g.floats(&p, "VEC3");
    let normals = g.floats(&nrm, "VEC3");
    let indices = g.indices(&idx);
    let times = g.floats(&[0.0, 0.5, 1.0], "SCALAR");
    let axis = Vec3::new(1.0, 2.0, 0.5).normalize();
    let q: Vec<f32> = [0.0f32, 1.5, 3.0]
        .iter()
        .flat_map(|a| glam::Quat::from_axis_angle(axis, *a).to_array())
        .collect();
    let rotations = g.floats(&q, "VEC4");
    g.to_json(serde_json::json!({
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos, "NORMAL": normals}, "indices": indices}]}],
        "animations": [{"name": "turn", "samplers": [{"input": times, "output": rotations}],
                        "channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}}]}],
    }))
}

/// Every face's four normals agree and stand square to the face; the six
/// faces' normals are six directions.
fn assert_flat(positions: &[Vec3], normals: &[Vec3], what: &str) {
    assert_eq!(
        positions.len(),
        24,
        "{what}: the cube's 24 vertices were welded"
    );
    for face in 0..6 {
        let r = face * 4..face * 4 + 4;
        let n = normals[face * 4];
        for v in r.clone() {
            assert!(
                normals[v].distance(n) < 1e-5,
                "{what}: face {face} has smooth normals"
            );
        }
        let [a, b, c] = [
            positions[r.start],
            positions[r.start + 1],
            positions[r.start + 2],
        ];
        let geometric = (b - a).cross(c - a).normalize();
        assert!(
            geometric.dot(n) > 0.9999,
            "{what}: face {face} normal {n} vs {geometric}"
        );
    }
    for a in 0..6 {
        for b in a + 1..6 {
            assert!(
                normals[a * 4].dot(normals[b * 4]) < 0.01,
                "{what}: faces {a} and {b} share a normal"
            );
        }
    }
}

#[test]
fn a_flat_shaded_model_keeps_one_normal_per_face_through_import_bake_and_export() {
    let model = Model::from_slice(&flat_cube(), "flat-cube.gltf").expect("cube");
    assert_flat(&model.positions, &model.normals, "import");
    let vat = bake(&model, Precision::F32);
    let clip = &vat.clips[0];
    let mut turned = false;
    for f in 0..clip.frame_count {
        let texel = |v: u32| vat.layout.texel_index(clip, f, v);
        let p: Vec<Vec3> = (0..24).map(|v| vat.position(texel(v))).collect();
        let n: Vec<Vec3> = (0..24).map(|v| vat.normal(texel(v))).collect();
        assert_flat(&p, &n, &format!("bake frame {f}"));
        turned |= n[0].dot(Vec3::X) < 0.9;
    }
    assert!(
        turned,
        "the cube turns, so the normals are the skinned ones"
    );
    let dir = temp_dir("flat");
    let (path, _) = formats::write_mesh(&model, &vat.layout, &dir).expect("mesh.glb");
    let back = Model::load(&path).expect("mesh.glb");
    assert_flat(&back.positions, &back.normals, "mesh.glb");
    std::fs::remove_dir_all(dir).ok();
}
