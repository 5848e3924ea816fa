//! One glTF primitive → a range of the model's vertex stream, plus the joint
//! palette that all primitives share.

use super::accessor::{collect, require};
use super::normals::smooth_normals;
use super::{ImportError, Material, Model, MorphSet, PaletteEntry, Primitive};
use glam::{Mat4, Vec2, Vec3, Vec4};
use gltf::Semantic;
use gltf::accessor::{DataType, Dimensions};
use gltf::buffer::Data;
use gltf::mesh::Mode;
use std::collections::HashMap;
use std::path::Path;

/// A weight sum further than this from 1 counts as "renormalized" in the
/// report (every sum is normalized exactly regardless).
const WEIGHT_SUM_TOLERANCE: f32 = 1e-3;

/// Component types of indices (and, the first two, of JOINTS).
const UNSIGNED: [DataType; 3] = [DataType::U8, DataType::U16, DataType::U32];
/// Component types of TEXCOORD and WEIGHTS.
const NORMALIZED_OR_F32: [DataType; 3] = [DataType::U8, DataType::U16, DataType::F32];

/// Builds the one joint palette of the model: skin joints (deduplicated by
/// node and inverse bind matrix) and rigid entries for unskinned nodes.
#[derive(Default)]
pub struct PaletteBuilder {
    pub entries: Vec<PaletteEntry>,
    by_key: HashMap<(usize, [u32; 16], bool), u16>,
    skins: HashMap<usize, Vec<u16>>,
}

impl PaletteBuilder {
    fn add(
        &mut self,
        file: &Path,
        node: usize,
        inverse_bind: Mat4,
        skinned: bool,
    ) -> Result<u16, ImportError> {
        let key = (
            node,
            inverse_bind.to_cols_array().map(f32::to_bits),
            skinned,
        );
        if let Some(&i) = self.by_key.get(&key) {
            return Ok(i);
        }
        let index = u16::try_from(self.entries.len()).map_err(|_| ImportError::Unsupported {
            file: file.to_owned(),
            what: "the model has more than 65,535 joints".into(),
        })?;
        self.entries.push(PaletteEntry {
            node,
            inverse_bind,
            skinned,
        });
        self.by_key.insert(key, index);
        Ok(index)
    }

    /// Palette indices of a skin's joints, in the skin's joint order.
    fn skin(
        &mut self,
        file: &Path,
        skin: &gltf::Skin,
        buffers: &[Data],
    ) -> Result<Vec<u16>, ImportError> {
        if let Some(map) = self.skins.get(&skin.index()) {
            return Ok(map.clone());
        }
        let joints: Vec<usize> = skin.joints().map(|j| j.index()).collect();
        let ibms: Vec<Mat4> = match skin.inverse_bind_matrices() {
            Some(acc) => {
                let reader = skin.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
                let what = format!("inverse bind matrices of skin {}", skin.index());
                require(file, &what, &acc, Dimensions::Mat4, &[DataType::F32])?;
                collect(file, &what, &acc, reader.read_inverse_bind_matrices())?
                    .into_iter()
                    .map(|m| Mat4::from_cols_array_2d(&m))
                    .collect()
            }
            None => vec![Mat4::IDENTITY; joints.len()],
        };
        let skin_err = |problem: String| ImportError::Skin {
            file: file.to_owned(),
            skin: skin.index(),
            problem,
        };
        if ibms.len() < joints.len() {
            return Err(skin_err(format!(
                "has {} joints but only {} inverse bind matrices",
                joints.len(),
                ibms.len()
            )));
        }
        if ibms.iter().any(|m| !m.is_finite()) {
            return Err(skin_err("has NaN or infinite inverse bind matrices".into()));
        }
        let mut map = Vec::with_capacity(joints.len());
        for (node, ibm) in joints.into_iter().zip(ibms) {
            map.push(self.add(file, node, ibm, true)?);
        }
        self.skins.insert(skin.index(), map.clone());
        Ok(map)
    }
}

/// Reads one primitive of a mesh instance into the model.
pub struct PrimitiveReader<'a> {
    pub file: &'a Path,
    pub buffers: &'a [Data],
    pub node: &'a gltf::Node<'a>,
    pub mesh: &'a gltf::Mesh<'a>,
    pub material: Material,
    pub material_index: usize,
}

impl PrimitiveReader<'_> {
    fn err(&self, primitive: usize, problem: impl Into<String>) -> ImportError {
        ImportError::Primitive {
            file: self.file.to_owned(),
            mesh: self
                .mesh
                .name()
                .map_or_else(|| format!("mesh {}", self.mesh.index()), str::to_owned),
            primitive,
            problem: problem.into(),
        }
    }

    fn require_f32_vec3(
        &self,
        index: usize,
        acc: &gltf::Accessor,
        what: &str,
    ) -> Result<(), ImportError> {
        if acc.data_type() != DataType::F32 || acc.dimensions() != Dimensions::Vec3 {
            return Err(self.err(
                index,
                format!(
                    "{what} must be float VEC3 but accessor {} is {:?} {:?}",
                    acc.index(),
                    acc.data_type(),
                    acc.dimensions()
                ),
            ));
        }
        Ok(())
    }

    pub fn read(
        &self,
        prim: &gltf::Primitive,
        palette: &mut PaletteBuilder,
        model: &mut Model,
    ) -> Result<(), ImportError> {
        let pi = prim.index();
        let mode = prim.mode();
        if !matches!(
            mode,
            Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan
        ) {
            model.warnings.push(format!(
                "mesh {} primitive {pi}: {mode:?} primitives are not drawn",
                self.mesh.index()
            ));
            return Ok(());
        }
        let reader = prim.reader(|b| self.buffers.get(b.index()).map(|d| &d.0[..]));
        let file = self.file;

        let pos_acc = prim
            .get(&Semantic::Positions)
            .ok_or_else(|| self.err(pi, "has no POSITION attribute"))?;
        self.require_f32_vec3(pi, &pos_acc, "POSITION")?;
        let positions: Vec<Vec3> = collect(file, "POSITION", &pos_acc, reader.read_positions())?
            .into_iter()
            .map(Vec3::from)
            .collect();
        if let Some(bad) = positions.iter().position(|p| !p.is_finite()) {
            return Err(self.err(pi, format!("vertex {bad} has a NaN or infinite position")));
        }
        let n = positions.len();
        let base = model.positions.len();
        if base + n > u32::MAX as usize {
            return Err(self.err(pi, "the model has more than 4 billion vertices"));
        }

        // Triangle list in primitive-local indices.
        let raw: Vec<u32> = match prim.indices() {
            Some(acc) => {
                require(file, "indices", &acc, Dimensions::Scalar, &UNSIGNED)?;
                collect(
                    file,
                    "indices",
                    &acc,
                    reader.read_indices().map(|i| i.into_u32()),
                )?
            }
            None => (0..n as u32).collect(),
        };
        if let Some(&bad) = raw.iter().find(|&&i| i as usize >= n) {
            return Err(self.err(
                pi,
                format!("index {bad} is out of range: the primitive has {n} vertices"),
            ));
        }
        let triangles = triangle_list(mode, &raw);
        if mode == Mode::Triangles && !raw.len().is_multiple_of(3) {
            model.warnings.push(format!(
                "mesh {} primitive {pi}: index count is not a multiple of 3",
                self.mesh.index()
            ));
        }

        let normals: Vec<Vec3> = match prim.get(&Semantic::Normals) {
            Some(acc) => {
                self.require_f32_vec3(pi, &acc, "NORMAL")?;
                collect(file, "NORMAL", &acc, reader.read_normals())?
                    .into_iter()
                    .map(|v| Vec3::from(v).normalize_or(Vec3::Y))
                    .collect()
            }
            None => {
                model.stats.normals_computed += 1;
                smooth_normals(&positions, &triangles)
            }
        };

        let uv_set = self.material.base_color_texture.map_or(0, |t| t.uv_set);
        let uvs: Vec<Vec2> = match prim.get(&Semantic::TexCoords(uv_set)) {
            Some(acc) => {
                require(file, "TEXCOORD", &acc, Dimensions::Vec2, &NORMALIZED_OR_F32)?;
                model.has_uv = true;
                collect(
                    file,
                    "TEXCOORD",
                    &acc,
                    reader.read_tex_coords(uv_set).map(|t| t.into_f32()),
                )?
                .into_iter()
                .map(Vec2::from)
                .collect()
            }
            None => vec![Vec2::ZERO; n],
        };
        let base_color = self.material.base_color;
        let colors: Vec<Vec4> = match prim.get(&Semantic::Colors(0)) {
            Some(acc) => collect(
                file,
                "COLOR_0",
                &acc,
                reader.read_colors(0).map(|c| c.into_rgba_f32()),
            )?
            .into_iter()
            .map(|c| Vec4::from(c) * base_color)
            .collect(),
            None => vec![base_color; n],
        };

        let mut sets = Vec::new();
        for set in 0..2 {
            let (Some(ja), Some(wa)) = (
                prim.get(&Semantic::Joints(set)),
                prim.get(&Semantic::Weights(set)),
            ) else {
                break;
            };
            require(file, "JOINTS", &ja, Dimensions::Vec4, &UNSIGNED[..2])?;
            require(file, "WEIGHTS", &wa, Dimensions::Vec4, &NORMALIZED_OR_F32)?;
            let j = collect(
                file,
                "JOINTS",
                &ja,
                reader.read_joints(set).map(|j| j.into_u16()),
            )?;
            let w = collect(
                file,
                "WEIGHTS",
                &wa,
                reader.read_weights(set).map(|w| w.into_f32()),
            )?;
            if j.len() != n || w.len() != n {
                return Err(self.err(pi, "JOINTS/WEIGHTS do not have one element per vertex"));
            }
            sets.push((j, w));
        }
        let (joints, weights, skinned) = self.influences(pi, n, &sets, palette, model)?;

        for target in prim.morph_targets() {
            for acc in [target.positions(), target.normals(), target.tangents()]
                .into_iter()
                .flatten()
            {
                require(
                    file,
                    "morph target",
                    &acc,
                    Dimensions::Vec3,
                    &[DataType::F32],
                )?;
            }
        }
        let targets: Vec<_> = reader.read_morph_targets().collect();
        if !targets.is_empty() {
            let mut set = MorphSet {
                node: self.node.index(),
                first_vertex: base as u32,
                vertex_count: n as u32,
                position_deltas: Vec::new(),
                normal_deltas: Vec::new(),
            };
            for (k, (p, nrm, _tangents)) in targets.into_iter().enumerate() {
                let p: Vec<Vec3> =
                    p.map_or_else(|| vec![Vec3::ZERO; n], |it| it.map(Vec3::from).collect());
                let nrm: Vec<Vec3> = nrm.map_or_else(Vec::new, |it| it.map(Vec3::from).collect());
                if p.len() != n || (!nrm.is_empty() && nrm.len() != n) {
                    return Err(self.err(
                        pi,
                        format!("morph target {k} does not have one delta per vertex"),
                    ));
                }
                if p.iter().chain(&nrm).any(|d| !d.is_finite()) {
                    return Err(
                        self.err(pi, format!("morph target {k} has NaN or infinite deltas"))
                    );
                }
                set.position_deltas.push(p);
                set.normal_deltas.push(nrm);
            }
            model.stats.morph_targets = model.stats.morph_targets.max(set.position_deltas.len());
            model.morphs.push(set);
        }

        model.primitives.push(Primitive {
            node: self.node.index(),
            mesh: self.mesh.index(),
            primitive: pi,
            first_vertex: base as u32,
            vertex_count: n as u32,
            first_index: model.indices.len() as u32,
            index_count: triangles.len() as u32,
            material: self.material_index,
            skinned,
        });
        model
            .indices
            .extend(triangles.iter().map(|&i| i + base as u32));
        model.positions.extend(positions);
        model.normals.extend(normals);
        model.uvs.extend(uvs);
        model.colors.extend(colors);
        model.joints.extend(joints);
        model.weights.extend(weights);
        Ok(())
    }

    /// Joint indices (into the palette) and normalized weights per vertex,
    /// from the primitive's JOINTS_n/WEIGHTS_n sets.
    #[allow(clippy::type_complexity)]
    fn influences(
        &self,
        pi: usize,
        n: usize,
        sets: &[(Vec<[u16; 4]>, Vec<[f32; 4]>)],
        palette: &mut PaletteBuilder,
        model: &mut Model,
    ) -> Result<(Vec<[u16; 4]>, Vec<[f32; 4]>, bool), ImportError> {
        let Some(skin) = self.node.skin().filter(|_| !sets.is_empty()) else {
            // Rigid: weight 1 on an entry for this node's own world matrix.
            model.stats.rigid_primitives += 1;
            let entry = palette.add(self.file, self.node.index(), Mat4::IDENTITY, false)?;
            return Ok((
                vec![[entry, 0, 0, 0]; n],
                vec![[1.0, 0.0, 0.0, 0.0]; n],
                false,
            ));
        };
        let map = palette.skin(self.file, &skin, self.buffers)?;
        if sets.len() > 1 {
            model.warnings.push(format!(
                "mesh {} primitive {pi}: more than 4 influences; the 4 largest are kept",
                self.mesh.index()
            ));
        }
        let mut joints = Vec::with_capacity(n);
        let mut weights = Vec::with_capacity(n);
        for v in 0..n {
            // Up to 8 candidates, strongest first.
            let mut cand: [(f32, u16); 8] = [(0.0, 0); 8];
            let mut count = 0;
            for (j, w) in sets {
                for k in 0..4 {
                    let weight = w[v][k];
                    if !weight.is_finite() || weight < 0.0 {
                        return Err(
                            self.err(pi, format!("vertex {v} has an invalid weight {weight}"))
                        );
                    }
                    if weight == 0.0 {
                        continue;
                    }
                    let local = j[v][k] as usize;
                    let &entry = map.get(local).ok_or_else(|| {
                        self.err(
                            pi,
                            format!(
                                "vertex {v} uses joint {local} but the skin has {} joints",
                                map.len()
                            ),
                        )
                    })?;
                    cand[count] = (weight, entry);
                    count += 1;
                }
            }
            cand[..count].sort_by(|a, b| b.0.total_cmp(&a.0));
            let kept = &cand[..count.min(4)];
            let sum: f32 = kept.iter().map(|c| c.0).sum();
            let mut jv = [0u16; 4];
            let mut wv = [0f32; 4];
            if sum <= 0.0 {
                // No influence at all: follow the first joint of the skin.
                model.stats.weights_renormalized += 1;
                jv[0] = map.first().copied().unwrap_or(0);
                wv[0] = 1.0;
            } else {
                let total: f32 = cand[..count].iter().map(|c| c.0).sum();
                if (total - 1.0).abs() > WEIGHT_SUM_TOLERANCE {
                    model.stats.weights_renormalized += 1;
                }
                for (k, c) in kept.iter().enumerate() {
                    jv[k] = c.1;
                    wv[k] = c.0 / sum;
                }
            }
            joints.push(jv);
            weights.push(wv);
        }
        Ok((joints, weights, true))
    }
}

/// Converts strips and fans to a plain triangle list (local indices).
fn triangle_list(mode: Mode, raw: &[u32]) -> Vec<u32> {
    match mode {
        Mode::TriangleStrip => (2..raw.len())
            .flat_map(|i| {
                if i % 2 == 0 {
                    [raw[i - 2], raw[i - 1], raw[i]]
                } else {
                    [raw[i - 1], raw[i - 2], raw[i]]
                }
            })
            .collect(),
        Mode::TriangleFan => (2..raw.len())
            .flat_map(|i| [raw[i - 1], raw[i], raw[0]])
            .collect(),
        _ => raw[..raw.len() / 3 * 3].to_vec(),
    }
}
