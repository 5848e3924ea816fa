//! The imported model: one vertex stream, one joint palette, the node
//! hierarchy, morph targets and animation clips, in plain data.
//!
//! `glTF → Model` happens in [`import`]; everything downstream (pose sampling,
//! CPU skinning, the VAT bake, the renderer) reads a `Model` and nothing else.

mod accessor;
mod clips;
mod error;
mod import;
mod normals;
mod primitive;

pub use error::ImportError;

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};
use std::path::{Path, PathBuf};

use crate::anim::Clip;

/// A node of the scene hierarchy, with its rest transform.
#[derive(Clone, Debug)]
pub struct Node {
    pub name: String,
    /// Index of the parent in [`Model::nodes`], `None` for a scene root.
    pub parent: Option<usize>,
    pub translation: Vec3,
    pub rotation: Quat,
    pub scale: Vec3,
    /// Default morph weights of the node's mesh (empty when it has none).
    pub weights: Vec<f32>,
}

impl Node {
    /// The node's local rest matrix.
    pub fn local_matrix(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }
}

/// One entry of the joint palette: the node whose world matrix drives it and
/// the inverse bind matrix. A rigid (unskinned) primitive gets an entry for
/// its own node with an identity inverse bind matrix.
#[derive(Clone, Copy, Debug)]
pub struct PaletteEntry {
    pub node: usize,
    pub inverse_bind: Mat4,
    /// True when the entry comes from a skin; false for a rigid attachment.
    pub skinned: bool,
}

/// A triangle primitive, as a range of the model's vertex stream.
#[derive(Clone, Debug)]
pub struct Primitive {
    pub node: usize,
    pub mesh: usize,
    /// Index of the primitive inside its glTF mesh.
    pub primitive: usize,
    pub first_vertex: u32,
    pub vertex_count: u32,
    /// Range of [`Model::indices`] that holds this primitive's triangles.
    pub first_index: u32,
    pub index_count: u32,
    /// Index into [`Model::materials`].
    pub material: usize,
    /// True when the primitive is bound to a skin; false when it moves rigidly
    /// with its node.
    pub skinned: bool,
}

/// A base-colour texture reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextureRef {
    /// Index into [`Model::images`].
    pub image: usize,
    /// The TEXCOORD set the texture reads.
    pub uv_set: u32,
}

/// The part of a glTF material the renderer uses.
#[derive(Clone, Debug)]
pub struct Material {
    pub name: String,
    pub base_color: Vec4,
    pub base_color_texture: Option<TextureRef>,
    pub double_sided: bool,
    /// glTF's metallic and roughness factors (kept for the exported mesh;
    /// the renderer shades without them).
    pub metallic: f32,
    pub roughness: f32,
}

impl Default for Material {
    fn default() -> Self {
        Self {
            name: "default".into(),
            base_color: Vec4::ONE,
            base_color_texture: None,
            double_sided: false,
            metallic: 1.0,
            roughness: 1.0,
        }
    }
}

/// A decoded image, always RGBA8 (sRGB-encoded as glTF requires for base colour).
#[derive(Clone, Debug)]
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub rgba8: Vec<u8>,
}

/// Morph targets of one primitive: position and normal deltas over its
/// vertex range, weighted by the morph weights of `node`.
#[derive(Clone, Debug)]
pub struct MorphSet {
    pub node: usize,
    pub first_vertex: u32,
    pub vertex_count: u32,
    /// `targets[k][i]` is target k's position delta for vertex `first_vertex + i`.
    pub position_deltas: Vec<Vec<Vec3>>,
    /// Normal deltas, same layout; empty per target when the file has none.
    pub normal_deltas: Vec<Vec<Vec3>>,
}

/// The imported model. All vertex attributes are in the primitive's mesh
/// space; joint palettes bring them to the scene's root space.
#[derive(Clone, Debug)]
pub struct Model {
    /// File the model came from (or a name for in-memory models).
    pub source: PathBuf,
    pub nodes: Vec<Node>,
    /// Node indices ordered so that every parent comes before its children.
    pub node_order: Vec<usize>,
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    /// TEXCOORD_0, zero when absent (see [`Model::has_uv`]).
    pub uvs: Vec<Vec2>,
    pub has_uv: bool,
    /// Material base colour factor × COLOR_0, linear RGBA.
    pub colors: Vec<Vec4>,
    /// Palette indices of the four influences.
    pub joints: Vec<[u16; 4]>,
    pub weights: Vec<[f32; 4]>,
    /// Triangle list indices into the whole vertex stream.
    pub indices: Vec<u32>,
    pub primitives: Vec<Primitive>,
    pub materials: Vec<Material>,
    pub images: Vec<Image>,
    pub palette: Vec<PaletteEntry>,
    pub morphs: Vec<MorphSet>,
    pub clips: Vec<Clip>,
    pub stats: ImportStats,
    pub warnings: Vec<String>,
}

/// What the importer saw, for `inspect`.
#[derive(Clone, Debug, Default)]
pub struct ImportStats {
    pub meshes: usize,
    pub skins: usize,
    /// Distinct joint nodes over all skins.
    pub joints: usize,
    pub morph_targets: usize,
    pub rigid_primitives: usize,
    pub weights_renormalized: usize,
    pub normals_computed: usize,
    pub extensions_used: Vec<String>,
}

impl Model {
    /// Imports the default scene (or scene 0) of a `.gltf` or `.glb` file.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, ImportError> {
        import::load(path.as_ref())
    }

    /// Imports a model from bytes. `source` names it in errors and relative
    /// URIs resolve against its folder.
    pub fn from_slice(bytes: &[u8], source: impl AsRef<Path>) -> Result<Self, ImportError> {
        import::from_slice(bytes, source.as_ref())
    }

    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    /// The file name for messages.
    pub fn name(&self) -> String {
        self.source
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.source.display().to_string())
    }

    /// Index of the clip with this name.
    pub fn clip_index(&self, name: &str) -> Option<usize> {
        self.clips.iter().position(|c| c.name == name)
    }

    /// Bounding box of the mesh as stored (before any pose).
    pub fn bind_bounds(&self) -> crate::Aabb {
        crate::Aabb::from_points(self.positions.iter().copied())
    }
}
