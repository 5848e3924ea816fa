use std::path::PathBuf;

/// Everything that can go wrong while importing a glTF file. Every variant
/// names the file, and where it applies, the mesh, accessor or animation.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("{file}: cannot read the file: {source}")]
    Io {
        file: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}: not a valid glTF file: {source}")]
    Gltf {
        file: PathBuf,
        #[source]
        source: gltf::Error,
    },
    #[error("{file}: not a valid GLB file: {problem}")]
    Glb { file: PathBuf, problem: String },
    #[error("{file}: the file has no scene with a triangle mesh in it")]
    NoMesh { file: PathBuf },
    #[error("{file}: {what}: accessor {accessor} {problem}")]
    Accessor {
        file: PathBuf,
        what: String,
        accessor: usize,
        problem: String,
    },
    #[error("{file}: buffer view {view} {problem}")]
    BufferView {
        file: PathBuf,
        view: usize,
        problem: String,
    },
    #[error("{file}: mesh '{mesh}' primitive {primitive}: {problem}")]
    Primitive {
        file: PathBuf,
        mesh: String,
        primitive: usize,
        problem: String,
    },
    #[error("{file}: skin {skin}: {problem}")]
    Skin {
        file: PathBuf,
        skin: usize,
        problem: String,
    },
    #[error("{file}: animation '{animation}' channel {channel}: {problem}")]
    Animation {
        file: PathBuf,
        animation: String,
        channel: usize,
        problem: String,
    },
    #[error("{file}: node {node}: {problem}")]
    Node {
        file: PathBuf,
        node: usize,
        problem: String,
    },
    #[error("{file}: {what}, which Stampede does not support")]
    Unsupported { file: PathBuf, what: String },
    #[error("{file}: the importer failed unexpectedly: {message}")]
    Internal { file: PathBuf, message: String },
}
