//! glTF → [`Model`]: the scene walk, the node hierarchy and the file-level
//! checks. Primitives are read in [`super::primitive`], clips in
//! [`super::clips`].

use super::accessor;
use super::clips;
use super::primitive::{PaletteBuilder, PrimitiveReader};
use super::{Image, ImportError, ImportStats, Material, Model, Node, TextureRef};
use glam::{Quat, Vec3, Vec4};
use gltf::json::mesh::Semantic;
use gltf::json::validation::Checked;
use gltf::{Document, Gltf};
use std::collections::BTreeSet;
use std::path::Path;

/// Extensions whose absence only changes shading, so a file that requires
/// them still imports (with a warning) instead of failing.
const SHADING_ONLY_EXTENSIONS: &[&str] = &[
    "KHR_materials_",
    "KHR_texture_transform",
    "KHR_lights_punctual",
];

pub fn load(file: &Path) -> Result<Model, ImportError> {
    let bytes = std::fs::read(file).map_err(|source| ImportError::Io {
        file: file.to_owned(),
        source,
    })?;
    from_slice(&bytes, file)
}

pub fn from_slice(bytes: &[u8], file: &Path) -> Result<Model, ImportError> {
    // The checks below are meant to catch every bad file; this is the net
    // under them, so that a reader bug still reaches the user as an error.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| import(bytes, file))) {
        Ok(result) => result,
        Err(payload) => {
            let message = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            Err(ImportError::Internal {
                file: file.to_owned(),
                message,
            })
        }
    }
}

fn import(bytes: &[u8], file: &Path) -> Result<Model, ImportError> {
    let gltf_err = |source| ImportError::Gltf {
        file: file.to_owned(),
        source,
    };
    let Gltf { document, blob } = parse(bytes, file)?;
    let mut warnings = Vec::new();
    let mut stats = ImportStats::default();
    check_extensions(file, &document, &mut stats, &mut warnings)?;

    let base = file.parent();
    let buffers = gltf::import_buffers(&document, base, blob).map_err(gltf_err)?;
    accessor::validate_all(file, &document, &buffers)?;
    let images = match gltf::import_images(&document, base, &buffers) {
        Ok(images) => images
            .into_iter()
            .map(|i| to_rgba8(i, &mut warnings))
            .collect(),
        Err(e) => {
            warnings.push(format!("textures not loaded: {e}"));
            Vec::new()
        }
    };

    let nodes = read_nodes(file, &document)?;
    let scene_roots: Vec<usize> = match document
        .default_scene()
        .or_else(|| document.scenes().next())
    {
        Some(scene) => scene.nodes().map(|n| n.index()).collect(),
        None => (0..nodes.len())
            .filter(|&i| nodes[i].parent.is_none())
            .collect(),
    };
    let scene_order = depth_first(&nodes, &document, &scene_roots);
    // Nodes outside the scene (a skeleton kept elsewhere) still get matrices.
    let other_roots: Vec<usize> = (0..nodes.len())
        .filter(|&i| nodes[i].parent.is_none() && !scene_roots.contains(&i))
        .collect();
    let mut node_order = scene_order.clone();
    node_order.extend(depth_first(&nodes, &document, &other_roots));

    let mut materials: Vec<Material> = document
        .materials()
        .map(|m| read_material(&m, images.len()))
        .collect();
    let default_material = materials.len();
    let mut uses_default_material = false;

    let mut model = Model {
        source: file.to_owned(),
        nodes,
        node_order,
        positions: Vec::new(),
        normals: Vec::new(),
        uvs: Vec::new(),
        has_uv: false,
        colors: Vec::new(),
        joints: Vec::new(),
        weights: Vec::new(),
        indices: Vec::new(),
        primitives: Vec::new(),
        materials: Vec::new(),
        images,
        palette: Vec::new(),
        morphs: Vec::new(),
        clips: Vec::new(),
        stats,
        warnings,
    };

    let mut palette = PaletteBuilder::default();
    let mut meshes = BTreeSet::new();
    let mut skins = BTreeSet::new();
    for &n in &scene_order {
        let Some(node) = document.nodes().nth(n) else {
            continue;
        };
        let Some(mesh) = node.mesh() else { continue };
        meshes.insert(mesh.index());
        if let Some(skin) = node.skin() {
            skins.insert(skin.index());
        }
        for primitive in mesh.primitives() {
            let material = match primitive.material().index() {
                Some(i) => i,
                None => {
                    uses_default_material = true;
                    default_material
                }
            };
            let reader = PrimitiveReader {
                file,
                buffers: &buffers,
                node: &node,
                mesh: &mesh,
                material: materials.get(material).cloned().unwrap_or_default(),
                material_index: material,
            };
            reader.read(&primitive, &mut palette, &mut model)?;
        }
    }
    if model.positions.is_empty() {
        return Err(ImportError::NoMesh {
            file: file.to_owned(),
        });
    }
    if uses_default_material {
        materials.push(Material::default());
    }
    model.materials = materials;
    model.palette = palette.entries;
    model.clips = clips::read_clips(file, &document, &buffers, &model.nodes)?;

    model.stats.meshes = meshes.len();
    model.stats.skins = skins.len();
    let joint_nodes: BTreeSet<usize> = document
        .skins()
        .flat_map(|s| s.joints().map(|j| j.index()))
        .collect();
    model.stats.joints = joint_nodes.len();
    if model.stats.weights_renormalized > 0 {
        model.warnings.push(format!(
            "{} vertices had weights that did not sum to 1 and were renormalized",
            model.stats.weights_renormalized
        ));
    }
    if model.stats.rigid_primitives > 0 && !skins.is_empty() {
        model.warnings.push(format!(
            "{} unskinned primitive(s) move rigidly with their node (attachments)",
            model.stats.rigid_primitives
        ));
    }
    if model.stats.normals_computed > 0 {
        model.warnings.push(format!(
            "{} primitive(s) had no normals; smooth normals were computed",
            model.stats.normals_computed
        ));
    }
    Ok(model)
}

/// `Gltf::from_slice`, with the checks the gltf crate needs to have been
/// made before it can parse or validate without panicking.
fn parse(bytes: &[u8], file: &Path) -> Result<Gltf, ImportError> {
    let gltf_err = |source| ImportError::Gltf {
        file: file.to_owned(),
        source,
    };
    if let [b'g', b'l', b'T', b'F', _, _, _, _, a, b, c, d, ..] = *bytes {
        // The crate subtracts the 12-byte header from the declared length.
        let length = u32::from_le_bytes([a, b, c, d]);
        if length < 12 {
            return Err(ImportError::Glb {
                file: file.to_owned(),
                problem: format!(
                    "the header declares a total length of {length} bytes, less than the header itself"
                ),
            });
        }
    }
    let Gltf { document, blob } = Gltf::from_slice_without_validation(bytes).map_err(gltf_err)?;
    let json = document.into_json();
    // The crate's validation reads each POSITION accessor before it checks
    // that the index exists.
    for (m, mesh) in json.meshes.iter().enumerate() {
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            let position = Checked::Valid(Semantic::Positions);
            if let Some(index) = primitive.attributes.get(&position)
                && index.value() >= json.accessors.len()
            {
                return Err(ImportError::Primitive {
                    file: file.to_owned(),
                    mesh: mesh.name.clone().unwrap_or_else(|| format!("mesh {m}")),
                    primitive: p,
                    problem: format!(
                        "POSITION refers to accessor {} but the file has {} accessors",
                        index.value(),
                        json.accessors.len()
                    ),
                });
            }
        }
    }
    let document = Document::from_json(json).map_err(gltf_err)?;
    Ok(Gltf { document, blob })
}

fn check_extensions(
    file: &Path,
    doc: &Document,
    stats: &mut ImportStats,
    warnings: &mut Vec<String>,
) -> Result<(), ImportError> {
    let shading_only = |e: &str| SHADING_ONLY_EXTENSIONS.iter().any(|p| e.starts_with(p));
    for ext in doc.extensions_required() {
        if !shading_only(ext) {
            return Err(ImportError::Unsupported {
                file: file.to_owned(),
                what: format!("the file requires the extension {ext}"),
            });
        }
    }
    for ext in doc.extensions_used() {
        stats.extensions_used.push(ext.to_string());
        warnings.push(format!("extension {ext} is not supported and is ignored"));
    }
    Ok(())
}

fn read_nodes(file: &Path, doc: &Document) -> Result<Vec<Node>, ImportError> {
    let mut nodes: Vec<Node> = doc
        .nodes()
        .map(|n| {
            let (t, r, s) = n.transform().decomposed();
            let targets = n
                .mesh()
                .and_then(|m| m.primitives().next())
                .map_or(0, |p| p.morph_targets().len());
            let mut weights = n
                .weights()
                .or_else(|| n.mesh().and_then(|m| m.weights()))
                .map(|w| w.to_vec())
                .unwrap_or_default();
            weights.resize(targets, 0.0);
            Node {
                name: n
                    .name()
                    .map_or_else(|| format!("node {}", n.index()), str::to_owned),
                parent: None,
                translation: Vec3::from(t),
                rotation: Quat::from_array(r).normalize(),
                scale: Vec3::from(s),
                weights,
            }
        })
        .collect();
    for parent in doc.nodes() {
        for child in parent.children() {
            let c = child.index();
            if nodes[c].parent.is_some() || c == parent.index() {
                return Err(ImportError::Node {
                    file: file.to_owned(),
                    node: c,
                    problem: "has more than one parent (the hierarchy must be a tree)".into(),
                });
            }
            nodes[c].parent = Some(parent.index());
        }
    }
    // A parent chain longer than the node count is a cycle.
    for start in 0..nodes.len() {
        let mut cur = nodes[start].parent;
        let mut steps = 0;
        while let Some(p) = cur {
            steps += 1;
            if steps > nodes.len() {
                return Err(ImportError::Node {
                    file: file.to_owned(),
                    node: start,
                    problem: "is part of a cycle in the node hierarchy".into(),
                });
            }
            cur = nodes[p].parent;
        }
    }
    for (i, n) in nodes.iter().enumerate() {
        let finite = n.translation.is_finite() && n.rotation.is_finite() && n.scale.is_finite();
        if !finite {
            return Err(ImportError::Node {
                file: file.to_owned(),
                node: i,
                problem: "has a transform with NaN or infinite values".into(),
            });
        }
    }
    Ok(nodes)
}

/// Depth-first order from `roots`, children in array order.
fn depth_first(nodes: &[Node], doc: &Document, roots: &[usize]) -> Vec<usize> {
    let children: Vec<Vec<usize>> = doc
        .nodes()
        .map(|n| n.children().map(|c| c.index()).collect())
        .collect();
    let mut order = Vec::with_capacity(nodes.len());
    let mut stack: Vec<usize> = roots.iter().rev().copied().collect();
    while let Some(n) = stack.pop() {
        order.push(n);
        stack.extend(children[n].iter().rev());
    }
    order
}

fn read_material(m: &gltf::Material, image_count: usize) -> Material {
    let pbr = m.pbr_metallic_roughness();
    let base_color_texture = pbr.base_color_texture().and_then(|info| {
        let image = info.texture().source().index();
        (image < image_count).then_some(TextureRef {
            image,
            uv_set: info.tex_coord(),
        })
    });
    Material {
        name: m.name().map_or_else(
            || format!("material {}", m.index().unwrap_or(0)),
            str::to_owned,
        ),
        base_color: Vec4::from(pbr.base_color_factor()),
        base_color_texture,
        double_sided: m.double_sided(),
        metallic: pbr.metallic_factor(),
        roughness: pbr.roughness_factor(),
    }
}

/// Converts any decoded glTF image to RGBA8.
fn to_rgba8(image: gltf::image::Data, warnings: &mut Vec<String>) -> Image {
    use gltf::image::Format;
    let (w, h) = (image.width, image.height);
    let px = &image.pixels;
    let n = (w * h) as usize;
    let rgba8: Vec<u8> = match image.format {
        Format::R8G8B8A8 => px.clone(),
        Format::R8G8B8 => px
            .chunks_exact(3)
            .flat_map(|c| [c[0], c[1], c[2], 255])
            .collect(),
        Format::R8G8 => px
            .chunks_exact(2)
            .flat_map(|c| [c[0], c[0], c[0], c[1]])
            .collect(),
        Format::R8 => px.iter().flat_map(|&c| [c, c, c, 255]).collect(),
        Format::R16G16B16A16 => px.chunks_exact(2).map(|c| c[1]).collect(),
        Format::R16G16B16 => px
            .chunks_exact(6)
            .flat_map(|c| [c[1], c[3], c[5], 255])
            .collect(),
        other => {
            warnings.push(format!(
                "texture format {other:?} is not supported; drawn white"
            ));
            vec![255; n * 4]
        }
    };
    if rgba8.len() != n * 4 {
        warnings.push("a texture had an unexpected size; drawn white".into());
        return Image {
            width: 1,
            height: 1,
            rgba8: vec![255; 4],
        };
    }
    Image {
        width: w,
        height: h,
        rgba8,
    }
}
