//! `stampede bake` exports the far field's impostor atlas: read back the
//! way another engine would (the PNGs and `vat.json` alone: the `impostor`
//! section's layout, projection and encodings, the `lod` section's level
//! and `lod_indices.bin`), every cell checked holds the model as an
//! independent CPU rasterization of its CPU-skinned pose at that cell's
//! direction and that frame's clip time sees it (silhouette, depth and
//! normal). Without a GPU `--impostors auto` warns and leaves
//! the section out; `on` fails; `off` writes none.

mod gpu_common;
mod raster_common;

use glam::Vec3;
use raster_common::{nearest_at_centres, rasterize};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stampede-impostor-{tag}-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    dir
}

fn bake(model: &str, dir: &Path, extra: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stampede"));
    cmd.args(["bake", model, "--out"]).arg(dir).args(extra);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("stampede runs")
}

/// An 8-bit RGBA PNG: (width, height, texels, sRGB tagged, gamma).
fn read_png8(path: &Path) -> (u32, u32, Vec<[u8; 4]>, bool, Option<f32>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(path).expect("the PNG opens"),
    ));
    let mut reader = decoder.read_info().expect("a PNG");
    let srgb = reader.info().srgb.is_some();
    let gamma = reader.info().gama_chunk.map(|g| g.into_value());
    let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut buf).expect("one frame");
    assert_eq!(info.bit_depth, png::BitDepth::Eight, "{}", path.display());
    assert_eq!(info.color_type, png::ColorType::Rgba, "{}", path.display());
    let texels = buf[..info.buffer_size()]
        .chunks_exact(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect();
    (info.width, info.height, texels, srgb, gamma)
}

fn f(v: &Value) -> f32 {
    v.as_f64().expect("a number") as f32
}

fn vec3(v: &Value) -> Vec3 {
    Vec3::new(f(&v[0]), f(&v[1]), f(&v[2]))
}

/// The levels' triangles from `lod_indices.bin` as `vat.json` describes it.
fn level_indices(dir: &Path, json: &Value, level: usize) -> Vec<u32> {
    let lod = &json["lod"];
    assert_eq!(lod["index_format"], "u32le");
    let bytes = std::fs::read(dir.join(lod["indices"].as_str().expect("a file"))).expect("reads");
    let all: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let l = &lod["levels"][level];
    let first = l["first_index"].as_u64().expect("first") as usize;
    let count = l["index_count"].as_u64().expect("count") as usize;
    all[first..first + count].to_vec()
}

#[test]
fn the_exported_atlas_holds_the_cpu_skinned_model_as_vat_json_describes_it() {
    if gpu_common::gpu_or_skip("export_impostor").is_none() {
        return;
    }
    for (name, flies) in [("horse", false), ("bird", true)] {
        let dir = temp_dir(name);
        let out = bake(name, &dir, &["--impostors", "on"], &[]);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("impostor atlas:"), "{stdout}");
        let json: Value =
            serde_json::from_slice(&std::fs::read(dir.join("vat.json")).expect("vat.json"))
                .expect("JSON");
        let im = &json["impostor"];
        let (lw, lh) = (
            im["layer_width"].as_u64().unwrap() as u32,
            im["layer_height"].as_u64().unwrap() as u32,
        );
        let layers = im["layers"].as_u64().unwrap() as u32;
        let (cell, yaws) = (
            im["cell"].as_u64().unwrap() as u32,
            im["yaws"].as_u64().unwrap() as u32,
        );
        let elevations: Vec<f32> = im["elevations_degrees"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| f(e).to_radians())
            .collect();
        assert_eq!(
            elevations.len() == 7,
            flies,
            "{name}: a flyer is seen from below too"
        );
        assert_eq!((lw, lh), (yaws * cell, elevations.len() as u32 * cell));
        let (centre, radius, extent) = (vec3(&im["centre"]), f(&im["radius"]), f(&im["extent"]));

        let (w, h, albedo, srgb, _) = read_png8(&dir.join(im["albedo"].as_str().unwrap()));
        assert_eq!(
            (w, h),
            (lw, lh * layers),
            "{name}: layers stacked top to bottom"
        );
        assert!(srgb, "{name}: the albedo is tagged sRGB");
        let (w2, h2, normal_depth, srgb2, gamma) =
            read_png8(&dir.join(im["normal_depth"].as_str().unwrap()));
        assert_eq!((w2, h2), (w, h));
        assert!(
            !srgb2 && gamma.is_some_and(|g| (g - 1.0).abs() < 1e-3),
            "{name}: linear"
        );

        exported_bounds_hold_the_covered_texels(name, im, &albedo, layers);

        // The CPU side: the model as Stampede's importer reads it, skinned
        // on the CPU at each frame's time, drawn with the atlas's level.
        let model = stampede::assets::load_model(name).expect("the model loads");
        let level = im["mesh_level"].as_u64().unwrap() as usize;
        let indices = level_indices(&dir, &json, level);
        // Faces seen from behind are culled unless a material is
        // double-sided (as glTF says and the GPU does).
        let cull_back = !model.materials.iter().any(|m| m.double_sided);
        let (mut both, mut either, mut depth_err, mut depth_n) = (0u32, 0u32, 0.0f64, 0u32);
        let (mut facing, mut normals, mut cells, mut angle) = (0u32, 0u32, 0u32, 0.0f64);
        for clip in im["clips"].as_array().unwrap() {
            let source = model
                .clips
                .iter()
                .position(|c| c.name == clip["name"].as_str().unwrap())
                .expect("the clip is the model's");
            let frames = clip["frames"].as_u64().unwrap() as usize;
            for k in [0, frames / 2] {
                let t = f(&clip["times"][k]);
                let layer = clip["first_layer"].as_u64().unwrap() as u32 + k as u32;
                let pose = model.sample_pose(Some(source), t);
                let (positions, vertex_normals) = stampede::skin::skin(&model, &pose);
                let triangles: Vec<[Vec3; 3]> = indices
                    .chunks_exact(3)
                    .map(|t| [0, 1, 2].map(|i| positions[t[i] as usize]))
                    .collect();
                let corner_normals: Vec<[Vec3; 3]> = indices
                    .chunks_exact(3)
                    .map(|t| [0, 1, 2].map(|i| vertex_normals[t[i] as usize]))
                    .collect();
                for (row, &e) in elevations.iter().enumerate() {
                    for column in (0..yaws).step_by(4) {
                        let a = std::f32::consts::TAU * column as f32 / yaws as f32;
                        let d = Vec3::new(a.sin() * e.cos(), e.sin(), a.cos() * e.cos());
                        let right = Vec3::new(a.cos(), 0.0, -a.sin());
                        let up = d.cross(right);
                        let project = |p: Vec3| {
                            let q = p - centre;
                            Vec3::new(
                                q.dot(right) / extent,
                                q.dot(up) / extent,
                                (radius - q.dot(d)) / (2.0 * radius),
                            )
                        };
                        let cpu = rasterize(&triangles, project, cell, cull_back);
                        let nearest = nearest_at_centres(&triangles, project, cell, cull_back);
                        cells += 1;
                        for y in 0..cell {
                            for x in 0..cell {
                                let at = ((layer * lh + row as u32 * cell + y) * lw
                                    + column * cell
                                    + x) as usize;
                                let coverage = albedo[at][3];
                                let (share, z) = cpu[(y * cell + x) as usize];
                                let (gpu, want) = (coverage >= 128, share >= 0.5);
                                either += (gpu || want) as u32;
                                both += (gpu && want) as u32;
                                if coverage < 250 || share < 1.0 {
                                    continue;
                                }
                                let c = coverage as f32;
                                let nd = normal_depth[at];
                                if let Some(z) = z {
                                    depth_err += (nd[3] as f32 / c - z).abs() as f64;
                                    depth_n += 1;
                                }
                                let n = Vec3::new(nd[0] as f32, nd[1] as f32, nd[2] as f32) / c
                                    * 2.0
                                    - 1.0;
                                // The CPU normal of the nearest surface
                                // there, turned to the viewer where a
                                // face is seen from behind (double-sided).
                                let Some((i, w, back)) = nearest[(y * cell + x) as usize] else {
                                    continue;
                                };
                                let [n0, n1, n2] = corner_normals[i];
                                let want = (n0 * w[0] + n1 * w[1] + n2 * w[2]).normalize_or_zero();
                                let want = if back { -want } else { want };
                                normals += 1;
                                let cos = n.normalize_or_zero().dot(want);
                                angle += cos.clamp(-1.0, 1.0).acos().to_degrees() as f64;
                                facing += (cos > 0.9) as u32;
                            }
                        }
                    }
                }
            }
        }
        let iou = both as f32 / either.max(1) as f32;
        let depth = depth_err / depth_n.max(1) as f64;
        let facing = facing as f32 / normals.max(1) as f32;
        eprintln!(
            "{name}: {cells} exported cells against the CPU raster: IoU {iou:.3}, mean depth difference {depth:.4} of the diameter, normals {:.1}° from the CPU's on average, {:.1}% within 26°",
            angle / normals.max(1) as f64,
            facing * 100.0
        );
        assert!(iou >= 0.95, "{name}: IoU {iou}");
        assert!(depth <= 0.01, "{name}: depth {depth}");
        let angle = angle / normals.max(1) as f64;
        assert!(
            angle <= 10.0 && facing >= 0.9,
            "{name}: normals {angle}° off on average, {facing} within 26°"
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}

/// `cell_bounds` are, cell by cell, the texels that the albedo PNG's
/// coverage (A > 0) reaches in any layer, found as another engine would
/// from `vat.json`'s description; and they cut the quads (a cell tighter
/// than whole).
fn exported_bounds_hold_the_covered_texels(
    name: &str,
    im: &Value,
    albedo: &[[u8; 4]],
    layers: u32,
) {
    let u = |v: &Value| v.as_u64().expect("a count") as u32;
    let (lw, lh, cell, yaws) = (
        u(&im["layer_width"]),
        u(&im["layer_height"]),
        u(&im["cell"]),
        u(&im["yaws"]),
    );
    let rows = lh / cell;
    let mut want = vec![[cell, cell, 0, 0]; (rows * yaws) as usize];
    for layer in 0..layers {
        for y in 0..lh {
            for x in 0..lw {
                if albedo[((layer * lh + y) * lw + x) as usize][3] == 0 {
                    continue;
                }
                let b = &mut want[((y / cell) * yaws + x / cell) as usize];
                let (cx, cy) = (x % cell, y % cell);
                *b = [
                    b[0].min(cx),
                    b[1].min(cy),
                    b[2].max(cx + 1),
                    b[3].max(cy + 1),
                ];
            }
        }
    }
    let got: Vec<[u32; 4]> = im["cell_bounds"]
        .as_array()
        .expect("cell_bounds")
        .iter()
        .map(|b| [0, 1, 2, 3].map(|k| u(&b[k])))
        .collect();
    assert_eq!(got.len(), want.len(), "{name}: a bound per cell");
    for (c, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "{name}: cell {c}'s bounds against the PNG's coverage");
    }
    let cut = got.iter().filter(|b| **b != [0, 0, cell, cell]).count();
    eprintln!("{name}: {cut} of {} cells' bounds cut the quad", got.len());
    assert!(cut > 0, "{name}: every cell is whole");
}

#[test]
fn without_a_gpu_auto_warns_on_fails_and_off_writes_no_atlas() {
    let none = [
        ("WGPU_BACKEND", "vulkan"),
        ("VK_ICD_FILENAMES", "/nonexistent"),
    ];
    let dir = temp_dir("auto");
    let out = bake("horse", &dir, &[], &none);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("impostor atlas") && stderr.contains("--impostors off"),
        "{stderr}"
    );
    let json = std::fs::read_to_string(dir.join("vat.json")).expect("vat.json");
    assert!(
        !json.contains("\"impostor\""),
        "no section without an atlas"
    );
    assert!(!dir.join("impostor_albedo.png").exists());

    let out = bake("horse", &temp_dir("on"), &["--impostors", "on"], &none);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("the impostor atlas needs a GPU adapter"),
        "{stderr}"
    );

    let off = temp_dir("off");
    let out = bake("horse", &off, &["--impostors", "off"], &[]);
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stderr).contains("impostor"));
    assert!(!off.join("impostor_albedo.png").exists());
    for d in [dir, off] {
        std::fs::remove_dir_all(d).ok();
    }
}
