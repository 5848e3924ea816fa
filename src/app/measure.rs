//! "Measure all": runs every technique for about two seconds at the current
//! count and keeps one row of figures per technique. Plain state; the
//! window feeds it each frame's costs and switches technique when asked.

use crate::render::{TechniqueCosts, TechniqueKind};
use std::time::Duration;
use web_time::Instant;

/// Measured time per technique (after the warm-up frames).
pub const RUN: Duration = Duration::from_secs(2);
/// Frames dropped after each switch (pipeline builds, first uploads).
pub const WARM_UP_FRAMES: u32 = 3;
/// The ratios shown after a measurement: `a ÷ b`.
pub const RATIOS: [(TechniqueKind, TechniqueKind); 4] = [
    (TechniqueKind::Skinning, TechniqueKind::Vat),
    (TechniqueKind::ComputeSkinning, TechniqueKind::Vat),
    (TechniqueKind::ComputeBoneTexture, TechniqueKind::Vat),
    (TechniqueKind::Vat, TechniqueKind::Static),
];

/// One technique's figures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeasureRow {
    pub kind: TechniqueKind,
    /// Instances requested and drawn.
    pub count: u32,
    pub drawn: u32,
    pub fps: f32,
    /// Mean CPU ms of the technique per frame.
    pub cpu_ms: f32,
    /// Mean GPU ms of the scene pass and the technique's own pass (compute
    /// skinning's skin pass), when timestamps exist.
    pub gpu_ms: Option<f32>,
    pub upload_mb_s: f32,
    pub memory_bytes: u64,
}

#[derive(Debug)]
struct Run {
    kind: TechniqueKind,
    frames: u32,
    started: Option<Instant>,
    measured: u32,
    cpu: f64,
    gpu: f64,
    gpu_frames: u32,
    /// The technique's own pass.
    pass_gpu: f64,
    pass_frames: u32,
    upload: f64,
    last: TechniqueCosts,
}

/// The measurement in progress and the table it fills.
#[derive(Debug, Default)]
pub struct MeasureAll {
    queue: Vec<TechniqueKind>,
    run: Option<Run>,
    restore: Option<TechniqueKind>,
    pub rows: Vec<MeasureRow>,
}

impl MeasureAll {
    /// Starts measuring every technique; returns the first to switch to.
    pub fn start(&mut self, current: TechniqueKind) -> TechniqueKind {
        self.rows.clear();
        self.queue = TechniqueKind::ALL.iter().rev().copied().collect();
        self.restore = Some(current);
        self.next()
    }

    fn next(&mut self) -> TechniqueKind {
        match self.queue.pop() {
            Some(kind) => {
                self.run = Some(Run {
                    kind,
                    frames: 0,
                    started: None,
                    measured: 0,
                    cpu: 0.0,
                    gpu: 0.0,
                    gpu_frames: 0,
                    pass_gpu: 0.0,
                    pass_frames: 0,
                    upload: 0.0,
                    last: TechniqueCosts::default(),
                });
                kind
            }
            None => {
                self.run = None;
                self.restore.take().unwrap_or_default()
            }
        }
    }

    /// The technique being measured, if any.
    pub fn running(&self) -> Option<TechniqueKind> {
        self.run.as_ref().map(|r| r.kind)
    }

    /// Feeds one drawn frame's costs. Returns a technique to switch to when
    /// a run ends (the next one, or the one active before the measurement).
    pub fn after_frame(&mut self, now: Instant, costs: &TechniqueCosts) -> Option<TechniqueKind> {
        let run = self.run.as_mut()?;
        if costs.kind != run.kind {
            return None;
        }
        run.frames += 1;
        if run.frames <= WARM_UP_FRAMES {
            return None;
        }
        let Some(started) = run.started else {
            // The first measured frame starts the clock.
            run.started = Some(now);
            return None;
        };
        run.measured += 1;
        run.cpu += costs.cpu_ms as f64;
        run.upload += costs.upload_bytes as f64;
        if let Some(g) = costs.gpu_ms {
            run.gpu += g as f64;
            run.gpu_frames += 1;
        }
        if let Some(g) = costs.pass.and_then(|p| p.gpu_ms) {
            run.pass_gpu += g as f64;
            run.pass_frames += 1;
        }
        run.last = *costs;
        let elapsed = now.duration_since(started);
        if elapsed < RUN {
            return None;
        }
        let secs = elapsed.as_secs_f64().max(1e-6);
        let frames = run.measured.max(1) as f64;
        self.rows.push(MeasureRow {
            kind: run.kind,
            count: run.last.requested,
            drawn: run.last.drawn,
            fps: (run.measured as f64 / secs) as f32,
            cpu_ms: (run.cpu / frames) as f32,
            gpu_ms: (run.gpu_frames > 0).then(|| {
                let pass = run.pass_gpu / run.pass_frames.max(1) as f64;
                (run.gpu / run.gpu_frames as f64 + pass) as f32
            }),
            upload_mb_s: (run.upload / secs / 1e6) as f32,
            memory_bytes: run.last.gpu_memory_bytes,
        });
        Some(self.next())
    }

    pub fn row(&self, kind: TechniqueKind) -> Option<&MeasureRow> {
        self.rows.iter().find(|r| r.kind == kind)
    }

    /// `a ÷ b` of frame times (1 / fps): how many times slower `a` is.
    pub fn frame_time_ratio(&self, a: TechniqueKind, b: TechniqueKind) -> Option<f32> {
        let (a, b) = (self.row(a)?, self.row(b)?);
        (a.fps > 0.0 && b.fps > 0.0).then(|| b.fps / a.fps)
    }

    /// `a ÷ b` of GPU ms.
    pub fn gpu_ratio(&self, a: TechniqueKind, b: TechniqueKind) -> Option<f32> {
        let (a, b) = (self.row(a)?.gpu_ms?, self.row(b)?.gpu_ms?);
        (b > 0.0).then(|| a / b)
    }

    /// The results as tab-separated text (a header, a row per technique,
    /// then the ratios), for the clipboard.
    pub fn as_text(&self) -> String {
        let mut out =
            String::from("technique\tcount\tdrawn\tfps\tCPU ms\tGPU ms\tMB/s\tmemory bytes\n");
        for r in &self.rows {
            let gpu = r.gpu_ms.map_or("n/a".into(), |g| format!("{g:.3}"));
            out += &format!(
                "{}\t{}\t{}\t{:.2}\t{:.3}\t{gpu}\t{:.2}\t{}\n",
                r.kind.name(),
                r.count,
                r.drawn,
                r.fps,
                r.cpu_ms,
                r.upload_mb_s,
                r.memory_bytes
            );
        }
        for (a, b) in RATIOS {
            let fmt = |v: Option<f32>| v.map_or("n/a".into(), |v| format!("{v:.3}"));
            out += &format!(
                "{} / {}\tframe time {}\tGPU {}\n",
                a.name(),
                b.name(),
                fmt(self.frame_time_ratio(a, b)),
                fmt(self.gpu_ratio(a, b))
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_every_technique_then_restores() {
        let mut m = MeasureAll::default();
        let mut kind = m.start(TechniqueKind::Static);
        assert_eq!(kind, TechniqueKind::Vat);
        let mut now = Instant::now();
        let mut switches = 0;
        while m.running().is_some() {
            now += Duration::from_millis(100);
            let costs = TechniqueCosts {
                kind,
                cpu_ms: 1.0,
                upload_bytes: 1000,
                requested: 10,
                drawn: 10,
                gpu_ms: Some(2.0),
                ..Default::default()
            };
            if let Some(next) = m.after_frame(now, &costs) {
                kind = next;
                switches += 1;
            }
        }
        assert_eq!(switches, TechniqueKind::ALL.len());
        assert_eq!(kind, TechniqueKind::Static, "restores the technique in use");
        assert_eq!(m.rows.len(), TechniqueKind::ALL.len());
        let row = m.rows[0];
        assert!((row.fps - 10.0).abs() < 0.6, "{row:?}");
        assert!((row.cpu_ms - 1.0).abs() < 1e-6 && row.gpu_ms == Some(2.0));
        assert!((row.upload_mb_s - 0.01).abs() < 1e-3);
        assert_eq!(
            m.gpu_ratio(TechniqueKind::Skinning, TechniqueKind::Vat),
            Some(1.0)
        );
        let text = m.as_text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines.len(),
            1 + TechniqueKind::ALL.len() + RATIOS.len(),
            "{text}"
        );
        assert!(lines[1].starts_with("vat\t10\t10\t"), "{text}");
        assert!(
            text.contains("skinning / vat\tframe time 1.000\tGPU 1.000"),
            "{text}"
        );
        assert!(lines.iter().all(|l| l.split('\t').count() >= 3));
    }
}
