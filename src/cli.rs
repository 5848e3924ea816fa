//! The command line's shared flags and parsers (culling, shadows, sizes,
//! counts); the headless commands themselves are in `commands`.

mod commands;
mod inspect_command;
pub use commands::*;
pub use inspect_command::*;

/// A flag's on or off.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum OnOff {
    On,
    #[default]
    Off,
}

impl OnOff {
    pub fn is_on(self) -> bool {
        self == OnOff::On
    }
}

/// Parses `WxH`.
pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("size '{s}' is not WxH (e.g. 1280x720)"))?;
    let parse = |v: &str| {
        v.trim()
            .parse::<u32>()
            .map_err(|_| format!("size '{s}' is not WxH (e.g. 1280x720)"))
    };
    let (w, h) = (parse(w)?, parse(h)?);
    if w == 0 || h == 0 || w > 16384 || h > 16384 {
        return Err(format!("size {w}x{h} must be between 1x1 and 16384x16384"));
    }
    Ok((w, h))
}

/// Culling and LOD flags, shared by the viewer and `bench`.
#[derive(clap::Args, Clone, Copy, Debug, PartialEq)]
pub struct CullArgs {
    /// GPU frustum culling: a compute pass keeps the instances in view and
    /// the crowd is drawn indirectly (off with --lod off: one instanced
    /// draw of everyone).
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    pub culling: OnOff,
    /// Levels of detail: coarser meshes and nearest-frame sampling where
    /// their animated error projects under --lod-error pixels.
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    pub lod: OnOff,
    /// Pixels an instance's animated LOD error may cover on screen.
    #[arg(long, default_value_t = 1.0, value_parser = parse_lod_error)]
    pub lod_error: f32,
    /// Tint each instance by its LOD level (white = full detail, then green,
    /// yellow, orange, red, purple; impostors blue).
    #[arg(long)]
    pub lod_tint: bool,
    /// The far field's animated impostors (with --lod on): an instance
    /// whose bounding sphere is at most --impostor-px pixels across is one
    /// camera-facing quad drawn from an atlas baked at load.
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    pub impostors: OnOff,
    /// The impostor switch: the bounding sphere's diameter on screen, in
    /// pixels, at or under which an instance is an impostor (1 to 256).
    #[arg(long, default_value_t = crate::crowd::cull::DEFAULT_IMPOSTOR_PX, value_parser = parse_impostor_px)]
    pub impostor_px: f32,
    /// Fit each impostor's quad to the texels its atlas cell covers in any
    /// frame (off: the bounding sphere's square, as before).
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    pub tight_impostors: OnOff,
    /// The splat level (with --impostors on): an impostor whose bounding
    /// sphere is at most --splat-px pixels across is no quad but a splat,
    /// added to its pixel by the cull pass and drawn by one full-screen
    /// pass.
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    pub splat: OnOff,
    /// The splat switch: the bounding sphere's diameter on screen, in
    /// pixels, at or under which an impostor is a splat (0.1 to 8).
    #[arg(long, default_value_t = crate::crowd::splat::DEFAULT_SPLAT_PX, value_parser = parse_splat_px)]
    pub splat_px: f32,
    /// Keep each listed instance's animation state (placement, clips,
    /// times) at the end of the cull pass's visible list, so that no
    /// vertex computes it again (off: every vertex of every instance
    /// computes it, as before).
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    pub resolved_state: OnOff,
    /// The camera's cull pass lists the instances inside any shadow
    /// cascade's box, and the cascades' cull passes go over that list
    /// instead of the whole crowd: the same casters, a fraction of the
    /// work (off: each cascade goes over every instance, as before).
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    pub caster_list: OnOff,
    /// The far field's coarse mesh levels (a few dozen triangles and about
    /// a dozen), drawn where their animated error projects under
    /// --lod-error pixels.
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    pub coarse_levels: OnOff,
    /// Two-phase occlusion culling of the camera's view (with --culling or
    /// --lod on): instances hidden behind nearer ones (a depth pyramid of
    /// what was visible last frame) are not drawn. Off by default: in the
    /// herd's opening view nothing is hidden, so it only costs; among the
    /// herd at eye level it takes 7-27 % of the triangles away, half with
    /// --impostors off (README). Unavailable on the GL backend.
    #[arg(long, value_enum, default_value_t = OnOff::Off)]
    pub occlusion: OnOff,
    /// Draw this mip of occlusion culling's depth pyramid over the picture
    /// (a debug view, with --occlusion on; 0 is full size; a mip past the
    /// last shows the last).
    #[arg(long)]
    pub pyramid_mip: Option<u32>,
}

impl Default for CullArgs {
    fn default() -> Self {
        Self {
            culling: OnOff::On,
            lod: OnOff::On,
            lod_error: 1.0,
            lod_tint: false,
            impostors: OnOff::On,
            impostor_px: crate::crowd::cull::DEFAULT_IMPOSTOR_PX,
            tight_impostors: OnOff::On,
            splat: OnOff::On,
            splat_px: crate::crowd::splat::DEFAULT_SPLAT_PX,
            resolved_state: OnOff::On,
            caster_list: OnOff::On,
            coarse_levels: OnOff::On,
            occlusion: OnOff::Off,
            pyramid_mip: None,
        }
    }
}

impl CullArgs {
    pub fn settings(&self) -> crate::crowd::cull::CullSettings {
        crate::crowd::cull::CullSettings {
            culling: self.culling.is_on(),
            lod: self.lod.is_on(),
            lod_error_px: self.lod_error,
            lod_tint: self.lod_tint,
            impostors: self.impostors.is_on(),
            impostor_px: self.impostor_px,
            tight_impostors: self.tight_impostors.is_on(),
            splats: self.splat.is_on(),
            splat_px: self.splat_px,
            resolved_state: self.resolved_state.is_on(),
            caster_list: self.caster_list.is_on(),
            coarse_levels: self.coarse_levels.is_on(),
            occlusion: self.occlusion.is_on(),
            pyramid_mip: self.pyramid_mip,
            ..Default::default()
        }
    }
}

/// Anti-aliasing flags, shared by the viewer and `bench`.
#[derive(clap::Args, Clone, Copy, Debug, Default, PartialEq)]
pub struct AaArgs {
    /// Anti-aliasing: msaa (4x multisampling), taa (temporal: a jittered
    /// frame blended with the history reprojected by the motion vectors)
    /// or off. A --screenshot with taa is the frame after 16 paused ones
    /// (the picture the viewer settles on when paused).
    #[arg(long, default_value = "msaa", value_parser = crate::crowd::motion::Aa::parse)]
    pub aa: crate::crowd::motion::Aa,
    /// Draw each pixel's motion since the previous frame over the picture
    /// (the velocity target's debug view: hue = direction, brightness =
    /// length, full at 8 pixels).
    #[arg(long)]
    pub motion_view: bool,
    /// Blur the picture along each pixel's motion (half a frame either
    /// side, at most 32 pixels); needs --aa taa.
    #[arg(long)]
    pub motion_blur: bool,
}

impl AaArgs {
    pub fn targets(&self) -> crate::render::passes::targets::TargetOptions {
        crate::render::passes::targets::TargetOptions {
            aa: self.aa,
            velocity: self.motion_view,
            ..Default::default()
        }
    }
}

/// Sun-shadow flags, shared by the viewer and `bench`.
#[derive(clap::Args, Clone, Copy, Debug, PartialEq)]
pub struct ShadowArgs {
    /// Cascaded sun shadows: the crowd casts in its animated pose onto the
    /// ground and onto itself.
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    pub shadows: OnOff,
    /// Shadow cascades fitted to the view (1 to 4).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=4))]
    pub shadow_cascades: u32,
    /// Texels on a side of each cascade's shadow map (16 to 8192).
    #[arg(long, default_value_t = 2048, value_parser = clap::value_parser!(u32).range(16..=8192))]
    pub shadow_resolution: u32,
    /// Where the cascades end: auto (where a model's bounding sphere covers
    /// 6 pixels, beyond which its shadow cannot be made out), off (as far
    /// as the crowd reaches), or a distance from the camera in world units.
    /// Shadows fade out over the last fifth.
    #[arg(long, default_value = "auto")]
    pub shadow_distance: crate::crowd::shadow::ShadowDistance,
    /// Skip a caster whose bounding sphere covers fewer texels of its
    /// cascade than this (its shadow is under the filter's footprint); 0
    /// keeps every caster.
    #[arg(long, default_value_t = crate::crowd::shadow::DEFAULT_MIN_CASTER_TEXELS, value_parser = parse_min_texels)]
    pub shadow_min_texels: f32,
    /// The shadow casters' LOD error budget in multiples of the camera's
    /// (`--lod-error`): a shadow is filtered and only darkens, so casters
    /// may take coarser levels than the camera draws; 1 keeps the camera's.
    #[arg(long, default_value_t = crate::crowd::shadow::DEFAULT_CASTER_ERROR_SCALE, value_parser = parse_error_scale)]
    pub shadow_error_scale: f32,
}

impl Default for ShadowArgs {
    fn default() -> Self {
        let s = crate::crowd::shadow::ShadowSettings::default();
        Self {
            shadows: OnOff::On,
            shadow_cascades: s.cascades,
            shadow_resolution: s.resolution,
            shadow_distance: s.distance,
            shadow_min_texels: s.min_caster_texels,
            shadow_error_scale: s.caster_error_scale,
        }
    }
}

impl ShadowArgs {
    pub fn settings(&self) -> crate::crowd::shadow::ShadowSettings {
        crate::crowd::shadow::ShadowSettings {
            enabled: self.shadows.is_on(),
            cascades: self.shadow_cascades,
            resolution: self.shadow_resolution,
            distance: self.shadow_distance,
            min_caster_texels: self.shadow_min_texels,
            caster_error_scale: self.shadow_error_scale,
            ..Default::default()
        }
    }
}

/// Parses `--impostor-px`: 1 to 256 pixels.
pub fn parse_impostor_px(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(v) if v.is_finite() && (1.0..=256.0).contains(&v) => Ok(v),
        _ => Err(format!("--impostor-px '{s}': expected 1 to 256 pixels")),
    }
}

/// Parses `--splat-px`: 0.1 to 8 pixels.
pub fn parse_splat_px(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(v) if v.is_finite() && (0.1..=8.0).contains(&v) => Ok(v),
        _ => Err(format!("--splat-px '{s}': expected 0.1 to 8 pixels")),
    }
}

/// Parses `--shadow-min-texels`: 0 to 64 texels.
pub fn parse_min_texels(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(v) if v.is_finite() && (0.0..=64.0).contains(&v) => Ok(v),
        _ => Err(format!(
            "--shadow-min-texels '{s}': expected 0 to 64 texels"
        )),
    }
}

/// Parses `--shadow-error-scale`: 1 to 16 times the camera's budget.
pub fn parse_error_scale(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(v) if v.is_finite() && (1.0..=16.0).contains(&v) => Ok(v),
        _ => Err(format!(
            "--shadow-error-scale '{s}': expected 1 to 16 (times the camera's LOD error)"
        )),
    }
}

/// The most pixels `--lod-error` accepts.
pub const MAX_LOD_ERROR_PX: f32 = 1000.0;

/// Parses `--lod-error`: a finite number of pixels in 0..=1000.
pub fn parse_lod_error(s: &str) -> Result<f32, String> {
    let v: f32 = s
        .trim()
        .parse()
        .map_err(|_| format!("--lod-error '{s}' is not a number of pixels"))?;
    if !v.is_finite() || !(0.0..=MAX_LOD_ERROR_PX).contains(&v) {
        return Err(format!(
            "--lod-error {s} is outside 0 to {MAX_LOD_ERROR_PX} pixels"
        ));
    }
    Ok(v)
}

/// An error and its causes on one line, each cause only once: an error
/// whose message already quotes its source (`{file}: not a valid glTF
/// file: {source}`) is not followed by that source again.
pub fn describe_error(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let part = cause.to_string();
        if text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}

#[cfg(test)]
mod describe_error_tests {
    #[test]
    fn causes_are_said_once() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let e = anyhow::Error::new(crate::ImportError::Io {
            file: "deer.glb".into(),
            source: io,
        })
        .context("loading the scene");
        assert_eq!(
            super::describe_error(&e),
            "loading the scene: deer.glb: cannot read the file: no such file"
        );
    }
}

/// Short counts: 1234 → "1.2k", 2_500_000 → "2.5M".
pub fn short_count(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

#[cfg(test)]
mod short_count_tests {
    use super::short_count;

    #[test]
    fn counts_shorten() {
        assert_eq!(short_count(999), "999");
        assert_eq!(short_count(1_234), "1.2k");
        assert_eq!(short_count(2_500_000), "2.5M");
    }
}
