//! The numbers WGSL and Rust both use to lay out GPU buffers (constants,
//! not structs: the structs are in gpu_layout.rs): each WGSL constant in
//! the composed modules equals its Rust twin.

use stampede::render::TechniqueKind;
use stampede::render::util::shaders;
use wgpu::naga;

fn crowd_source() -> String {
    TechniqueKind::Skinning
        .crowd_module()
        .source()
        .expect("composes")
}

/// The value of WGSL constant `name` (a `u32` literal) in `source`.
fn wgsl_u32(source: &str, name: &str) -> u32 {
    let module = naga::front::wgsl::parse_str(source)
        .unwrap_or_else(|e| panic!("{}", e.emit_to_string(source)));
    let (_, constant) = module
        .constants
        .iter()
        .find(|(_, c)| c.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no WGSL constant {name}"));
    match module.global_expressions[constant.init] {
        naga::Expression::Literal(naga::Literal::U32(v)) => v,
        ref other => panic!("{name} is {other:?}, not a u32 literal"),
    }
}

/// Every variant of the cull pass's module.
const CULL_VARIANTS: [shaders::ModuleSpec; 6] = [
    shaders::CULL,
    shaders::CULL_UNIFORM,
    shaders::CULL_OCCLUSION,
    shaders::CULL_SPLAT,
    shaders::CULL_SPLAT_UNIFORM,
    shaders::CULL_OCCLUSION_SPLAT,
];

/// WGSL constant `name` equals `rust` in every module of `specs`.
fn assert_in_modules(specs: &[shaders::ModuleSpec], name: &str, rust: u32) {
    for spec in specs {
        let source = spec.source().expect("composes");
        assert_eq!(wgsl_u32(&source, name), rust, "{name} in {}", spec.name);
    }
}

/// The model table and the ground's rings hold as many models as a scene
/// may have.
#[test]
fn scene_model_bounds_match() {
    use stampede::crowd::scene::MAX_SCENE_MODELS;
    let max = MAX_SCENE_MODELS as u32;
    assert_eq!(wgsl_u32(&crowd_source(), "MAX_SCENE_MODELS"), max);
    let ground = shaders::GROUND.source().expect("composes");
    assert_eq!(wgsl_u32(&ground, "GROUND_TRACKS"), max);
}

/// The impostor's cell bounds are read a row of the texture at a time as
/// the Rust side lays them out.
#[test]
fn impostor_bounds_rows_match() {
    let source = shaders::IMPOSTOR.source().expect("composes");
    assert_eq!(
        wgsl_u32(&source, "BOUNDS_ROW"),
        stampede::render::passes::impostor::bounds::BOUNDS_ROW
    );
}

/// The herd's static buffer is read with the Rust side's sizes: the path's
/// sample count and the band slots that follow it.
#[test]
fn herd_static_data_sizes_match() {
    use stampede::crowd::herd::{BAND_MAX, PATH_SAMPLES};
    let source = crowd_source();
    assert_eq!(
        wgsl_u32(&source, "HERD_PATH_SAMPLES") as usize,
        PATH_SAMPLES
    );
    assert_eq!(wgsl_u32(&source, "HERD_BAND_MAX"), BAND_MAX);
}

/// Occlusion culling's state is laid out with the Rust side's numbers.
#[test]
fn occlusion_numbers_match() {
    use stampede::crowd::occlusion as o;
    let source = shaders::CULL_OCCLUSION.source().expect("composes");
    assert_eq!(wgsl_u32(&source, "SURVIVOR_WORDS"), o::SURVIVOR_WORDS);
    assert_eq!(wgsl_u32(&source, "TEST_TEXELS"), o::TEST_TEXELS);
    assert_eq!(wgsl_u32(&source, "SURVIVORS_HEADER"), o::SURVIVORS_HEADER);
    // The survivors' count and phase 2's three dispatch words follow the
    // occluded count, then a light view's dropped casters, then the
    // camera's splats, then the casters it listed (caster_list_numbers_match).
    assert_eq!(o::COUNTER_WORDS, 11);
    let dropped = stampede::crowd::cull::DROPPED_WORD;
    assert_eq!(wgsl_u32(&source, "DROPPED_WORD"), dropped);
    assert_eq!(dropped, 5);
    let splat = shaders::CULL_OCCLUSION_SPLAT.source().expect("composes");
    assert_eq!(
        wgsl_u32(&splat, "SPLAT_WORD"),
        stampede::crowd::cull::SPLAT_WORD
    );
    assert_eq!(stampede::crowd::cull::SPLAT_WORD, 6);
}

/// The casters the camera's pass lists for the shadow cascades: their
/// counter and dispatch after the splats' counter, the entries after every
/// counter, and as many cascades' boxes as the shadows have.
#[test]
fn caster_list_numbers_match() {
    use stampede::crowd::caster_list as c;
    assert_in_modules(&CULL_VARIANTS, "CASTER_WORD", c::CASTER_WORD);
    assert_in_modules(&CULL_VARIANTS, "CASTER_ENTRIES", c::CASTER_ENTRIES);
    assert_in_modules(&CULL_VARIANTS, "CASTER_VIEWS", c::CASTER_VIEWS as u32);
    assert_eq!(c::CASTER_WORD, stampede::crowd::cull::SPLAT_WORD + 1);
    assert_eq!(
        c::CASTER_ENTRIES as usize,
        stampede::crowd::occlusion::COUNTER_WORDS
    );
    assert_eq!(c::CASTER_VIEWS, stampede::crowd::shadow::MAX_CASCADES);
}

/// The cull pass's dispatch is sized by its workgroup, in every variant of
/// the pass.
#[test]
fn cull_workgroup_matches() {
    assert_in_modules(
        &CULL_VARIANTS,
        "CULL_GROUP",
        stampede::crowd::cull::CULL_GROUP,
    );
}

/// The splat planes are laid out with the Rust side's numbers, in the cull
/// pass that writes them and the pass that draws them.
#[test]
fn splat_numbers_match() {
    use stampede::crowd::splat as s;
    for spec in [
        shaders::CULL_SPLAT,
        shaders::SPLAT_RESOLVE,
        shaders::IMPOSTOR_BOUNDS,
    ] {
        let source = spec.source().expect("composes");
        assert_eq!(wgsl_u32(&source, "SPLAT_PLANES"), s::SPLAT_PLANES);
        assert_eq!(wgsl_u32(&source, "SPLAT_MODELS") as usize, s::SPLAT_MODELS);
        assert_eq!(wgsl_u32(&source, "SPLAT_DEPTH_MAX"), s::DEPTH_MAX);
    }
    assert_eq!(s::SPLAT_MODELS, stampede::crowd::scene::MAX_SCENE_MODELS);
}

/// The skin pass's state and level data are laid out with the Rust side's
/// numbers, in both compute-skinning techniques' modules.
#[test]
fn skin_pass_numbers_match() {
    use stampede::render::passes::techniques::compute_skinning as cs;
    for kind in [
        TechniqueKind::ComputeSkinning,
        TechniqueKind::ComputeBoneTexture,
    ] {
        let source = kind.crowd_module().source().expect("composes");
        for (name, rust) in [
            ("MAX_SKIN_LEVELS", cs::MAX_SKIN_LEVELS as u32),
            ("STATE_SLOTS", cs::STATE_SLOTS),
            ("STATE_COUNT", cs::STATE_COUNT),
            ("STATE_CAPACITY", cs::STATE_CAPACITY),
            ("STATE_BLEND", cs::STATE_BLEND),
            ("STATE_VERTICES", cs::STATE_VERTICES),
            ("STATE_MODEL_VERTICES", cs::STATE_MODEL_VERTICES),
            ("STATE_MODEL_LEVEL", cs::STATE_MODEL_LEVEL),
            ("STATE_HEADER", cs::STATE_HEADER),
            ("LEVELS_SPANS", cs::LEVELS_SPANS),
            ("LEVELS_HEADER", cs::LEVELS_HEADER),
        ] {
            assert_eq!(wgsl_u32(&source, name), rust, "{kind}: {name}");
        }
    }
    // The level spans fit between the spans' start and the lists.
    assert!(cs::LEVELS_SPANS as usize + 3 * cs::MAX_SKIN_LEVELS <= cs::LEVELS_HEADER as usize);
    // A level count of its own per level, then the slots, below the header.
    assert!(cs::MAX_SKIN_LEVELS as u32 <= cs::STATE_SLOTS && cs::STATE_BLEND < cs::STATE_HEADER);
}

/// The resolved state's size is the same where the cull pass writes it and
/// where the crowd and the impostors read it; its words round-trip.
#[test]
fn resolved_state_numbers_match() {
    use stampede::crowd::resolved as r;
    let writers_and_readers = [
        shaders::CULL,
        shaders::CULL_OCCLUSION_SPLAT,
        shaders::IMPOSTOR,
    ];
    assert_in_modules(&writers_and_readers, "STATE_WORDS", r::STATE_WORDS);
    let vat = TechniqueKind::Vat
        .crowd_module()
        .source()
        .expect("composes");
    assert_eq!(wgsl_u32(&vat, "STATE_WORDS"), r::STATE_WORDS);
    assert_eq!(r::PREVIOUS_STRIDE, 2 * r::STATE_WORDS);
}
