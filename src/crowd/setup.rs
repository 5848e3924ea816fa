//! From a `--model` choice to a loaded model, its bake and how its crowd moves.

use super::Motion;
use crate::Model;
use crate::impostor::{AtlasLayout, ImpostorOptions};
use crate::lod::{self, LodChain, LodOptions};
use crate::vat::{self, BakeOptions, Precision, Vat};
use std::path::PathBuf;
use std::sync::Arc;

/// Why a model could not be prepared.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("could not load the model: {0}")]
    Import(#[from] crate::ImportError),
    #[error("could not bake the VAT: {0}")]
    Bake(#[from] vat::VatError),
    #[error("{model}: no clip named '{clip}' (the model has: {available})")]
    NoSuchClip {
        model: String,
        clip: String,
        available: String,
    },
}

/// Which model the viewer shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelChoice {
    Horse,
    Bird,
    File(PathBuf),
    /// A file's bytes without a path: a model dropped on a browser page.
    Dropped {
        name: String,
        bytes: Arc<[u8]>,
    },
}

impl ModelChoice {
    pub fn parse(s: &str) -> Self {
        match s {
            "horse" => Self::Horse,
            "bird" => Self::Bird,
            path => Self::File(PathBuf::from(path)),
        }
    }

    pub fn label(&self) -> String {
        match self {
            Self::Horse => "horse".into(),
            Self::Bird => "bird".into(),
            Self::File(p) => p.display().to_string(),
            Self::Dropped { name, .. } => name.clone(),
        }
    }

    /// Built-in models come from the bytes embedded in the binary.
    pub fn load(&self) -> Result<Model, SetupError> {
        match self {
            Self::Dropped { name, bytes } => Ok(Model::from_slice(bytes, name)?),
            _ => Ok(crate::assets::load_model(&self.label())?),
        }
    }
}

/// A model ready to draw.
#[derive(Clone)]
pub struct Loaded {
    pub choice: ModelChoice,
    pub model: Model,
    /// Shared with the renderers that need it again later (a scene's
    /// impostor atlases, drawn when a frame first wants them).
    pub vat: Arc<Vat>,
    pub motion: Motion,
    /// Each clip's ground speed, model units per second of clip time.
    pub ground_speeds: Vec<f32>,
    /// The clip all instances start with (`None` = each their own).
    pub clip: Option<u32>,
    /// The mesh levels, built once with the default options when the
    /// model is loaded and shared by every renderer made from it.
    pub lod: Arc<LodChain>,
    /// How the far field's impostor atlas is laid out (the GPU draws it
    /// once per device).
    pub impostor: Arc<AtlasLayout>,
}

/// A ground speed from the clip's name and the model's size: the fallback
/// for clips whose feet never touch the ground (nothing to measure).
pub fn estimate_ground_speed(vat: &Vat, clip: usize) -> f32 {
    let name = vat
        .clips
        .get(clip)
        .map(|c| c.name.to_lowercase())
        .unwrap_or_default();
    let extent = vat.bounds.max - vat.bounds.min;
    let length = extent.x.max(extent.z).max(1e-3);
    if name.contains("run") || name.contains("gallop") {
        length * 2.4
    } else if name.contains("trot") {
        length * 1.4
    } else if name.contains("walk") {
        length * 0.7
    } else if name.contains("fly") || name.contains("flap") || name.contains("glide") {
        length * 3.0
    } else {
        0.0
    }
}

/// Bird cruising speed (m/s) for the flock's circles (flight has no feet on
/// the ground to measure).
const BIRD_FLIGHT_SPEED: f32 = 6.0;

/// A clip's ground speed, measured from the clip itself: the speed at which
/// its planted feet stay planted (`gait::measure`). A clip with no ground
/// contact at all falls back to the name-based estimate; the bird flies at
/// its cruising speed.
pub fn ground_speed(choice: &ModelChoice, model: &Model, vat: &Vat, clip: usize) -> f32 {
    if *choice == ModelChoice::Bird {
        return BIRD_FLIGHT_SPEED;
    }
    let Some(source) = vat.clips.get(clip).and_then(|c| c.source) else {
        return 0.0;
    };
    let measured = crate::gait::measure(model, source);
    if measured.contacts == 0 {
        estimate_ground_speed(vat, clip)
    } else {
        measured.speed
    }
}

/// Whether a model walks or flies (`--motion`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum MotionChoice {
    /// On the ground: the herd (or the ring track, or standing).
    Ground,
    /// In the air, with the flock.
    Air,
    /// The bird flies; another model flies when it has a clip named like
    /// fly, flap, glide or soar; the rest walk.
    #[default]
    Auto,
}

impl MotionChoice {
    /// The motion for `choice` whose VAT has these clips.
    pub fn resolve(self, choice: &ModelChoice, clips: &[vat::VatClip]) -> Motion {
        let flies = match self {
            Self::Ground => false,
            Self::Air => true,
            Self::Auto => *choice == ModelChoice::Bird || super::anim::bird_clips(clips).is_some(),
        };
        if flies { Motion::Flock } else { Motion::Track }
    }
}

/// A flyer's cruising speed from its size: three body lengths a second.
fn flight_speed(vat: &Vat) -> f32 {
    let extent = vat.bounds.max - vat.bounds.min;
    extent.x.max(extent.z).max(1e-3) * 3.0
}

/// Loads and bakes a model for the viewer (its motion decided by
/// [`MotionChoice::Auto`]).
pub fn load(
    choice: &ModelChoice,
    fps: f32,
    precision: Precision,
    clip: Option<&str>,
) -> Result<Loaded, SetupError> {
    load_with(choice, fps, precision, clip, MotionChoice::Auto)
}

/// [`load`] with the motion chosen.
pub fn load_with(
    choice: &ModelChoice,
    fps: f32,
    precision: Precision,
    clip: Option<&str>,
    motion: MotionChoice,
) -> Result<Loaded, SetupError> {
    let model = choice.load()?;
    let options = BakeOptions {
        fps,
        precision,
        ..BakeOptions::default()
    };
    let vat = vat::bake(&model, &options)?;
    let clip = match clip {
        Some("mixed") => None,
        Some(name) => Some(vat.clip_index(name).ok_or_else(|| {
            SetupError::NoSuchClip {
                model: model.name(),
                clip: name.into(),
                available: vat
                    .clips
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            }
        })? as u32),
        None => Some(default_clip(&vat)),
    };
    let mut motion = motion.resolve(choice, &vat.clips);
    let ground_speeds: Vec<f32> = (0..vat.clips.len())
        .map(|c| match motion {
            // Flight has no feet on the ground to measure: the bird's
            // cruising speed, or a name-based estimate for another flyer.
            Motion::Flock if *choice == ModelChoice::Bird => BIRD_FLIGHT_SPEED,
            Motion::Flock => flight_speed(&vat),
            _ => ground_speed(choice, &model, &vat, c),
        })
        .collect();
    if motion == Motion::Track && ground_speeds.iter().all(|&s| s == 0.0) {
        motion = Motion::Stand;
    }
    let lod = Arc::new(lod::build(&model, &vat, &LodOptions::default()));
    let impostor = Arc::new(impostor_layout(&vat, motion).with_mesh(&lod));
    Ok(Loaded {
        lod,
        impostor,
        choice: choice.clone(),
        model,
        vat: Arc::new(vat),
        motion,
        ground_speeds,
        clip,
    })
}

/// The clip a crowd shows first: a run or gallop when there is one.
pub fn default_clip(vat: &Vat) -> u32 {
    let find = |word: &str| {
        vat.clips
            .iter()
            .position(|c| c.name.to_lowercase().contains(word))
    };
    find("gallop")
        .or_else(|| find("run"))
        .or_else(|| find("fly"))
        .or_else(|| find("walk"))
        .unwrap_or(0) as u32
}

/// The impostor atlas's layout for a bake drawn with `motion`: seen from
/// above and around for a model on the ground, from every side for a flyer.
pub fn impostor_layout(vat: &Vat, motion: Motion) -> AtlasLayout {
    let (centre, radius) = vat.pose_sphere();
    AtlasLayout::plan(
        vat,
        centre,
        radius,
        motion == Motion::Flock,
        &ImpostorOptions::default(),
    )
}
