//! Several models' VATs in one texture array (`vat::VatSet`): every texel
//! of every frame of every clip of every model is found, through the set's
//! table, where that model's own VAT has it; the plan respects the device's
//! limits and refuses what cannot share one array.

mod common;

use stampede::vat::{self, BakeOptions, Precision, Vat, VatSet};

fn bake(name: &str, precision: Precision) -> Vat {
    bake_narrow(name, precision, vat::DEFAULT_MAX_WIDTH)
}

/// A bake whose rows are at most `max_width` texels (several rows a frame).
fn bake_narrow(name: &str, precision: Precision, max_width: u32) -> Vat {
    let model = stampede::assets::load_model(name).expect(name);
    let options = BakeOptions {
        precision,
        fps: 15.0,
        max_width,
        ..BakeOptions::default()
    };
    vat::bake(&model, &options).expect("bake")
}

/// Every texel of every model, read through the set, equals the model's own.
fn check_every_texel(set: &VatSet, vats: &[&Vat]) {
    let (positions, normals) = set.combine(vats);
    assert_eq!(positions.len(), set.texel_count());
    let mut checked = 0usize;
    for (m, vat) in vats.iter().enumerate() {
        for (c, clip) in vat.clips.iter().enumerate() {
            for f in 0..clip.frame_count {
                for v in 0..vat.layout.vertex_count {
                    let own = vat.layout.texel_index(clip, f, v);
                    let there = set.texel_index(m, c, f, v);
                    assert_eq!(
                        positions.get(there),
                        vat.positions.get(own),
                        "model {m} clip {c} frame {f} vertex {v}"
                    );
                    if !vat.normals.is_empty() {
                        assert_eq!(normals.get(there), vat.normals.get(own));
                    }
                    checked += 1;
                }
            }
        }
    }
    // Nothing overlaps: the texels the models use are as many as they have.
    let used: usize = vats
        .iter()
        .map(|v| {
            v.clips
                .iter()
                .map(|c| c.frame_count as usize)
                .sum::<usize>()
                * v.layout.vertex_count as usize
        })
        .sum();
    assert_eq!(checked, used);
    assert!((set.efficiency() - used as f64 / set.texel_count() as f64).abs() < 1e-9);
}

#[test]
fn three_models_share_one_array_texel_for_texel() {
    let deer = model_or_skip!("QuaterniusDeer.gltf");
    let vats = [
        bake("horse", Precision::F16),
        bake("bird", Precision::F16),
        bake(deer.to_str().unwrap(), Precision::F16),
    ];
    let named: Vec<(&str, &Vat)> = ["horse", "bird", "deer"].into_iter().zip(&vats).collect();
    let refs: Vec<&Vat> = vats.iter().collect();
    // Different widths, clip counts and vertex counts.
    assert!(vats[0].layout.width != vats[1].layout.width);
    assert!(vats[2].clips.len() > vats[0].clips.len());

    let set = VatSet::plan(&named, 8192, 256).expect("fits");
    assert_eq!(
        set.width,
        vats.iter().map(|v| v.layout.width).max().unwrap()
    );
    assert_eq!(set.layers, 1);
    assert_eq!(set.models[1].first_clip as usize, vats[0].clips.len());
    assert_eq!(
        set.clips.len(),
        vats.iter().map(|v| v.clips.len()).sum::<usize>()
    );
    check_every_texel(&set, &refs);

    // A small device and narrow bakes (several rows a frame): the clips
    // spill into further layers, never split.
    // The horse wraps at 256 texels in an array as wide as the bird (766).
    let narrow: Vec<Vat> = [
        ("horse", 256),
        ("bird", 8192),
        (deer.to_str().unwrap(), 512),
    ]
    .into_iter()
    .map(|(n, w)| bake_narrow(n, Precision::F16, w))
    .collect();
    let tallest = narrow
        .iter()
        .flat_map(|v| {
            v.clips
                .iter()
                .map(|c| c.frame_count * v.layout.rows_per_frame)
        })
        .max()
        .unwrap();
    let named_narrow: Vec<(&str, &Vat)> =
        ["horse", "bird", "deer"].into_iter().zip(&narrow).collect();
    let small = VatSet::plan(&named_narrow, tallest.max(766), 256).expect("fits in layers");
    assert!(small.layers > 1, "{small:?}");
    assert!(narrow[0].layout.rows_per_frame > 1 && small.width > narrow[0].layout.width);
    for c in &small.clips {
        assert!(c.first_row + c.rows <= small.height);
    }
    check_every_texel(&small, &narrow.iter().collect::<Vec<_>>());

    // Each model's clips as placed keep their timing and take the set's rows.
    let placed = set.placed_clips(2, &vats[2]);
    assert_eq!(placed.len(), vats[2].clips.len());
    for (p, own) in placed.iter().zip(&vats[2].clips) {
        assert_eq!(
            (p.frame_count, p.duration, p.looping),
            (own.frame_count, own.duration, own.looping)
        );
    }
    println!(
        "horse + bird + deer: {}×{}×{} texels, {:.1} MiB per texture, {:.0} % of texels used",
        set.width,
        set.height,
        set.layers,
        set.texture_bytes() as f64 / 1048576.0,
        set.efficiency() * 100.0
    );
}

#[test]
fn packed_bakes_share_an_array_and_limits_are_said() {
    let vats = [
        bake("horse", Precision::Packed),
        bake("bird", Precision::Packed),
    ];
    let named: Vec<(&str, &Vat)> = ["horse", "bird"].into_iter().zip(&vats).collect();
    let set = VatSet::plan(&named, 8192, 256).expect("fits");
    check_every_texel(&set, &vats.iter().collect::<Vec<_>>());

    // Too few layers: said, naming the scene; a model wider than the
    // device's side: said, naming it.
    let err = VatSet::plan(&named, 8192, 0).unwrap_err().to_string();
    assert!(
        err.contains("the scene of 2 models") && err.contains("layers"),
        "{err}"
    );
    let err = VatSet::plan(&named, vats[0].layout.width - 1, 256)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("horse:"), "{err}");

    let f16 = bake("bird", Precision::F16);
    let mixed = VatSet::plan(&[("horse", &vats[0]), ("bird", &f16)], 8192, 256).unwrap_err();
    let message = mixed.to_string();
    assert!(
        message.contains("bird") && message.contains("f16") && message.contains("packed"),
        "{message}"
    );
    assert!(VatSet::plan(&[], 8192, 256).is_err());
}
