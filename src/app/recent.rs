//! The model files loaded last: at most [`RECENT_CAP`] paths, newest first,
//! kept one a line in `recent.txt` in the user's config folder, so the
//! panel can offer them again in the next session.

use std::path::{Path, PathBuf};

/// How many files the list keeps.
pub const RECENT_CAP: usize = 5;

/// Overrides the config folder (tests point it at a temporary one, so they
/// never touch the user's own list).
pub const CONFIG_DIR_VAR: &str = "STAMPEDE_CONFIG_DIR";

#[derive(Debug, thiserror::Error)]
pub enum RecentError {
    #[error("no config folder: neither {CONFIG_DIR_VAR}, XDG_CONFIG_HOME nor HOME is set")]
    NoConfigDir,
    #[error("could not write the recent files list {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The recent files, newest first, and where they are kept.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RecentFiles {
    entries: Vec<PathBuf>,
    /// `None`: nowhere to keep them (the list still works for this session).
    file: Option<PathBuf>,
}

impl RecentFiles {
    /// The list kept in the user's config folder ([`recent_file`]); empty
    /// when there is none yet or it cannot be read.
    pub fn load() -> Self {
        match recent_file() {
            Ok(file) => Self::load_from(&file),
            Err(e) => {
                log::warn!("recent files are not kept: {e}");
                Self::default()
            }
        }
    }

    /// The list kept in `file` (a missing or unreadable file is an empty
    /// list; blank lines and repeats are dropped, at most the cap is kept).
    pub fn load_from(file: &Path) -> Self {
        let mut list = Self {
            entries: Vec::new(),
            file: Some(file.to_path_buf()),
        };
        if let Ok(text) = std::fs::read_to_string(file) {
            for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
                let path = PathBuf::from(line);
                if !list.entries.contains(&path) && list.entries.len() < RECENT_CAP {
                    list.entries.push(path);
                }
            }
        }
        list
    }

    /// Newest first.
    pub fn entries(&self) -> &[PathBuf] {
        &self.entries
    }

    /// Puts `path` first (moving it up if it was there already), keeps at
    /// most the cap, and writes the list back.
    pub fn record(&mut self, path: &Path) -> Result<(), RecentError> {
        self.entries.retain(|p| p != path);
        self.entries.insert(0, path.to_path_buf());
        self.entries.truncate(RECENT_CAP);
        self.save()
    }

    fn save(&self) -> Result<(), RecentError> {
        let Some(file) = &self.file else {
            return Ok(());
        };
        let write = |source| RecentError::Write {
            path: file.clone(),
            source,
        };
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir).map_err(write)?;
        }
        let mut text = String::new();
        for p in &self.entries {
            text.push_str(&p.to_string_lossy());
            text.push('\n');
        }
        std::fs::write(file, text).map_err(write)
    }
}

/// Where the list lives: `$STAMPEDE_CONFIG_DIR/recent.txt`, else
/// `$XDG_CONFIG_HOME/stampede/recent.txt`, else
/// `~/.config/stampede/recent.txt`.
pub fn recent_file() -> Result<PathBuf, RecentError> {
    recent_file_with(|name| std::env::var_os(name))
}

/// [`recent_file`] with the environment read through `env`.
fn recent_file_with(
    env: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> Result<PathBuf, RecentError> {
    let var = |name| env(name).filter(|v| !v.is_empty());
    if let Some(dir) = var(CONFIG_DIR_VAR) {
        return Ok(PathBuf::from(dir).join("recent.txt"));
    }
    let config = var("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".config")))
        .ok_or(RecentError::NoConfigDir)?;
    Ok(config.join("stampede").join("recent.txt"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("stampede-recent-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir.join("nested").join("recent.txt")
    }

    #[test]
    fn the_file_is_found_from_the_environment() {
        fn at(vars: &[(&str, &str)]) -> Option<PathBuf> {
            recent_file_with(|name| {
                vars.iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| std::ffi::OsString::from(v))
            })
            .ok()
        }
        let all = [
            (CONFIG_DIR_VAR, "/t/own"),
            ("XDG_CONFIG_HOME", "/t/xdg"),
            ("HOME", "/t/home"),
        ];
        assert_eq!(at(&all), Some(PathBuf::from("/t/own/recent.txt")));
        assert_eq!(
            at(&all[1..]),
            Some(PathBuf::from("/t/xdg/stampede/recent.txt"))
        );
        assert_eq!(
            at(&all[2..]),
            Some(PathBuf::from("/t/home/.config/stampede/recent.txt"))
        );
        assert_eq!(
            at(&[("XDG_CONFIG_HOME", ""), ("HOME", "/h")]),
            Some(PathBuf::from("/h/.config/stampede/recent.txt"))
        );
        assert_eq!(at(&[]), None);
    }

    #[test]
    fn a_missing_file_is_an_empty_list() {
        let file = temp("missing");
        let list = RecentFiles::load_from(&file);
        assert!(list.entries().is_empty());
        assert!(!file.exists(), "loading writes nothing");
    }

    #[test]
    fn recording_puts_the_newest_first_without_repeats_and_keeps_five() {
        let file = temp("cap");
        let mut list = RecentFiles::load_from(&file);
        for name in ["a", "b", "c", "a", "d", "e", "f", "g"] {
            list.record(Path::new(&format!("/m/{name}.glb"))).unwrap();
        }
        let expect: Vec<PathBuf> = ["g", "f", "e", "d", "a"]
            .iter()
            .map(|n| PathBuf::from(format!("/m/{n}.glb")))
            .collect();
        assert_eq!(list.entries(), expect);
        // Written through, and read back the same.
        assert_eq!(RecentFiles::load_from(&file).entries(), expect);
        // Loading one again moves it to the top.
        list.record(Path::new("/m/d.glb")).unwrap();
        assert_eq!(list.entries()[0], PathBuf::from("/m/d.glb"));
        assert_eq!(list.entries().len(), RECENT_CAP);
        let _ = std::fs::remove_dir_all(file.parent().unwrap().parent().unwrap());
    }

    #[test]
    fn a_hand_edited_file_is_cleaned_on_reading() {
        let file = temp("edited");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        let lines =
            "\n/x/1.glb\n  /x/2.glb  \n/x/1.glb\n\n/x/3.glb\n/x/4.glb\n/x/5.glb\n/x/6.glb\n";
        std::fs::write(&file, lines).unwrap();
        let list = RecentFiles::load_from(&file);
        let names: Vec<String> = list
            .entries()
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        assert_eq!(
            names,
            ["/x/1.glb", "/x/2.glb", "/x/3.glb", "/x/4.glb", "/x/5.glb"]
        );
        let _ = std::fs::remove_dir_all(file.parent().unwrap().parent().unwrap());
    }
}
