//! Every shared model imports, and the importer's figures match the numbers
//! in ../shared/models/README.md (computed there from the files by other tools).

mod common;

use stampede::Model;
use stampede::anim::{Interpolation, Path as ChannelPath};
use stampede::inspect::Inspection;

struct Expected {
    file: &'static str,
    vertices: usize,
    triangles: usize,
    joints: usize,
    primitives: usize,
    /// (name, end time) per clip, in file order; the README's durations are
    /// the max input time.
    clips: &'static [(&'static str, f32)],
}

const MODELS: &[Expected] = &[
    Expected {
        file: "Fox.glb",
        vertices: 1728,
        triangles: 576,
        joints: 24,
        primitives: 1,
        clips: &[("Survey", 3.417), ("Walk", 0.7083), ("Run", 1.158)],
    },
    Expected {
        file: "CesiumMan.glb",
        vertices: 3273,
        triangles: 4672,
        joints: 19,
        primitives: 1,
        clips: &[("clip 0", 2.0)],
    },
    Expected {
        file: "RiggedSimple.glb",
        vertices: 160,
        triangles: 188,
        joints: 2,
        primitives: 1,
        clips: &[("clip 0", 2.083)],
    },
    Expected {
        file: "SimpleSkin.gltf",
        vertices: 10,
        triangles: 8,
        joints: 2,
        primitives: 1,
        clips: &[("clip 0", 5.5)],
    },
    Expected {
        file: "AnimatedMorphCube.gltf",
        vertices: 24,
        triangles: 12,
        joints: 0,
        primitives: 1,
        clips: &[("Square", 4.2)],
    },
    Expected {
        file: "QuaterniusDeer.gltf",
        vertices: 4278,
        triangles: 2098,
        joints: 46,
        primitives: 7,
        clips: &[
            ("Attack_Headbutt", 0.8),
            ("Attack_Kick", 0.8),
            ("Death", 0.8333),
            ("Eating", 6.0),
            ("Gallop", 0.5333),
            ("Gallop_Jump", 1.4),
            ("Idle", 3.333),
            ("Idle_2", 3.333),
            ("Idle_Headlow", 3.333),
            ("Idle_HitReact_Left", 0.4667),
            ("Idle_HitReact_Right", 0.5333),
            ("Jump_toIdle", 1.533),
            ("Walk", 1.167),
        ],
    },
];

#[test]
fn every_shared_model_matches_its_readme_figures() {
    for e in MODELS {
        let path = model_or_skip!(e.file);
        let m = Model::load(&path).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(m.vertex_count(), e.vertices, "{}: vertices", e.file);
        assert_eq!(m.triangle_count(), e.triangles, "{}: triangles", e.file);
        assert_eq!(m.stats.joints, e.joints, "{}: joints", e.file);
        assert_eq!(m.primitives.len(), e.primitives, "{}: primitives", e.file);
        assert_eq!(m.clips.len(), e.clips.len(), "{}: clips", e.file);
        for (clip, (name, end)) in m.clips.iter().zip(e.clips) {
            assert_eq!(clip.name, *name, "{}", e.file);
            assert!(
                (clip.end - end).abs() < 1e-3,
                "{} '{name}': end {} vs README {end}",
                e.file,
                clip.end
            );
        }
        assert_eq!(
            m.stats.weights_renormalized, 0,
            "{}: README says every weight sums to 1",
            e.file
        );
        // Every palette index a vertex uses exists.
        assert!(
            m.joints
                .iter()
                .flatten()
                .all(|&j| (j as usize) < m.palette.len())
        );
        assert!(m.indices.iter().all(|&i| (i as usize) < m.vertex_count()));
    }
}

#[test]
fn clip_time_zero_is_the_first_key() {
    let path = model_or_skip!("CesiumMan.glb");
    let m = Model::load(path).unwrap();
    let clip = &m.clips[0];
    assert!(
        (clip.start - 0.0417).abs() < 1e-3,
        "CesiumMan starts at 0.0417 s, got {}",
        clip.start
    );
    assert!((clip.duration() - (2.0 - 0.041_666_6)).abs() < 1e-3);
    // Clip time 0 samples the first key, so it differs from the rest pose
    // only by what that key says, and equals sampling just after it.
    let a = m.sample_pose(Some(0), 0.0);
    let b = m.sample_pose(Some(0), -1.0);
    assert_eq!(
        a.palette, b.palette,
        "times before the first key clamp to it"
    );
}

#[test]
fn morph_cube_and_deer_details() {
    let cube = Model::load(model_or_skip!("AnimatedMorphCube.gltf")).unwrap();
    assert_eq!(cube.stats.morph_targets, 2);
    assert_eq!(cube.morphs.len(), 1);
    assert_eq!(cube.clips[0].paths(), vec![ChannelPath::Weights]);
    assert_eq!(cube.stats.skins, 0);
    // A rigid palette entry carries the node's transform (scale 100).
    assert_eq!(cube.palette.len(), 1);
    assert!(!cube.palette[0].skinned);

    let deer = Model::load(model_or_skip!("QuaterniusDeer.gltf")).unwrap();
    assert_eq!(deer.materials.len(), 7);
    assert_eq!(deer.clips[0].interpolations(), vec![Interpolation::Linear]);
    // COLOR_0 is present: our colours are the material factor × COLOR_0,
    // read here independently with the gltf crate.
    let (doc, buffers, _) = gltf::import(model_or_skip!("QuaterniusDeer.gltf")).unwrap();
    let mesh = doc.meshes().next().unwrap();
    let mut v = 0;
    for (prim, ours) in mesh.primitives().zip(&deer.primitives) {
        let reader = prim.reader(|b| Some(&buffers[b.index()]));
        let factor = glam::Vec4::from(prim.material().pbr_metallic_roughness().base_color_factor());
        let colors: Vec<[f32; 4]> = reader.read_colors(0).unwrap().into_rgba_f32().collect();
        assert_eq!(colors.len() as u32, ours.vertex_count);
        for c in colors {
            assert!(
                (deer.colors[v] - glam::Vec4::from(c) * factor)
                    .abs()
                    .max_element()
                    < 1e-6
            );
            v += 1;
        }
    }
}

#[test]
fn inspect_prints_the_figures() {
    let path = model_or_skip!("Fox.glb");
    let m = Model::load(path).unwrap();
    let text = Inspection(&m).to_string();
    for needle in [
        "vertices:      1728",
        "triangles:     576",
        "joints:        24",
        "'Survey'",
        "'Run'",
        "LINEAR",
        "rotation",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
}

/// Name, vertex range, minimum joints, and (clip, loops).
type Own = (
    &'static str,
    std::ops::RangeInclusive<usize>,
    usize,
    &'static [(&'static str, bool)],
);

/// The project's own models go through the same import path as any file and
/// meet what the viewer relies on.
#[test]
fn own_horse_and_bird_import_and_bake_cleanly() {
    use stampede::vat::{self, BakeOptions};
    let cases: [Own; 2] = [
        (
            "horse",
            1500..=3000,
            20,
            &[("Gallop", true), ("Walk", true), ("Idle", true)],
        ),
        ("bird", 500..=1500, 9, &[("Flap", true), ("Glide", true)]),
    ];
    for (name, vertices, min_joints, clips) in cases {
        let m = stampede::assets::load_model(name).unwrap();
        assert!(
            vertices.contains(&m.vertex_count()),
            "{name}: {} vertices",
            m.vertex_count()
        );
        assert!(
            m.stats.joints >= min_joints,
            "{name}: {} joints",
            m.stats.joints
        );
        assert!(m.warnings.is_empty(), "{name}: {:?}", m.warnings);
        // The file on disk and the embedded copy are the same model.
        let on_disk =
            Model::load(format!("{}/assets/{name}.glb", env!("CARGO_MANIFEST_DIR"))).unwrap();
        assert_eq!(on_disk.positions, m.positions);
        let vat = vat::bake(&m, &BakeOptions::default()).unwrap();
        for (clip, looping) in clips {
            let i = vat
                .clip_index(clip)
                .unwrap_or_else(|| panic!("{name}: no clip {clip}"));
            assert_eq!(vat.clips[i].looping, *looping, "{name} '{clip}' looping");
        }
        assert!(
            vat.report.interpolation_relative < 0.01,
            "{name}: interpolation error {} of the diagonal",
            vat.report.interpolation_relative
        );
        // Feet on the ground at rest: the lowest point is near y = 0.
        let rest = m.sample_pose(None, 0.0).skinned_bounds(&m);
        assert!(
            rest.min.y.abs() < 0.05,
            "{name}: lowest point {}",
            rest.min.y
        );
    }
}
