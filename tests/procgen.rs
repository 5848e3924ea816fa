//! The procedural horse and bird: committed assets are current, the files
//! are valid glTF with sane skins and looping clips, and the gaits match the
//! documented ground speeds.
//!
//! Reads the files with the `gltf` crate directly, independent of the
//! project's importer.

use glam::{Mat4, Vec3};
use stampede::procgen::{self, HORSE_GALLOP_SPEED, HORSE_WALK_SPEED};

mod procgen_common;
use procgen_common::*;

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
