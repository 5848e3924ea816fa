//! The engine formats read back by decoders written here from the readers'
//! own shaders, not from Stampede's encoder: bevy_open_vat's
//! `openvat_common.wgsl` (and its `RemapInfo` clip table) for OpenVAT, and
//! SideFX Labs' `VAT_SoftBodyDeformation_SSG` Unity shader graph for
//! Houdini VAT 3. Every stored frame's positions and normals must come back
//! within the format's quantisation of CPU skinning, for the horse, the
//! bird, the Fox and CesiumMan. A model beyond a format's limits is refused
//! before anything is written.

mod common;
mod export_common;

use export_common::{Texture, read_exr, read_png16, read_stream};
use glam::{Vec2, Vec3, Vec4, Vec4Swizzles};
use stampede::Model;
use stampede::formats::{self, Format};
use stampede::skin;
use stampede::vat::{self, BakeOptions, Vat, VatClip};
use std::path::{Path, PathBuf};

fn models() -> Vec<Model> {
    let mut out = vec![
        stampede::assets::load_model("horse").expect("horse"),
        stampede::assets::load_model("bird").expect("bird"),
    ];
    for name in ["Fox.glb", "CesiumMan.glb"] {
        if let Some(path) = common::shared_model(name) {
            out.push(Model::load(path).expect("shared model"));
        }
    }
    out
}

/// The model, its bake and a folder holding the engine format.
fn export(model: &Model, format: Format) -> (Vat, PathBuf) {
    // A modest rate keeps the debug build quick; every frame is checked.
    let options = BakeOptions {
        fps: 10.0,
        ..BakeOptions::default()
    };
    let vat = vat::bake(model, &options).expect("bake");
    let dir = std::env::temp_dir().join(format!(
        "stampede-engines-{}-{format:?}-{}",
        model.name(),
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("dir");
    formats::write_engines(model, &vat, &[format], &dir).expect("the format");
    (vat, dir)
}

/// CPU skinning of stored frame `k` of a clip (a looping clip's last frame
/// is its first).
fn skinned(model: &Model, clip: &VatClip, k: u32) -> (Vec<Vec3>, Vec<Vec3>) {
    let t = if clip.looping && k == clip.segments() {
        0.0
    } else {
        clip.frame_time(k)
    };
    skin::skin(model, &model.sample_pose(clip.source, t))
}

fn angle(a: Vec3, b: Vec3) -> f32 {
    a.cross(b).length().atan2(a.dot(b))
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).expect("json")).expect("valid JSON")
}

fn vec3(v: &serde_json::Value) -> Vec3 {
    let c = |i: usize| v[i].as_f64().expect("a number") as f32;
    Vec3::new(c(0), c(1), c(2))
}

/// bevy_open_vat's decode: `apply_vat(frame_index, v_pos, uv_vat)`.
struct OpenVatReader {
    min: Vec3,
    max: Vec3,
    frames: u32,
    texture: Texture,
}

impl OpenVatReader {
    /// Position and normal of a vertex at a whole frame index.
    fn apply_vat(&self, frame_index: f32, v_pos: Vec3, uv_vat: Vec2) -> (Vec3, Vec3) {
        let frame_cnt = self.frames as f32;
        let current = (frame_index % frame_cnt).floor();
        let y_resolution = self.texture.height as f32;
        let uv = uv_vat + Vec2::new(0.0, current / y_resolution);
        let pos = self.texture.sample_top_down(uv).xyz();
        let range = self.max - self.min;
        let obj = self.min + pos * range;
        let final_pos = Vec3::new(obj.x, obj.z, -obj.y);
        let n = self.texture.sample_top_down(uv + Vec2::new(0.0, 0.5)).xyz() * 2.0 - 1.0;
        (v_pos + final_pos, Vec3::new(n.x, n.z, -n.y).normalize())
    }
}

#[test]
fn openvat_files_decode_to_cpu_skinning_through_bevy_open_vats_shader() {
    for model in models() {
        let (vat, dir) = export(&model, Format::Openvat);
        let name = model.name();
        let folder = dir.join("openvat");
        let info = json(&folder.join(format!("{name}-remap_info.json")));
        let remap = &info["os-remap"];
        let reader = OpenVatReader {
            min: vec3(&remap["Min"]),
            max: vec3(&remap["Max"]),
            frames: remap["Frames"].as_u64().expect("Frames") as u32,
            texture: read_png16(&folder.join(format!("{name}_vat.png"))),
        };
        assert!(reader.texture.width.is_power_of_two() && reader.texture.width <= 8192);
        let mesh = read_stream(&folder.join(format!("{name}.glb")));
        // Quantisation: half a 16-bit step per axis of the remap range.
        let step = (reader.max - reader.min) / 65535.0;
        let position_bound = 0.5 * step.length() + 1e-5 * vat.report.diagonal;
        let mut checked = 0;
        for clip in &vat.clips {
            let anim = &info["animations"][&clip.name];
            let start = anim["startFrame"].as_u64().expect("startFrame") as u32;
            let end = anim["endFrame"].as_u64().expect("endFrame") as u32;
            let rate = anim["framerate"].as_f64().expect("framerate") as f32;
            assert_eq!(anim["looping"].as_bool(), Some(clip.looping));
            // bevy_open_vat's clip length: (end - start) / framerate.
            let duration = (end - start) as f32 / rate;
            assert!(
                (duration - clip.duration).abs() < 1e-4,
                "{name} {}: {duration} s",
                clip.name
            );
            for k in 0..=(end - start) {
                let (want_p, want_n) = skinned(&model, clip, k);
                for v in 0..mesh.positions.len() {
                    let (p, n) =
                        reader.apply_vat((start + k) as f32, mesh.positions[v], mesh.lookup[v]);
                    assert!(
                        p.distance(want_p[v]) <= position_bound,
                        "{name} {} frame {k} vertex {v}: {p} vs {}",
                        clip.name,
                        want_p[v]
                    );
                    assert!(
                        angle(n, want_n[v]) < 1e-4,
                        "{name} {} frame {k} vertex {v}: normal {n} vs {}",
                        clip.name,
                        want_n[v]
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 0);
        eprintln!("{name}: OpenVAT {checked} vertex frames within {position_bound:.2e}");
        std::fs::remove_dir_all(dir).ok();
    }
}

/// SideFX Labs' soft-body decode (`VAT_SoftBodyDeformation_SSG`) in Unity,
/// on the mesh as a glTF importer for Unity gives it (x negated, V from
/// the bottom).
struct HoudiniReader {
    bound_min: Vec3,
    bound_max: Vec3,
    fps: f32,
    frame_count: f32,
    pos: Texture,
    rot: Texture,
}

fn frac(x: f32) -> f32 {
    x - x.floor()
}

impl HoudiniReader {
    /// The frame (from 1) auto playback shows at `time`.
    fn frame_at(&self, time: f32) -> f32 {
        let progress = frac(time * (self.fps / (self.frame_count - 0.01)));
        (progress * self.frame_count).floor() + 1.0
    }

    /// Position and normal (Unity's object space) of a vertex in `frame`.
    fn decode(&self, frame: f32, position: Vec3, uv1: Vec2) -> (Vec3, Vec3) {
        let max10 = self.bound_max * 10.0;
        let min10 = self.bound_min * 10.0;
        let hdr = frac(max10.z) >= 0.5;
        let u_scale = 1.0 - (min10.z.ceil() - min10.z);
        let v_scale = 1.0 - frac(-max10.x);
        let progress = ((frame - 1.0) % self.frame_count) / self.frame_count;
        let v = 1.0 - ((1.0 - uv1.y) * v_scale + progress * v_scale);
        let uv = Vec2::new(uv1.x * u_scale, v);
        // Unity's V grows upwards; the file's row 0 is the top.
        let top_down = Vec2::new(uv.x, 1.0 - uv.y);
        let raw = self.pos.sample_top_down(top_down).xyz();
        let offset = if hdr {
            raw
        } else {
            raw * (self.bound_max - self.bound_min) + self.bound_min
        };
        let q = self.rot.sample_top_down(top_down);
        let q = if hdr { q } else { (q - Vec4::splat(0.5)) * 2.0 };
        let (axis, w) = (q.xyz(), q.w);
        let up = Vec3::Y;
        let normal = (2.0 * axis.cross(w * up + axis.cross(up)) + up).normalize();
        (position + offset, normal)
    }
}

fn unity(v: Vec3) -> Vec3 {
    Vec3::new(-v.x, v.y, v.z)
}

#[test]
fn houdini_files_decode_to_cpu_skinning_through_sidefx_labs_soft_body_graph() {
    for model in models() {
        let (vat, dir) = export(&model, Format::Houdini);
        let name = model.name();
        let folder = dir.join("houdini");
        let mut checked = 0;
        for clip in &vat.clips {
            let stem = format!(
                "{name}_{}",
                clip.name
                    .replace(|c: char| !c.is_alphanumeric() && c != '-' && c != '_', "_")
            );
            let data = &json(&folder.join(format!("{stem}_data.json")))[0];
            let num = |k: &str| data[k].as_f64().unwrap_or_else(|| panic!("{k}")) as f32;
            let reader = HoudiniReader {
                bound_min: Vec3::new(num("Bound Min X"), num("Bound Min Y"), num("Bound Min Z")),
                bound_max: Vec3::new(num("Bound Max X"), num("Bound Max Y"), num("Bound Max Z")),
                fps: num("Houdini FPS"),
                frame_count: num("Frame Count"),
                pos: read_exr(&folder.join(format!("{stem}_pos.exr"))),
                rot: read_exr(&folder.join(format!("{stem}_rot.exr"))),
            };
            assert!(frac(reader.bound_max.z * 10.0) >= 0.5, "{stem}: HDR flag");
            // One of SideFX Labs' presets, which readers match exactly.
            assert_eq!(data["Axis System"], "Left-Handed Y-Up", "{stem}");
            let mesh = read_stream(&folder.join(format!("{stem}_mesh.glb")));
            let frames = reader.frame_count as u32;
            for f in 1..=frames {
                let k = (f - 1).min(clip.frame_count - 1);
                // Auto playback shows frame f a quarter frame after its time.
                if frames > 2 {
                    let time = clip.frame_time(k) + 0.25 / reader.fps;
                    assert_eq!(reader.frame_at(time), f as f32, "{stem}: time {time}");
                }
                let (want_p, want_n) = skinned(&model, clip, k);
                for v in 0..mesh.positions.len() {
                    let uv1 = Vec2::new(mesh.lookup[v].x, 1.0 - mesh.lookup[v].y);
                    let (p, n) = reader.decode(f as f32, unity(mesh.positions[v]), uv1);
                    let (p, n) = (unity(p), unity(n));
                    // Half floats: 11 significant bits of the offset.
                    let offset = want_p[v] - mesh.positions[v];
                    let bound = offset.length() * 2f32.powi(-11) * 1.8 + 1e-5 * vat.report.diagonal;
                    assert!(
                        p.distance(want_p[v]) <= bound,
                        "{stem} frame {f} vertex {v}: {p} vs {}",
                        want_p[v]
                    );
                    assert!(
                        angle(n, want_n[v]) < 0.1f32.to_radians(),
                        "{stem} frame {f} vertex {v}: normal {n} vs {}",
                        want_n[v]
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 0);
        eprintln!("{name}: Houdini {checked} vertex frames");
        std::fs::remove_dir_all(dir).ok();
    }
}

/// A three-vertex model with one clip of `seconds` (a slide along x).
fn long_triangle(seconds: f32) -> Vec<u8> {
    let mut g = common::MiniGltf::new();
    let pos = g.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], "VEC3");
    let idx = g.indices(&[0, 1, 2]);
    let times = g.floats(&[0.0, seconds], "SCALAR");
    let moves = g.floats(&[0.0, 0.0, 0.0, 5.0, 0.0, 0.0], "VEC3");
    g.to_json(serde_json::json!({
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos}, "indices": idx}]}],
        "animations": [{"name": "slide", "samplers": [{"input": times, "output": moves}],
                        "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]}],
    }))
}

fn bake_cli(model: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_stampede"))
        .arg("bake")
        .arg(model)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .expect("stampede runs")
}

fn staging_left(out: &Path) -> Vec<String> {
    std::fs::read_dir(out)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(".stampede-bake"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_model_beyond_a_formats_limits_is_refused_and_the_last_export_stays_whole() {
    let dir = std::env::temp_dir().join(format!("stampede-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    // 300 s at 30 fps: 9,001 frames, more than OpenVAT's tallest texture
    // (8,192 wide, at most twice as tall, half of it normals) and taller
    // than the 8,192 texels Houdini's Unity settings allow.
    let model = dir.join("long-clip.gltf");
    std::fs::write(&model, long_triangle(300.0)).expect("model");
    let out = dir.join("export");
    let ok = bake_cli(&model, &out, &["--max-height", "16384"]);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let before = std::fs::read(out.join("vat.json")).expect("a complete export");
    for (format, limit) in [("openvat", "8192"), ("houdini", "8192")] {
        let run = bake_cli(&model, &out, &["--max-height", "16384", "--format", format]);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(!run.status.success(), "{format}: the bake must fail");
        assert!(
            stderr.contains("long-clip.gltf"),
            "{format}: names the file: {stderr}"
        );
        assert!(
            stderr.contains(limit),
            "{format}: names the limit: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert_eq!(
            std::fs::read(out.join("vat.json")).ok(),
            Some(before.clone()),
            "{format}: the previous export is untouched"
        );
        assert!(
            !out.join(format).exists(),
            "{format}: no half-written folder"
        );
        assert!(staging_left(&out).is_empty());
    }
    // A failure while the files move in (a file where the format's folder
    // goes) leaves no vat.json: what is there does not read as complete.
    let small = dir.join("small.gltf");
    std::fs::write(&small, long_triangle(1.0)).expect("model");
    std::fs::write(out.join("openvat"), b"in the way").expect("a file");
    let run = bake_cli(&small, &out, &["--format", "openvat"]);
    assert!(!run.status.success());
    assert!(
        !out.join("vat.json").exists(),
        "an interrupted export has no vat.json"
    );
    assert!(staging_left(&out).is_empty());
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn format_lists_expand() {
    assert_eq!(Format::engines(&[Format::Stampede]), vec![]);
    assert_eq!(
        Format::engines(&[Format::All]),
        vec![Format::Openvat, Format::Houdini]
    );
    assert_eq!(
        Format::engines(&[Format::Houdini, Format::Openvat, Format::Houdini]),
        vec![Format::Openvat, Format::Houdini]
    );
}
