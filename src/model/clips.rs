//! glTF animations → [`Clip`]s, with the keyframe checks that keep the
//! sampler from ever seeing NaN or unordered times.

use super::accessor::{collect, require};
use super::{ImportError, Node};
use crate::anim::{Channel, Clip, Interpolation, Path as ChannelPath};
use gltf::Document;
use gltf::accessor::{DataType, Dimensions};
use gltf::animation::util::ReadOutputs;
use gltf::animation::{Interpolation as GltfInterpolation, Property};
use gltf::buffer::Data;
use gltf::json::validation::Checked;
use std::path::Path;

pub fn read_clips(
    file: &Path,
    doc: &Document,
    buffers: &[Data],
    nodes: &[Node],
) -> Result<Vec<Clip>, ImportError> {
    let mut clips = Vec::new();
    for anim in doc.animations() {
        let name = anim
            .name()
            .filter(|n| !n.is_empty())
            .map_or_else(|| format!("clip {}", anim.index()), str::to_owned);
        let mut channels = Vec::new();
        for (ci, channel) in anim.channels().enumerate() {
            let err = |problem: String| ImportError::Animation {
                file: file.to_owned(),
                animation: name.clone(),
                channel: ci,
                problem,
            };
            // gltf's validation skips channel targets, and its accessors
            // unwrap them: check them on the JSON first.
            let target = &doc.as_json().animations[anim.index()].channels[ci].target;
            let node = target.node.value();
            if node >= nodes.len() {
                return Err(err(format!(
                    "targets node {node} but the file has {} nodes",
                    nodes.len()
                )));
            }
            let property = match target.path {
                Checked::Valid(p) => p,
                Checked::Invalid => return Err(err("has an unknown target path".into())),
            };
            let reader = channel.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
            let sampler = channel.sampler();
            require(
                file,
                "animation input",
                &sampler.input(),
                Dimensions::Scalar,
                &[DataType::F32],
            )?;
            let any = [
                DataType::I8,
                DataType::U8,
                DataType::I16,
                DataType::U16,
                DataType::F32,
            ];
            let (dimensions, types) = match property {
                Property::Translation | Property::Scale => (Dimensions::Vec3, &any[4..]),
                Property::Rotation => (Dimensions::Vec4, &any[..]),
                Property::MorphTargetWeights => (Dimensions::Scalar, &any[..]),
            };
            require(
                file,
                "animation output",
                &sampler.output(),
                dimensions,
                types,
            )?;
            let times = collect(
                file,
                "animation input",
                &sampler.input(),
                reader.read_inputs(),
            )?;
            if let Some(k) = times.iter().position(|t| !t.is_finite()) {
                return Err(err(format!("key {k} has a NaN or infinite time")));
            }
            if let Some(k) = times.windows(2).position(|w| w[1] < w[0]) {
                return Err(err(format!("key times go backwards at key {}", k + 1)));
            }
            let (path, values): (ChannelPath, Vec<f32>) = match reader.read_outputs() {
                Some(ReadOutputs::Translations(it)) => {
                    (ChannelPath::Translation, it.flatten().collect())
                }
                Some(ReadOutputs::Scales(it)) => (ChannelPath::Scale, it.flatten().collect()),
                Some(ReadOutputs::Rotations(it)) => {
                    (ChannelPath::Rotation, it.into_f32().flatten().collect())
                }
                Some(ReadOutputs::MorphTargetWeights(it)) => {
                    (ChannelPath::Weights, it.into_f32().collect())
                }
                None => return Err(err("its output cannot be read".into())),
            };
            debug_assert_eq!(
                property == Property::MorphTargetWeights,
                path == ChannelPath::Weights
            );
            if let Some(k) = values.iter().position(|v| !v.is_finite()) {
                return Err(err(format!("output value {k} is NaN or infinite")));
            }
            let interpolation = match sampler.interpolation() {
                GltfInterpolation::Linear => Interpolation::Linear,
                GltfInterpolation::Step => Interpolation::Step,
                GltfInterpolation::CubicSpline => Interpolation::CubicSpline,
            };
            let per_key = if interpolation == Interpolation::CubicSpline {
                3
            } else {
                1
            };
            let width = match path {
                ChannelPath::Translation | ChannelPath::Scale => 3,
                ChannelPath::Rotation => 4,
                ChannelPath::Weights => nodes[node].weights.len(),
            };
            if width == 0 {
                // Weights on a node without morph targets: nothing to drive.
                continue;
            }
            if values.len() != times.len() * per_key * width {
                return Err(err(format!(
                    "has {} output values for {} keys of {width} values{}",
                    values.len(),
                    times.len(),
                    if per_key == 3 {
                        " (×3 for CUBICSPLINE)"
                    } else {
                        ""
                    }
                )));
            }
            channels.push(Channel {
                node,
                path,
                interpolation,
                times,
                values,
                width,
            });
        }
        let start = channels
            .iter()
            .map(|c| c.times[0])
            .fold(f32::INFINITY, f32::min);
        let end = channels
            .iter()
            .map(|c| c.times[c.times.len() - 1])
            .fold(f32::NEG_INFINITY, f32::max);
        let (start, end) = if start.is_finite() {
            (start, end)
        } else {
            (0.0, 0.0)
        };
        clips.push(Clip {
            name,
            start,
            end,
            channels,
        });
    }
    Ok(clips)
}
