//! The settings a measurement runs with: the run's own, or a comparison's
//! baseline (`--compare-separate`, `--compare-culling`, `--compare-far-field`,
//! `--compare-occlusion`, `--compare-impostor-quads`, `--compare-splat`,
//! `--compare-aa`).

use crate::crowd::cull::CullSettings;
use crate::crowd::motion::Aa;
use crate::crowd::shadow::ShadowSettings;
use crate::render::passes::targets::TargetOptions;

/// The settings one measurement runs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// The run's own.
    Run,
    /// A scene's models, each drawn by its own renderer
    /// (`--compare-separate`), with the run's settings.
    Separate,
    /// Culling and LOD off (`--compare-culling`).
    Unculled,
    /// The far field off (`--compare-far-field`).
    FarFieldOff,
    /// Occlusion culling off (`--compare-occlusion`).
    OcclusionOff,
    /// The impostors' quads the spheres' squares
    /// (`--compare-impostor-quads`).
    SquareImpostors,
    /// The splat level off (`--compare-splat`).
    SplatOff,
    /// Every vertex computes its instance's state (`--compare-state`).
    StateComputed,
    /// Another anti-aliasing, with or without the velocity target
    /// (`--compare-aa`).
    AaBaseline(Aa, bool),
}

/// `--compare-aa`'s baselines: 4x MSAA, nothing, nothing but the velocity
/// target.
pub(super) const AA_BASELINES: [Mode; 3] = [
    Mode::AaBaseline(Aa::Msaa, false),
    Mode::AaBaseline(Aa::Off, false),
    Mode::AaBaseline(Aa::Off, true),
];

impl Mode {
    pub(super) fn cull(self, run: CullSettings) -> CullSettings {
        match self {
            Mode::Run | Mode::Separate | Mode::AaBaseline(..) => run,
            Mode::Unculled => CullSettings {
                culling: false,
                lod: false,
                ..run
            },
            Mode::FarFieldOff => run.without_far_field(),
            Mode::OcclusionOff => CullSettings {
                occlusion: false,
                ..run
            },
            Mode::SquareImpostors => CullSettings {
                tight_impostors: false,
                ..run
            },
            Mode::SplatOff => CullSettings {
                splats: false,
                ..run
            },
            Mode::StateComputed => CullSettings {
                resolved_state: false,
                ..run
            },
        }
    }

    pub(super) fn shadows(self, run: ShadowSettings) -> ShadowSettings {
        match self {
            Mode::FarFieldOff => run.without_far_field(),
            _ => run,
        }
    }

    pub(super) fn targets(self, run: TargetOptions) -> TargetOptions {
        match self {
            Mode::AaBaseline(aa, velocity) => TargetOptions {
                aa,
                velocity,
                ..run
            },
            _ => run,
        }
    }

    pub(super) fn suffix(self) -> &'static str {
        match self {
            Mode::Run => "",
            Mode::Separate => " (separate renderers)",
            Mode::Unculled => " (culling and LOD off)",
            Mode::FarFieldOff => " (far field off)",
            Mode::OcclusionOff => " (occlusion off)",
            Mode::SquareImpostors => " (square impostors)",
            Mode::SplatOff => " (splats off)",
            Mode::StateComputed => " (state computed per vertex)",
            Mode::AaBaseline(Aa::Msaa, _) => " (msaa)",
            Mode::AaBaseline(_, true) => " (velocity only)",
            Mode::AaBaseline(..) => " (no aa)",
        }
    }
}
