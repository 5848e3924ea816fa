//! An export is written into a hidden folder inside the output folder and
//! moved into place only when every file is written, the manifest
//! (`vat.json`) last: a failed or interrupted bake leaves no half-written
//! export that reads as complete. The previous export's manifest is
//! removed before any file of the new one moves in.

use super::FormatError;
use std::path::{Path, PathBuf};

/// The staging folder of one export.
pub struct Staging {
    out: PathBuf,
    temp: PathBuf,
    done: bool,
}

impl Staging {
    /// Creates `out` when missing and an empty staging folder inside it.
    pub fn new(out: &Path) -> Result<Self, FormatError> {
        std::fs::create_dir_all(out).map_err(FormatError::io(out))?;
        let temp = out.join(format!(".stampede-bake-{}", std::process::id()));
        if temp.exists() {
            std::fs::remove_dir_all(&temp).map_err(FormatError::io(&temp))?;
        }
        std::fs::create_dir(&temp).map_err(FormatError::io(&temp))?;
        Ok(Self {
            out: out.to_owned(),
            temp,
            done: false,
        })
    }

    /// Where to write the export's files.
    pub fn dir(&self) -> &Path {
        &self.temp
    }

    /// Moves everything written into the output folder, `manifest` last
    /// (an entry of the same name there is replaced, a folder whole), and
    /// returns the final paths of every file, folders' files included.
    pub fn commit(mut self, manifest: &str) -> Result<Vec<PathBuf>, FormatError> {
        let final_manifest = self.out.join(manifest);
        if final_manifest.exists() {
            std::fs::remove_file(&final_manifest).map_err(FormatError::io(&final_manifest))?;
        }
        let mut names: Vec<_> = std::fs::read_dir(&self.temp)
            .map_err(FormatError::io(&self.temp))?
            .map(|e| e.map(|e| e.file_name()))
            .collect::<Result<_, _>>()
            .map_err(FormatError::io(&self.temp))?;
        names.sort();
        // The manifest goes last.
        names.sort_by_key(|n| n == manifest);
        let mut files = Vec::new();
        for name in names {
            let (from, to) = (self.temp.join(&name), self.out.join(&name));
            if to.is_dir() {
                std::fs::remove_dir_all(&to).map_err(FormatError::io(&to))?;
            }
            std::fs::rename(&from, &to).map_err(FormatError::io(&to))?;
            list_files(&to, &mut files);
        }
        std::fs::remove_dir(&self.temp).map_err(FormatError::io(&self.temp))?;
        self.done = true;
        Ok(files)
    }
}

impl Drop for Staging {
    /// An export that was not committed leaves nothing behind.
    fn drop(&mut self) {
        if !self.done {
            std::fs::remove_dir_all(&self.temp).ok();
        }
    }
}

fn list_files(path: &Path, out: &mut Vec<PathBuf>) {
    match std::fs::read_dir(path) {
        Ok(entries) => {
            let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
            paths.sort();
            for p in paths {
                list_files(&p, out);
            }
        }
        Err(_) => out.push(path.to_owned()),
    }
}
