//! The settings a measurement runs with: the run's own, or a comparison's
//! baseline (`--compare-culling`, `--compare-far-field`,
//! `--compare-occlusion`).

use crate::crowd::cull::CullSettings;
use crate::crowd::shadow::ShadowSettings;

/// The settings one measurement runs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// The run's own.
    Run,
    /// Culling and LOD off (`--compare-culling`).
    Unculled,
    /// The far field off (`--compare-far-field`).
    FarFieldOff,
    /// Occlusion culling off (`--compare-occlusion`).
    OcclusionOff,
}

impl Mode {
    pub(super) fn cull(self, run: CullSettings) -> CullSettings {
        match self {
            Mode::Run => run,
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
        }
    }

    pub(super) fn shadows(self, run: ShadowSettings) -> ShadowSettings {
        match self {
            Mode::FarFieldOff => run.without_far_field(),
            _ => run,
        }
    }

    pub(super) fn suffix(self) -> &'static str {
        match self {
            Mode::Run => "",
            Mode::Unculled => " (culling and LOD off)",
            Mode::FarFieldOff => " (far field off)",
            Mode::OcclusionOff => " (occlusion off)",
        }
    }
}
