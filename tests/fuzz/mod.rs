//! The fuzz harness: seed files, one case (import, then a small bake), and
//! the limits a case must stay within.
#![allow(dead_code)]

pub mod alloc;
pub mod mutate;

use stampede::vat::{self, BakeOptions, Precision};
use stampede::{ImportError, Model};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A case slower than this fails (debug build).
pub const CASE_TIME_LIMIT: Duration = Duration::from_secs(2);
/// A case still running after this is a hang: the watchdog aborts the run.
pub const HANG_LIMIT: Duration = Duration::from_secs(20);
/// Peak heap growth allowed for one case.
pub const PEAK_LIMIT: usize = 512 << 20;

/// A file the mutations start from. `path` is where it lives, so that a
/// `.gltf`'s relative buffer URIs resolve and errors name it.
pub struct Seed {
    pub name: String,
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}

impl Seed {
    pub fn read(path: PathBuf) -> Self {
        let bytes = std::fs::read(&path)
            .unwrap_or_else(|e| panic!("cannot read the seed {}: {e}", path.display()));
        Self {
            name: path.file_name().unwrap().to_string_lossy().into_owned(),
            path,
            bytes,
        }
    }
}

/// How a case ended, when it ended well.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    Refused,
    ImportedBakeRefused,
    ImportedAndBaked,
}

/// What one case did and cost.
pub struct Report {
    pub outcome: Result<Outcome, String>,
    pub elapsed: Duration,
    pub peak: usize,
}

/// The bake the fuzzer runs on an imported model: low rate, small texture,
/// first clip only, so a case stays cheap whatever the file claims.
pub fn small_bake(model: &Model) -> BakeOptions {
    BakeOptions {
        fps: 4.0,
        precision: Precision::F16,
        max_width: 512,
        max_height: 512,
        max_layers: 2,
        align_to_keys: false,
        clips: model
            .clips
            .first()
            .map(|c| c.name.clone())
            .into_iter()
            .collect(),
        ..BakeOptions::default()
    }
}

/// Imports `bytes` as if read from `source` and bakes the result. Any panic,
/// including one the importer's own `catch_unwind` net turned into
/// [`ImportError::Internal`], is a failure.
pub fn run_case(bytes: &[u8], source: &Path) -> Report {
    let baseline = alloc::reset_peak();
    let started = Instant::now();
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        match Model::from_slice(bytes, source) {
            Err(ImportError::Internal { message, .. }) => Err(format!(
                "import panicked (caught by the importer's net): {message}"
            )),
            Err(e) => {
                let text = e.to_string();
                if text.contains(&*source.to_string_lossy()) {
                    Ok(Outcome::Refused)
                } else {
                    Err(format!("the error does not name the file: {text}"))
                }
            }
            Ok(model) => match vat::bake(&model, &small_bake(&model)) {
                Ok(_) => Ok(Outcome::ImportedAndBaked),
                Err(_) => Ok(Outcome::ImportedBakeRefused),
            },
        }
    }));
    let outcome = outcome.unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown panic".into());
        Err(format!("panicked: {message}"))
    });
    Report {
        outcome,
        elapsed: started.elapsed(),
        peak: alloc::peak_since(baseline),
    }
}

/// Aborts the process when one case runs past [`HANG_LIMIT`], printing it:
/// a hang would otherwise stall the test run with no word of which file.
pub struct Watchdog {
    state: &'static Mutex<(String, Option<Instant>)>,
    done: &'static AtomicBool,
}

impl Watchdog {
    pub fn start() -> Self {
        let state: &'static Mutex<(String, Option<Instant>)> =
            Box::leak(Box::new(Mutex::new((String::new(), None))));
        let done: &'static AtomicBool = Box::leak(Box::new(AtomicBool::new(false)));
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                let guard = state.lock().unwrap();
                if let (case, Some(since)) = &*guard
                    && since.elapsed() > HANG_LIMIT
                {
                    eprintln!("fuzz: hang: still running after {HANG_LIMIT:?}: {case}");
                    std::process::abort();
                }
            }
        });
        Self { state, done }
    }

    /// Marks the start of a case (and names it for the refusing allocator).
    pub fn begin(&self, case: &str) {
        *self.state.lock().unwrap() = (case.to_owned(), Some(Instant::now()));
        let text = case.to_owned();
        *alloc::CURRENT_CASE.lock().unwrap() = text;
    }

    pub fn end(&self) {
        self.state.lock().unwrap().1 = None;
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
    }
}

/// Checks a report against the limits; the failure text when it broke one.
pub fn judge(report: &Report) -> Option<String> {
    match &report.outcome {
        Err(e) => Some(e.clone()),
        Ok(_) if report.elapsed > CASE_TIME_LIMIT => Some(format!(
            "took {:.2} s, over the {CASE_TIME_LIMIT:?} budget",
            report.elapsed.as_secs_f64()
        )),
        Ok(_) if report.peak > PEAK_LIMIT => Some(format!(
            "peak allocation {} MiB, over the {} MiB bound",
            report.peak >> 20,
            PEAK_LIMIT >> 20
        )),
        Ok(_) => None,
    }
}
