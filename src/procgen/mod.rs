//! The project's own procedural models: a skinned, animated horse and bird,
//! generated in plain Rust and written as glTF 2.0 binaries (`.glb`).
//!
//! Both are deterministic: the same build produces the same bytes, so the
//! committed `assets/*.glb` can be checked against the generator.

mod bird;
mod clip;
mod glb;
mod horse;
mod horse_gait;
mod mesh;
mod skeleton;

use std::path::{Path, PathBuf};

pub use horse_gait::{HORSE_GALLOP_SPEED, HORSE_WALK_SPEED};

/// The horse: about 1.6 m at the withers, facing +Z, clips `Gallop`, `Walk`
/// and `Idle`.
pub fn horse_glb() -> Vec<u8> {
    // The rig and mesh (horse.rs) and the clips that move the rig
    // (horse_gait.rs) meet here, so neither file needs the other's caller.
    let rig = horse::HorseRig::new();
    let mesh = horse::build_mesh(&rig);
    let clips = horse_gait::clips(&rig);
    glb::encode(&glb::Asset {
        name: "Horse",
        skeleton: &rig.skeleton,
        mesh: &mesh,
        material: glb::Material { roughness: 0.8 },
        clips: &clips,
    })
}

/// The bird: a gull with about a 1 m wingspan, facing +Z, clips `Flap` and
/// `Glide`.
pub fn bird_glb() -> Vec<u8> {
    bird::glb()
}

/// Writes `horse.glb` and `bird.glb` into `dir` (created if missing) and
/// returns their paths.
pub fn write_assets(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    for (name, bytes) in [("horse.glb", horse_glb()), ("bird.glb", bird_glb())] {
        let path = dir.join(name);
        std::fs::write(&path, bytes)?;
        written.push(path);
    }
    Ok(written)
}
