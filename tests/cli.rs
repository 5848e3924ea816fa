//! The headless commands, run as a user runs them.

mod common;

use std::process::Command;

fn stampede(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_stampede"))
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .expect("the stampede binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn inspect_a_real_model() {
    let path = model_or_skip!("QuaterniusDeer.gltf");
    let (ok, out, err) = stampede(&["inspect", path.to_str().unwrap()]);
    assert!(ok, "{err}");
    for needle in [
        "vertices:      4278",
        "joints:        46",
        "primitives:    7",
        "'Gallop'",
        "'Walk'",
        "clips:         13",
        "LOD chain (poses strategy",
        "level 0:   2098 triangles (100.0%)",
        "level 1:",
        "nearest-frame error per clip:",
    ] {
        assert!(out.contains(needle), "missing {needle:?} in\n{out}");
    }
}

#[test]
fn bake_writes_the_export() {
    let path = model_or_skip!("Fox.glb");
    let dir = std::env::temp_dir().join(format!("stampede-cli-bake-{}", std::process::id()));
    let (ok, out, err) = stampede(&[
        "bake",
        path.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
        "--max-width",
        "256",
        "--clip",
        "Walk",
        "--precision",
        "f32",
    ]);
    assert!(ok, "{err}");
    assert!(
        out.contains("7 rows per frame") && out.contains("'Walk'"),
        "{out}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("vat.json")).unwrap()).unwrap();
    assert_eq!(json["clips"].as_array().unwrap().len(), 1);
    assert_eq!(json["precision"], "f32");
    // How another engine draws the previous frame's pose (motion vectors).
    for key in ["previous_pose", "crossfade", "velocity", "time_jump"] {
        assert!(
            json["motion"][key].as_str().is_some_and(|t| t.len() > 40),
            "motion.{key}"
        );
    }
    assert!(dir.join("positions.exr").is_file() && dir.join("normals.exr").is_file());
    // The LOD chain: levels that tile lod_indices.bin, the first the Fox's
    // own 576 triangles, the rest fewer, with errors that never decrease.
    let lod = &json["lod"];
    assert_eq!(lod["indices"], "lod_indices.bin");
    let levels = lod["levels"].as_array().unwrap();
    assert!(levels.len() >= 2, "{lod}");
    assert_eq!(levels[0]["first_index"], 0);
    assert_eq!(levels[0]["triangles"], 576);
    let mut next = 0;
    for w in levels.windows(2) {
        assert!(
            w[1]["triangles"].as_u64() < w[0]["triangles"].as_u64(),
            "{lod}"
        );
        assert!(w[1]["error"].as_f64() >= w[0]["error"].as_f64(), "{lod}");
    }
    for l in levels {
        assert_eq!(l["first_index"].as_u64().unwrap(), next);
        assert_eq!(l["index_count"], l["triangles"].as_u64().unwrap() * 3);
        next += l["index_count"].as_u64().unwrap();
    }
    let bin = std::fs::read(dir.join("lod_indices.bin")).unwrap();
    assert_eq!(bin.len() as u64, next * 4);
    let indices: Vec<u32> = bin
        .chunks(4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert!(indices.iter().all(|&i| i < 1728));
    let model = stampede::Model::load(&path).unwrap();
    assert_eq!(&indices[..model.indices.len()], model.indices.as_slice());
    assert_eq!(lod["nearest_frame_error"].as_array().unwrap().len(), 1);
    assert!(out.contains("LOD chain"), "{out}");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn bake_packed_writes_a_png_and_reports_the_normal_mean() {
    let path = model_or_skip!("Fox.glb");
    let dir = std::env::temp_dir().join(format!("stampede-cli-packed-{}", std::process::id()));
    let (ok, out, err) = stampede(&[
        "bake",
        path.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
        "--precision",
        "packed",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("(packed)") && out.contains("° mean"), "{out}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("vat.json")).unwrap()).unwrap();
    assert_eq!(json["precision"], "packed");
    assert!(
        json["error"]["normal_quantization_mean_degrees"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    assert!(dir.join("packed.png").is_file() && !dir.join("positions.exr").exists());
    std::fs::remove_dir_all(&dir).ok();

    let (ok, _, err) = stampede(&[
        "bake",
        "horse",
        "--out",
        dir.to_str().unwrap(),
        "--precision",
        "f12",
    ]);
    assert!(!ok && err.contains("f16, f32 or packed"), "{err}");
    assert!(!dir.exists(), "nothing is written for a bad precision");
}

#[test]
fn bad_files_fail_with_a_message_not_a_panic() {
    let dir = std::env::temp_dir().join(format!("stampede-cli-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("broken.glb");
    std::fs::write(&bad, b"glTF\x02\x00\x00\x00garbage").unwrap();
    for args in [
        vec!["inspect", bad.to_str().unwrap()],
        vec![
            "bake",
            bad.to_str().unwrap(),
            "--out",
            dir.to_str().unwrap(),
        ],
        vec!["inspect", "/no/such/model.glb"],
    ] {
        let (ok, _, err) = stampede(&args);
        assert!(!ok, "{args:?} must fail");
        assert!(err.starts_with("error: "), "{err}");
        assert!(err.contains(".glb"), "the message names the file: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    std::fs::remove_dir_all(dir).ok();
}

/// The viewer on a machine with no display stops with a plain sentence
/// saying so and how to get a picture anyway, not winit's message with a
/// path into its source.
#[test]
fn the_viewer_without_a_display_says_how_to_get_a_picture() {
    let out = Command::new(env!("CARGO_BIN_EXE_stampede"))
        .args(["--count", "1"])
        .env("RUST_LOG", "warn")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET")
        .output()
        .expect("the stampede binary runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    for needle in ["no display", "--headless --screenshot", "xvfb-run"] {
        assert!(err.contains(needle), "missing {needle:?} in\n{err}");
    }
    assert!(!err.contains(".cargo"), "no source path:\n{err}");
}

/// Anti-aliasing flags a picture cannot have are refused with the reason:
/// motion blur needs TAA, an unknown mode names the known ones.
#[test]
fn anti_aliasing_flags_say_what_they_need() {
    let (ok, _, err) = stampede(&[
        "--headless",
        "--screenshot",
        "/nonexistent/x.png",
        "--motion-blur",
    ]);
    assert!(!ok);
    assert!(err.contains("--motion-blur needs --aa taa"), "{err}");
    let (ok, _, err) = stampede(&[
        "--headless",
        "--screenshot",
        "/nonexistent/x.png",
        "--aa",
        "fxaa",
    ]);
    assert!(!ok);
    assert!(err.contains("msaa, taa or off"), "{err}");
}

/// A scene's models are inspected together: each one's report, a table of
/// their bakes and levels with the totals; a corrupt one among them is
/// named (and fails the command) while the others are still shown.
#[test]
fn inspect_several_models_and_one_corrupt() {
    let deer = model_or_skip!("QuaterniusDeer.gltf");
    let dir = std::env::temp_dir().join(format!("stampede-cli-scene-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("broken.glb");
    std::fs::write(&bad, b"glTF\x02\x00\x00\x00garbage").unwrap();
    let (ok, out, err) = stampede(&["inspect", "horse", "bird", deer.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(out.contains("scene of 3 models"), "{out}");
    let row = |name: &str| {
        out.lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("no row for {name} in\n{out}"))
            .split_whitespace()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    // Each row's vertices and clips are that model's own, in the order given.
    let (horse, bird, deer_row, total) = (
        row("horse"),
        row("bird"),
        row("QuaterniusDeer"),
        row("total"),
    );
    assert_eq!(deer_row[1], "4278");
    assert_eq!(deer_row[3], "13");
    let vertices: u64 = [&horse, &bird, &deer_row]
        .iter()
        .map(|r| r[1].parse::<u64>().unwrap())
        .sum();
    assert_eq!(total[1], vertices.to_string(), "{out}");
    assert!(out.find("scene of 3").unwrap() > out.rfind("LOD chain").unwrap());

    let (ok, out, err) = stampede(&["inspect", "horse", bad.to_str().unwrap(), "bird"]);
    assert!(!ok, "a corrupt model fails the command");
    assert!(
        err.contains("broken.glb") && err.contains("not a valid glTF"),
        "{err}"
    );
    assert!(err.contains("1 of 3 models"), "{err}");
    assert!(
        out.contains("scene of 2 models"),
        "the others are still shown:\n{out}"
    );
    assert!(!err.contains("panicked"), "{err}");
    std::fs::remove_dir_all(dir).ok();
}

/// `--model MODEL:COUNT`: one model with its count draws; a scene of
/// several draws headless (a corrupt one named, the others drawn; the
/// window's scene is in tests/window.rs); a bad count or a model listed
/// twice is named.
#[test]
fn model_counts_on_the_command_line() {
    let dir = std::env::temp_dir().join(format!("stampede-cli-count-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("three.png");
    let shot = |name: &str, model: &[&str]| {
        let path = dir.join(name);
        let mut args = vec![
            "--headless",
            "--size",
            "64x40",
            "--shadows",
            "off",
            "--screenshot",
        ];
        args.push(path.to_str().unwrap());
        args.extend(model);
        let (ok, _, err) = stampede(&args);
        assert!(ok, "{model:?}: {err}");
        std::fs::read(&path).unwrap()
    };
    let suffix = shot("three.png", &["--model", "horse:3"]);
    assert_eq!(
        suffix,
        shot("count.png", &["--model", "horse", "--count", "3"])
    );
    assert_ne!(
        suffix,
        shot("default.png", &["--model", "horse"]),
        "the count was ignored"
    );
    // A scene of several models: drawn headless, one corrupt model named
    // while the others are drawn (the command then fails).
    let bad = dir.join("broken.glb");
    std::fs::write(&bad, b"glTF\x02\x00\x00\x00garbage").unwrap();
    let scene_png = dir.join("scene.png");
    let shot_scene = |models: &[&str]| {
        let mut args = vec!["--headless", "--size", "96x54", "--screenshot"];
        args.push(scene_png.to_str().unwrap());
        for m in models {
            args.extend(["--model", m]);
        }
        stampede(&args)
    };
    let (ok, _, err) = shot_scene(&["horse:5", "bird:4"]);
    assert!(ok, "{err}");
    assert!(err.contains("horse ×5") && err.contains("bird ×4"), "{err}");
    assert!(scene_png.is_file());
    let broken = format!("{}:3", bad.display());
    let (ok, _, err) = shot_scene(&["horse:5", &broken]);
    assert!(!ok, "a corrupt model fails the command");
    assert!(
        err.contains("broken.glb") && err.contains("the other models are drawn"),
        "{err}"
    );
    for (args, needle) in [
        (vec!["--model", "horse:many"], "whole number"),
        (
            vec!["--model", "horse:5", "--model", "horse:6"],
            "listed twice",
        ),
        (
            vec!["--model", "horse:5", "--count", "9"],
            "--count 9 is not used",
        ),
    ] {
        let mut full = vec!["--headless", "--screenshot", png.to_str().unwrap()];
        full.extend(args.iter().copied());
        let (ok, _, err) = stampede(&full);
        assert!(!ok, "{args:?} must fail");
        assert!(
            err.starts_with("error: ") && err.contains(needle),
            "{args:?}: {err}"
        );
    }
    std::fs::remove_dir_all(dir).ok();
}

/// Occlusion culling's flags say when they cannot do what they ask: with
/// the cull pass off, on the GL backend (which cannot read the depth in a
/// compute shader), the pyramid's view without occlusion culling, and a
/// pyramid mip past the last; the picture is still drawn.
#[test]
fn occlusion_flags_say_when_they_do_nothing() {
    let dir = std::env::temp_dir().join(format!("stampede-cli-occl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("shot.png");
    let base = [
        "--headless",
        "--size",
        "64x36",
        "--count",
        "20",
        "--screenshot",
    ];
    let run = |backend: Option<&str>, extra: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_stampede"));
        cmd.args(base).arg(&png).args(extra).env("RUST_LOG", "warn");
        match backend {
            Some(b) => cmd.env("WGPU_BACKEND", b),
            None => cmd.env_remove("WGPU_BACKEND"),
        };
        let out = cmd.output().expect("the stampede binary runs");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    for (extra, needle) in [
        (
            &["--occlusion", "on", "--culling", "off", "--lod", "off"][..],
            "occlusion culling is off: it runs in the cull pass",
        ),
        (&["--pyramid-mip", "2"][..], "add --occlusion on"),
        (
            &["--occlusion", "on", "--pyramid-mip", "40"][..],
            "the pyramid of a 64×36 picture has mips 0 to 6; showing 6",
        ),
    ] {
        let (ok, err) = run(None, extra);
        assert!(ok, "{extra:?}: {err}");
        assert!(err.contains(needle), "{extra:?}: {err}");
    }
    let (ok, err) = run(None, &["--occlusion", "on"]);
    assert!(ok && !err.contains("occlusion culling is off"), "{err}");
    let (ok, err) = run(Some("gl"), &["--occlusion", "on"]);
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    if !ok && !in_ci && err.contains("no GPU adapter found") {
        eprintln!("skipping the GL case: no GL adapter here ({err})");
    } else {
        assert!(ok, "GL: {err}");
        assert!(
            err.contains("occlusion culling is off: the GL backend"),
            "GL: {err}"
        );
    }
    std::fs::remove_dir_all(dir).ok();
}

/// `--clip` in a scene: one name for every model that has it (the others
/// keep their default), or one per model in `--model` order; names match
/// regardless of case; a wrong count or a clip no model has is refused.
#[test]
fn clip_in_a_scene_is_one_for_all_or_one_per_model() {
    let dir = std::env::temp_dir().join(format!("stampede-scene-clip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let shot = |clip: &str| -> Vec<u8> {
        let out = dir.join(format!("{}.png", clip.replace(',', "_")));
        let (ok, _, err) = stampede(&[
            "--model",
            "horse:4",
            "--model",
            "bird:4",
            "--behaviour",
            "off",
            "--clip",
            clip,
            "--headless",
            "--screenshot",
            out.to_str().unwrap(),
            "--size",
            "96x54",
        ]);
        assert!(ok, "--clip {clip}: {err}");
        std::fs::read(out).unwrap()
    };
    let walk_glide = shot("walk,glide");
    assert_eq!(
        walk_glide,
        shot("Walk,Glide"),
        "names match regardless of case"
    );
    assert_ne!(
        walk_glide,
        shot("gallop,glide"),
        "each model plays its own clip"
    );
    // One name for all: the bird has no walk and keeps its default, Flap.
    assert_eq!(shot("walk"), shot("walk,flap"));

    let (ok, _, err) = stampede(&[
        "--model",
        "horse:4",
        "--model",
        "bird:4",
        "--clip",
        "a,b,c",
        "--headless",
        "--screenshot",
        dir.join("x.png").to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("3 clips for 2 models"), "{err}");
    let (ok, _, err) = stampede(&[
        "--model",
        "horse:4",
        "--model",
        "bird:4",
        "--clip",
        "trot",
        "--headless",
        "--screenshot",
        dir.join("x.png").to_str().unwrap(),
    ]);
    assert!(
        !ok && err.contains("no model of the scene has this clip") && err.contains("Flap, Glide"),
        "{err}"
    );
}
