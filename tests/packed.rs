//! The packed precision: the texel's round-trip bounds, packed bakes against
//! direct CPU skinning, the error report, and the 16-bit PNG export.

mod common;

use glam::Vec3;
use stampede::vat::{self, BakeOptions, Precision, Vat, packed};
use stampede::{Aabb, Model, skin};

/// A small deterministic generator (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [a, b).
    fn range(&mut self, a: f32, b: f32) -> f32 {
        a + (b - a) * ((self.next() >> 40) as f32 / (1u64 << 24) as f32)
    }

    /// A uniformly distributed unit vector.
    fn unit(&mut self) -> Vec3 {
        loop {
            let v = Vec3::new(
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            );
            let l = v.length();
            if l > 1e-3 && l <= 1.0 {
                return v / l;
            }
        }
    }
}

/// The angle between two vectors, exact for small angles.
fn angle(a: Vec3, b: Vec3) -> f32 {
    a.cross(b).length().atan2(a.dot(b))
}

/// Half a quantization step per axis, plus the f32 rounding of the decode.
fn position_bound(bounds: &Aabb) -> Vec3 {
    let magnitude = bounds.min.abs().max(bounds.max.abs());
    packed::step(bounds) * 0.5 + magnitude * 2.0 * f32::EPSILON
}

/// The octahedral 8+8 bound, plus the f32 rounding of the decode.
const NORMAL_BOUND: f32 = packed::NORMAL_BOUND_RADIANS + 1e-5;

#[test]
fn positions_round_trip_within_half_a_step() {
    let mut rng = Rng(1);
    let mut worst = 0.0f32;
    for _ in 0..50 {
        // Model-like boxes: offsets up to twice the size, so f32 itself
        // resolves far finer than a 16-bit step.
        let size = Vec3::new(
            rng.range(0.01, 1e3),
            rng.range(1e-3, 2.0),
            rng.range(0.1, 50.0),
        );
        let min = size
            * Vec3::new(
                rng.range(-2.0, 1.0),
                rng.range(-2.0, 1.0),
                rng.range(-2.0, 1.0),
            );
        let bounds = Aabb {
            min,
            max: min + size,
        };
        let bound = position_bound(&bounds);
        let corners = [
            bounds.min,
            bounds.max,
            Vec3::new(min.x, bounds.max.y, min.z),
        ];
        let random = (0..2000).map(|_| {
            min + size
                * Vec3::new(
                    rng.range(0.0, 1.0),
                    rng.range(0.0, 1.0),
                    rng.range(0.0, 1.0),
                )
        });
        for p in corners.into_iter().chain(random.collect::<Vec<_>>()) {
            let texel = packed::encode(p, Vec3::Z, &bounds);
            let (q, _) = packed::decode(texel, &bounds);
            let err = (q - p).abs();
            assert!(err.cmple(bound).all(), "{p} -> {q}: {err} > {bound}");
            assert!(err.length() <= bound.length());
            worst = worst.max((err / packed::step(&bounds)).max_element());
        }
    }
    // Rounding, not truncation: the error reaches nearly but never passes half a step.
    assert!(worst > 0.45 && worst <= 0.51, "worst {worst} steps");
}

#[test]
fn normals_round_trip_within_the_octahedral_bound() {
    let s2 = std::f32::consts::FRAC_1_SQRT_2;
    let s3 = 1.0 / 3f32.sqrt();
    let mut special = Vec::new();
    for sign in [1.0, -1.0] {
        // Axes, the octahedron's vertices: stored exactly (exact ±z included).
        for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
            let n = axis * sign;
            assert_eq!(
                packed::decode_normal(packed::encode_normal(n)),
                n,
                "axis {n}"
            );
        }
        for (a, b) in [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)] {
            // Edges of the octahedron, the equator, the face centres, and
            // the folding seam just below the equator.
            special.push(Vec3::new(a * s2, b * s2, 0.0));
            special.push(Vec3::new(a * s2, 0.0, sign * s2));
            special.push(Vec3::new(0.0, b * s2, sign * s2));
            special.push(Vec3::new(a, b, sign) * s3);
            special.push(Vec3::new(a, b * 0.3, -1e-6).normalize());
            special.push(Vec3::new(a * 1e-6, b, sign * 1e-6).normalize());
        }
    }
    let mut rng = Rng(2);
    let random: Vec<Vec3> = (0..200_000).map(|_| rng.unit()).collect();
    let (mut worst, mut sum, mut lower) = (0.0f32, 0.0f64, 0);
    for n in special.iter().chain(&random) {
        let d = packed::decode_normal(packed::encode_normal(*n));
        assert!((d.length() - 1.0).abs() < 1e-6, "{d} is not unit");
        let a = angle(*n, d);
        assert!(a <= NORMAL_BOUND, "{n} -> {d}: {}°", a.to_degrees());
        if n.z < -0.01 {
            // The folded lower half comes back in the lower half.
            assert!(d.z < 0.0, "{n} -> {d}");
            lower += 1;
        }
        worst = worst.max(a);
        sum += f64::from(a);
    }
    assert!(lower > 90_000, "the -z hemisphere is exercised");
    let mean = sum / (special.len() + random.len()) as f64;
    eprintln!(
        "octahedral 8+8: worst {:.4}°, mean {:.4}° (bound {:.4}°)",
        worst.to_degrees(),
        mean.to_degrees(),
        packed::NORMAL_BOUND_RADIANS.to_degrees()
    );
    // Eight bits really are used: a 7-bit code would be twice as coarse.
    assert!(worst > 0.25 * packed::NORMAL_BOUND_RADIANS);
}

fn bake_packed(model: &Model) -> Vat {
    let options = BakeOptions {
        precision: Precision::Packed,
        ..BakeOptions::default()
    };
    vat::bake(model, &options).unwrap()
}

/// Exact skinning of stored frame `k` (a looping clip's last frame is its first).
fn exact_frame(model: &Model, vat: &Vat, ci: usize, k: u32) -> (Vec<Vec3>, Vec<Vec3>) {
    let clip = &vat.clips[ci];
    let k = if clip.looping && k == clip.segments() {
        0
    } else {
        k
    };
    skin::skin(model, &model.sample_pose(clip.source, clip.frame_time(k)))
}

/// Every frame of every clip decodes to CPU skinning within the bounds.
fn check_against_skinning(model: &Model) {
    let vat = bake_packed(model);
    assert_eq!(vat.precision, Precision::Packed);
    assert!(
        vat.normals.is_empty(),
        "a packed bake has no normal texture"
    );
    assert_eq!(vat.texture_bytes(), vat.layout.texel_count() * 8);
    assert_eq!(vat.total_bytes(), vat.texture_bytes());
    let bound = position_bound(&vat.bounds);
    for (ci, clip) in vat.clips.iter().enumerate() {
        for k in 0..clip.frame_count {
            let (p, n) = exact_frame(model, &vat, ci, k);
            for v in 0..vat.layout.vertex_count {
                let i = vat.layout.texel_index(clip, k, v);
                let (sp, sn) = (vat.position(i), vat.normal(i));
                let e = p[v as usize];
                assert!(
                    (sp - e).abs().cmple(bound).all(),
                    "{} clip {} frame {k} vertex {v}: {sp} vs {e}",
                    model.name(),
                    clip.name
                );
                let a = angle(sn, n[v as usize]);
                assert!(a <= NORMAL_BOUND, "normal {v}: {}°", a.to_degrees());
            }
        }
    }
    assert!(vat.report.quantization > 0.0);
    assert!(vat.report.quantization <= bound.length());
}

#[test]
fn packed_horse_frames_match_cpu_skinning_within_the_quantization() {
    check_against_skinning(&stampede::assets::load_model("horse").unwrap());
}

#[test]
fn packed_fox_frames_match_cpu_skinning_within_the_quantization() {
    let path = model_or_skip!("Fox.glb");
    check_against_skinning(&Model::load(path).unwrap());
}

/// The report's figures, recomputed here from the decoded texels.
fn check_report(model: &Model, precision: Precision) {
    let options = BakeOptions {
        precision,
        ..BakeOptions::default()
    };
    let vat = vat::bake(model, &options).unwrap();
    let (mut worst, mut worst_angle, mut sum, mut count) = (0.0f32, 0.0f32, 0.0f64, 0u64);
    for (ci, clip) in vat.clips.iter().enumerate() {
        for k in 0..clip.frame_count {
            let (p, n) = exact_frame(model, &vat, ci, k);
            for v in 0..vat.layout.vertex_count {
                let i = vat.layout.texel_index(clip, k, v);
                worst = worst.max(vat.position(i).distance(p[v as usize]));
                let a = angle(vat.normal(i), n[v as usize]);
                worst_angle = worst_angle.max(a);
                sum += f64::from(a);
                count += 1;
            }
        }
    }
    let r = &vat.report;
    let mean = (sum / count as f64).to_degrees() as f32;
    let what = format!("{} {}", model.name(), precision.name());
    assert!(worst > 0.0 && mean > 0.0, "{what}: nothing was rounded?");
    assert!(
        (r.quantization - worst).abs() <= 1e-6 * worst,
        "{what}: {r:?} vs {worst}"
    );
    assert!((r.quantization_relative - worst / r.diagonal).abs() <= 1e-6 * r.quantization_relative);
    let worst_deg = worst_angle.to_degrees();
    assert!(
        (r.normal_quantization_degrees - worst_deg).abs() <= 1e-4 * worst_deg,
        "{what}: {r:?}"
    );
    assert!(
        (r.normal_quantization_mean_degrees - mean).abs() <= 1e-4 * mean,
        "{what}: {r:?}"
    );
    assert!(r.normal_quantization_mean_degrees < r.normal_quantization_degrees);
}

#[test]
fn the_error_report_matches_a_recomputation() {
    let horse = stampede::assets::load_model("horse").unwrap();
    check_report(&horse, Precision::Packed);
    check_report(&horse, Precision::F16);
    let path = model_or_skip!("Fox.glb");
    let fox = Model::load(path).unwrap();
    check_report(&fox, Precision::Packed);
    check_report(&fox, Precision::F16);
}

/// A 16-bit RGBA PNG's samples as u16 (PNG stores them big-endian).
fn read_png16(path: &std::path::Path) -> (u32, u32, Vec<u16>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let info = reader.info();
    assert_eq!(info.color_type, png::ColorType::Rgba);
    assert_eq!(info.bit_depth, png::BitDepth::Sixteen);
    let (w, h) = (info.width, info.height);
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut buf).unwrap();
    let samples = buf[..frame.buffer_size()]
        .chunks(2)
        .map(|b| u16::from_be_bytes([b[0], b[1]]))
        .collect();
    (w, h, samples)
}

#[test]
fn export_writes_16_bit_pngs_that_read_back_bit_identical() {
    let path = model_or_skip!("Fox.glb");
    let model = Model::load(path).unwrap();
    let options = BakeOptions {
        precision: Precision::Packed,
        max_height: 110,
        ..BakeOptions::default()
    };
    let vat = vat::bake(&model, &options).unwrap();
    let layers = vat.layout.layers as usize;
    assert!(layers >= 2);
    let dir = std::env::temp_dir().join(format!("stampede-packed-{}", std::process::id()));
    let files = vat::export(&model, &vat, &dir).unwrap();
    assert_eq!(files.len(), layers + 1, "one PNG per layer and vat.json");
    let vat::Texels::Packed(texels) = &vat.positions else {
        panic!("a packed bake stores packed texels")
    };
    let names: Vec<String> = (0..layers).map(|l| format!("packed_{l}.png")).collect();
    for (l, name) in names.iter().enumerate() {
        let (w, h, samples) = read_png16(&dir.join(name));
        assert_eq!((w, h), (vat.layout.width, vat.layout.height));
        let layer = &texels[l * vat.layout.layer_texels()..][..vat.layout.layer_texels()];
        let expected: Vec<u16> = layer.iter().flatten().copied().collect();
        assert!(samples == expected, "layer {l} differs");
    }
    assert!(!dir.join("positions_0.exr").exists() && !dir.join("normals_0.exr").exists());

    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("vat.json")).unwrap()).unwrap();
    assert_eq!(json["precision"], "packed");
    assert_eq!(json["textures"]["packed"], serde_json::json!(names));
    assert!(
        json["textures"].get("positions").is_none() && json["textures"].get("normals").is_none()
    );
    let packing = &json["packing"];
    assert_eq!(packing["texel"], "rgba16uint");
    assert_eq!(packing["position"]["bits"], 16);
    assert_eq!(packing["normal"]["encoding"], "octahedral");
    assert_eq!(packing["normal"]["bits"], serde_json::json!([8, 8]));
    assert!(
        packing["normal"]["u_byte"]
            .as_str()
            .unwrap()
            .starts_with("low")
    );
    assert!(
        packing["normal"]["v_byte"]
            .as_str()
            .unwrap()
            .starts_with("high")
    );
    assert!(
        packing["normal"]["component"]
            .as_str()
            .unwrap()
            .contains("127")
    );
    // The bounds in the JSON decode the texels exactly as the bake does.
    let vec3 = |v: &serde_json::Value| {
        let a: Vec<f32> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap() as f32)
            .collect();
        Vec3::new(a[0], a[1], a[2])
    };
    let bounds = Aabb {
        min: vec3(&packing["position"]["min"]),
        max: vec3(&packing["position"]["max"]),
    };
    assert_eq!(bounds, vat.bounds);
    let i = vat.layout.texel_index(&vat.clips[1], 3, 100);
    assert_eq!(packed::decode(texels[i], &bounds).0, vat.position(i));
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn precision_parses_packed_and_rejects_junk() {
    assert_eq!("packed".parse::<Precision>(), Ok(Precision::Packed));
    assert_eq!("f16".parse::<Precision>(), Ok(Precision::F16));
    assert_eq!(Precision::Packed.name(), "packed");
    for junk in ["", "Packed", "f8", "packed16", "u16"] {
        let err = junk.parse::<Precision>().unwrap_err();
        assert!(err.contains("packed"), "{err}");
    }
}
