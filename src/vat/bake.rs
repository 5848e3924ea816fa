//! Sampling, skinning and packing every frame, then measuring the result.

use super::{
    BakeOptions, ErrorReport, Layout, LoopMode, Precision, Texels, Vat, VatClip, VatError, packed,
};
use crate::anim::Pose;
use crate::model::Model;
use crate::{Aabb, skin};
use glam::{Vec3, Vec4};
use rayon::prelude::*;
use web_time::Instant;

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

    // Every frame fills its own slot of rows_per_frame rows, so the frames
    // are skinned and packed in parallel, straight into the texture.
    let (positions, normals, stats) = if options.precision == Precision::Packed {
        pack(model, &layout, &clips)
    } else {
        let mut positions = Texels::zeroed(options.precision, layout.texel_count());
        let mut normals = Texels::zeroed(options.precision, layout.texel_count());
        let stats = match (&mut positions, &mut normals) {
            (Texels::F16(p), Texels::F16(n)) => fill(model, &layout, &clips, p, n),
            (Texels::F32(p), Texels::F32(n)) => fill(model, &layout, &clips, p, n),
            _ => unreachable!("both textures are made with the same float precision"),
        };
        (positions, normals, stats)
    };
    let FrameStats {
        bounds,
        quantization,
        normal_worst,
        normal_sum,
        count,
    } = stats;
    let bake_ms = started.elapsed().as_secs_f64() * 1e3;

    let report_started = Instant::now();
    let per_clip = interpolation_errors(model, &layout, &clips, &positions, &bounds);
    let interpolation = per_clip.iter().copied().fold(0.0, f32::max);
    let size = bounds.diagonal().max(f32::MIN_POSITIVE);
    let report = ErrorReport {
        quantization,
        quantization_relative: quantization / size,
        normal_quantization_degrees: normal_worst.to_degrees(),
        normal_quantization_mean_degrees: (normal_sum / count.max(1) as f64).to_degrees() as f32,
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
        options.precision.name()
    );
    Ok(Vat {
        layout,
        clips,
        precision: options.precision,
        fps: options.fps,
        bounds,
        positions,
        normals,
        report,
        bake_ms,
        report_ms,
    })
}

/// What packing measured: the bounds of the stored positions and the
/// rounding of positions and normals.
#[derive(Clone, Copy)]
struct FrameStats {
    bounds: Aabb,
    quantization: f32,
    /// Largest angle between a stored normal and the exact one, radians.
    normal_worst: f32,
    /// Sum of those angles, radians, over `count` stored vertices.
    normal_sum: f64,
    count: u64,
}

impl FrameStats {
    const NONE: Self = Self {
        bounds: Aabb::EMPTY,
        quantization: 0.0,
        normal_worst: 0.0,
        normal_sum: 0.0,
        count: 0,
    };

    /// Counts one stored vertex against its exact skinning.
    fn record(&mut self, exact: (Vec3, Vec3), stored: (Vec3, Vec3)) {
        self.bounds.add(stored.0);
        self.quantization = self.quantization.max(stored.0.distance(exact.0));
        // atan2 keeps small angles exact where acos of a cosine near 1 cannot.
        let angle = stored
            .1
            .cross(exact.1)
            .length()
            .atan2(stored.1.dot(exact.1));
        self.normal_worst = self.normal_worst.max(angle);
        self.normal_sum += f64::from(angle);
        self.count += 1;
    }

    fn merge(self, o: Self) -> Self {
        Self {
            bounds: self.bounds.union(&o.bounds),
            quantization: self.quantization.max(o.quantization),
            normal_worst: self.normal_worst.max(o.normal_worst),
            normal_sum: self.normal_sum + o.normal_sum,
            count: self.count + o.count,
        }
    }
}

/// A stored texel type.
trait Texel: Copy + Send + Sync {
    fn store(v: Vec4) -> Self;
    fn load(self) -> Vec4;
}

impl Texel for [f32; 4] {
    fn store(v: Vec4) -> Self {
        v.to_array()
    }
    fn load(self) -> Vec4 {
        Vec4::from_array(self)
    }
}

impl Texel for [half::f16; 4] {
    fn store(v: Vec4) -> Self {
        v.to_array().map(half::f16::from_f32)
    }
    fn load(self) -> Vec4 {
        Vec4::from_array(self.map(half::f16::to_f32))
    }
}

/// Skins every frame of every clip into its slot. A looping clip's last
/// frame samples clip time 0 again, which reproduces the first frame bit
/// for bit.
fn fill<T: Texel>(
    model: &Model,
    layout: &Layout,
    clips: &[VatClip],
    positions: &mut [T],
    normals: &mut [T],
) -> FrameStats {
    let (slot, jobs) = frame_slots(layout, clips);
    let n = model.vertex_count();
    positions
        .par_chunks_mut(slot)
        .zip(normals.par_chunks_mut(slot))
        .zip(jobs)
        .map_init(
            || (Pose::rest(model), vec![Vec3::ZERO; n], vec![Vec3::ZERO; n]),
            |(pose, p, nrm), ((pos_slot, nrm_slot), job)| {
                let Some((c, k)) = job else {
                    return FrameStats::NONE;
                };
                let clip = &clips[c];
                let k = if clip.looping && k == clip.segments() {
                    0
                } else {
                    k
                };
                pose.sample(model, clip.source, clip.frame_time(k));
                skin::skin_into(model, pose, p, nrm);
                let mut stats = FrameStats::NONE;
                for v in 0..n {
                    let sp = T::store(p[v].extend(1.0));
                    let sn = T::store(nrm[v].extend(0.0));
                    pos_slot[v] = sp;
                    nrm_slot[v] = sn;
                    stats.record((p[v], nrm[v]), (sp.load().truncate(), sn.load().truncate()));
                }
                stats
            },
        )
        .reduce(|| FrameStats::NONE, FrameStats::merge)
}

/// The texel count of one frame's slot, and which frame (clip, frame) each
/// slot of the texture holds; `None` for the unused slots.
fn frame_slots(layout: &Layout, clips: &[VatClip]) -> (usize, Vec<Option<(usize, u32)>>) {
    let slot = (layout.rows_per_frame * layout.width) as usize;
    let mut jobs: Vec<Option<(usize, u32)>> = vec![None; layout.texel_count() / slot];
    for (c, clip) in clips.iter().enumerate() {
        for k in 0..clip.frame_count {
            jobs[layout.frame_start(clip, k) / slot] = Some((c, k));
        }
    }
    (slot, jobs)
}

/// A packed bake: every frame is skinned exactly first (an f32 bake, so
/// the peak memory is an f32 bake's), the bounds are taken over all of them,
/// then each vertex is quantized inside those bounds. Returns the packed
/// texels, an empty normal texture, and the rounding measured against the
/// exact frames; the bounds are the exact ones the packing used.
fn pack(model: &Model, layout: &Layout, clips: &[VatClip]) -> (Texels, Texels, FrameStats) {
    let count = layout.texel_count();
    let mut exact_p = vec![[0f32; 4]; count];
    let mut exact_n = vec![[0f32; 4]; count];
    let bounds = fill(model, layout, clips, &mut exact_p, &mut exact_n).bounds;
    let (slot, jobs) = frame_slots(layout, clips);
    let n = model.vertex_count();
    let mut texels = vec![[0u16; 4]; count];
    let stats = texels
        .par_chunks_mut(slot)
        .zip(exact_p.par_chunks(slot).zip(exact_n.par_chunks(slot)))
        .zip(jobs)
        .map(|((out, (p, nrm)), job)| {
            let mut stats = FrameStats::NONE;
            if job.is_some() {
                for v in 0..n {
                    let exact = (Vec4::from(p[v]).truncate(), Vec4::from(nrm[v]).truncate());
                    out[v] = packed::encode(exact.0, exact.1, &bounds);
                    stats.record(exact, packed::decode(out[v], &bounds));
                }
            }
            stats
        })
        .reduce(|| FrameStats::NONE, FrameStats::merge);
    let stats = FrameStats { bounds, ..stats };
    (Texels::Packed(texels), Texels::Packed(Vec::new()), stats)
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
                keys.saturating_mul((at_rate as f32 / keys as f32).round().max(1.0) as u32)
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
        // Saturating: a clip of 1e30 s claims u32::MAX frames, which
        // `Layout::place` then refuses as too long.
        frame_count: segments.saturating_add(1),
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

/// Per clip, the worst distance between exact skinning at the middle of each
/// frame interval and the lerp of the two stored frames around it.
fn interpolation_errors(
    model: &Model,
    layout: &Layout,
    clips: &[VatClip],
    positions: &Texels,
    bounds: &Aabb,
) -> Vec<f32> {
    let jobs: Vec<(usize, u32)> = clips
        .iter()
        .enumerate()
        .flat_map(|(c, clip)| (0..clip.segments()).map(move |k| (c, k)))
        .collect();
    let n = model.vertex_count();
    let worst: Vec<f32> = jobs
        .par_iter()
        .map_init(
            || (Pose::rest(model), vec![Vec3::ZERO; n], vec![Vec3::ZERO; n]),
            |(pose, exact, normals), &(c, k)| {
                let clip = &clips[c];
                let t = (clip.frame_time(k) + clip.frame_time(k + 1)) * 0.5;
                pose.sample(model, clip.source, t);
                skin::skin_into(model, pose, exact, normals);
                let (a, b) = (layout.frame_start(clip, k), layout.frame_start(clip, k + 1));
                exact
                    .iter()
                    .enumerate()
                    .map(|(v, e)| {
                        let lerp = (positions.position(a + v, bounds)
                            + positions.position(b + v, bounds))
                            * 0.5;
                        lerp.distance(*e)
                    })
                    .fold(0.0, f32::max)
            },
        )
        .collect();
    let mut per_clip = vec![0.0f32; clips.len()];
    for (&(c, _), w) in jobs.iter().zip(worst) {
        per_clip[c] = per_clip[c].max(w);
    }
    per_clip
}

impl Pose {
    /// Bounds of the model skinned in this pose.
    pub fn skinned_bounds(&self, model: &Model) -> Aabb {
        let (p, _) = skin::skin(model, self);
        Aabb::from_points(p)
    }
}
