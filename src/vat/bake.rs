//! Sampling, skinning and packing every frame, then measuring the result.

use super::{BakeOptions, ErrorReport, Layout, LoopMode, Texels, Vat, VatClip, VatError};
use crate::anim::Pose;
use crate::model::Model;
use crate::{Aabb, skin};
use glam::{Vec3, Vec4};
use rayon::prelude::*;
use std::time::Instant;

/// Bakes the clips of `model` chosen by `options`. A model without clips
/// bakes its rest pose as a one-frame clip named "rest".
pub fn bake(model: &Model, options: &BakeOptions) -> Result<Vat, VatError> {
    let started = Instant::now();
    let name = model.name();
    if !(options.fps.is_finite() && options.fps > 0.0 && options.fps <= 1000.0) {
        return Err(VatError::Option(format!(
            "the bake rate must be between 0 and 1000 fps, not {}",
            options.fps
        )));
    }
    let mut layout = Layout::for_vertices(
        &name,
        model.vertex_count(),
        options.max_width,
        options.max_height,
    )?;
    let sources = select_clips(model, options)?;
    let diagonal = model
        .sample_pose(None, 0.0)
        .skinned_bounds(model)
        .diagonal()
        .max(f32::MIN_POSITIVE);

    let mut clips: Vec<VatClip> = sources
        .iter()
        .map(|&source| plan_clip(model, source, options, diagonal))
        .collect();
    layout.place(&name, &mut clips, options.max_height, options.max_layers)?;

    // Every sampled frame is independent: skin them in parallel.
    let jobs: Vec<(usize, u32)> = clips
        .iter()
        .enumerate()
        .flat_map(|(c, clip)| (0..sampled_frames(clip)).map(move |k| (c, k)))
        .collect();
    let frames: Vec<(Vec<Vec3>, Vec<Vec3>)> = jobs
        .par_iter()
        .map_init(
            || Pose::rest(model),
            |pose, &(c, k)| {
                let clip = &clips[c];
                pose.sample(model, clip.source, clip.frame_time(k));
                skin::skin(model, pose)
            },
        )
        .collect();

    let precision = options.precision;
    let mut positions = Texels::zeroed(precision, layout.texel_count());
    let mut normals = Texels::zeroed(precision, layout.texel_count());
    let mut bounds = Aabb::EMPTY;
    let mut quantization = 0.0f32;
    let mut normal_cos = 1.0f32;
    for (&(c, k), (p, n)) in jobs.iter().zip(&frames) {
        let clip = &clips[c];
        let start = layout.frame_start(clip, k);
        for (v, (&p, &n)) in p.iter().zip(n).enumerate() {
            let stored_p = precision.round(p.extend(1.0));
            let stored_n = precision.round(n.extend(0.0));
            positions.set(start + v, stored_p);
            normals.set(start + v, stored_n);
            bounds.add(stored_p.truncate());
            quantization = quantization.max(stored_p.truncate().distance(p));
            normal_cos = normal_cos.min(stored_n.truncate().normalize_or_zero().dot(n));
        }
    }
    // A looping clip's last frame is a copy of its first.
    for clip in clips.iter().filter(|c| c.looping) {
        let (from, to) = (
            layout.frame_start(clip, 0),
            layout.frame_start(clip, clip.segments()),
        );
        for v in 0..layout.vertex_count as usize {
            positions.set(to + v, positions.get(from + v));
            normals.set(to + v, normals.get(from + v));
        }
    }
    let bake_ms = started.elapsed().as_secs_f64() * 1e3;

    let report_started = Instant::now();
    let per_clip: Vec<f32> = clips
        .iter()
        .map(|clip| interpolation_error(model, &layout, clip, &positions))
        .collect();
    let interpolation = per_clip.iter().copied().fold(0.0, f32::max);
    let size = bounds.diagonal().max(f32::MIN_POSITIVE);
    let report = ErrorReport {
        quantization,
        quantization_relative: quantization / size,
        normal_quantization_degrees: normal_cos.clamp(-1.0, 1.0).acos().to_degrees(),
        interpolation,
        interpolation_relative: interpolation / size,
        interpolation_per_clip: per_clip,
        diagonal: size,
    };
    let report_ms = report_started.elapsed().as_secs_f64() * 1e3;
    log::info!(
        "baked {name}: {} clips, {}×{}×{} {}, {bake_ms:.1} ms (+{report_ms:.1} ms error report)",
        clips.len(),
        layout.width,
        layout.height,
        layout.layers,
        precision.name()
    );
    Ok(Vat {
        layout,
        clips,
        precision,
        fps: options.fps,
        bounds,
        positions,
        normals,
        report,
        bake_ms,
        report_ms,
    })
}

/// The model clips to bake, by index; `None` stands for the rest pose.
fn select_clips(model: &Model, options: &BakeOptions) -> Result<Vec<Option<usize>>, VatError> {
    if options.clips.is_empty() {
        if model.clips.is_empty() {
            return Ok(vec![None]);
        }
        return Ok((0..model.clips.len()).map(Some).collect());
    }
    options
        .clips
        .iter()
        .map(|name| {
            model
                .clip_index(name)
                .map(Some)
                .ok_or_else(|| VatError::NoSuchClip {
                    model: model.name(),
                    clip: name.clone(),
                    available: model
                        .clips
                        .iter()
                        .map(|c| c.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                })
        })
        .collect()
}

/// Frame count, rate and looping of one clip (its place comes later).
fn plan_clip(
    model: &Model,
    source: Option<usize>,
    options: &BakeOptions,
    diagonal: f32,
) -> VatClip {
    let (name, duration) = match source {
        Some(i) => (
            model.clips[i].name.clone(),
            model.clips[i].duration().max(0.0),
        ),
        None => ("rest".to_string(), 0.0),
    };
    // Intervals at (at least) the requested rate; a tiny epsilon keeps
    // 1.0 s × 30 fps at 30 intervals despite rounding.
    let segments = if duration <= 0.0 {
        0
    } else {
        let at_rate = ((duration * options.fps - 1e-3).ceil() as u32).max(1);
        match source.and_then(|i| uniform_key_intervals(&model.clips[i])) {
            // Frames on the keys: the stored poses are the animator's own,
            // and no lerp cuts the corner at a key.
            Some(keys) if options.align_to_keys => {
                keys * (at_rate as f32 / keys as f32).round().max(1.0) as u32
            }
            _ => at_rate,
        }
    };
    let looping = segments > 0
        && match options.looping {
            LoopMode::Always => true,
            LoopMode::Never => false,
            LoopMode::Auto => {
                let first = model.sample_pose(source, 0.0);
                let last = model.sample_pose(source, duration);
                let (a, _) = skin::skin(model, &first);
                let (b, _) = skin::skin(model, &last);
                let worst = a
                    .iter()
                    .zip(&b)
                    .map(|(a, b)| a.distance(*b))
                    .fold(0.0, f32::max);
                worst <= options.loop_tolerance * diagonal
            }
        };
    VatClip {
        name,
        source,
        layer: 0,
        first_row: 0,
        frame_count: segments + 1,
        fps: if duration > 0.0 {
            segments as f32 / duration
        } else {
            0.0
        },
        duration,
        looping,
    }
}

/// The number of key intervals when every key of the clip (over all its
/// channels) lies on one evenly spaced grid; `None` otherwise.
fn uniform_key_intervals(clip: &crate::anim::Clip) -> Option<u32> {
    let duration = clip.duration();
    if duration <= 0.0 {
        return None;
    }
    let mut times: Vec<f32> = clip
        .channels
        .iter()
        .flat_map(|c| c.times.iter().map(|t| t - clip.start))
        .collect();
    times.sort_by(f32::total_cmp);
    times.dedup_by(|a, b| (*a - *b).abs() < 1e-5 * duration.max(1.0));
    let intervals = times.len().checked_sub(1).filter(|&k| k > 0)?;
    let step = duration / intervals as f32;
    let on_grid = times
        .iter()
        .enumerate()
        .all(|(k, t)| (t - k as f32 * step).abs() <= 0.01 * step);
    on_grid.then_some(intervals as u32)
}

/// Frames that are sampled; a looping clip's last frame is copied instead.
fn sampled_frames(clip: &VatClip) -> u32 {
    if clip.looping {
        clip.segments()
    } else {
        clip.frame_count
    }
}

/// Worst distance between exact skinning at the middle of each frame interval
/// and the lerp of the two stored frames around it.
fn interpolation_error(model: &Model, layout: &Layout, clip: &VatClip, positions: &Texels) -> f32 {
    (0..clip.segments())
        .into_par_iter()
        .map_init(
            || Pose::rest(model),
            |pose, k| {
                let t = (clip.frame_time(k) + clip.frame_time(k + 1)) * 0.5;
                pose.sample(model, clip.source, t);
                let (exact, _) = skin::skin(model, pose);
                let (a, b) = (layout.frame_start(clip, k), layout.frame_start(clip, k + 1));
                exact
                    .iter()
                    .enumerate()
                    .map(|(v, e)| {
                        let lerp: Vec4 = (positions.get(a + v) + positions.get(b + v)) * 0.5;
                        lerp.truncate().distance(*e)
                    })
                    .fold(0.0, f32::max)
            },
        )
        .reduce(|| 0.0, f32::max)
}

impl Pose {
    /// Bounds of the model skinned in this pose.
    pub fn skinned_bounds(&self, model: &Model) -> Aabb {
        let (p, _) = skin::skin(model, self);
        Aabb::from_points(p)
    }
}
