//! The web example (`examples/web/`, three.js, written from docs/formats.md's
//! description of the export) plays Stampede's own export in headless
//! Chromium; its frame must match Stampede's render of the same instances,
//! time and camera. Stampede draws with its crowd and again without it (no
//! shadows, no LOD), so the pixels that change are the crowd's silhouette;
//! the page draws the crowd flat white on black. Each silhouette's pixels
//! must lie within one pixel of the other's (`MIN_MATCH` of them).
//!
//! Needs Debian's `chromium` and `npm ci` in `examples/web/` (`.ci/run`
//! does both); without them the test prints why it skipped, and under
//! `CI=true` it fails.

mod gpu_common;

use glam::Mat4;
use stampede::crowd::anim::BehaviourView;
use stampede::crowd::cull::CullSettings;
use stampede::crowd::placement::instance_placement;
use stampede::crowd::setup::{ModelChoice, load};
use stampede::crowd::shadow::ShadowSettings;
use stampede::crowd::{self, FrameSettings, Motion, instance_clip_time};
use stampede::formats;
use stampede::render::headless::{self, Headless, RgbaImage};
use stampede::render::{Camera, RendererConfig};
use stampede::vat::{self, Precision};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const SIZE: (u32, u32) = (384, 256);
const COUNT: u32 = 6;
const SEED: u64 = 5;
/// A time well inside every clip's cycle, not on a baked frame.
const TIME: f64 = 2.37;
/// The least share of each silhouette's pixels that have a pixel of the
/// other within one pixel (edges fall on either side of a pixel centre in
/// two rasterizers, so the plain IoU is 0.87 for a matching picture).
/// Measured 1.0000 (IoU 0.87); a lookup one row off gave 0.936 (IoU
/// 0.74), a time formula without the instances' offsets 0.919 (IoU 0.71).
const MIN_MATCH: f64 = 0.98;

fn on_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

fn skip(why: &str) {
    if on_ci() {
        panic!("web example: {why} (CI must run the browser test)");
    }
    eprintln!("SKIPPED web example: {why}");
}

fn web_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/web")
}

fn chromium() -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("chromium"))
            .find(|p| p.is_file())
    })
}

/// A static file server on 127.0.0.1 over `root`, stopped when dropped.
struct Server {
    port: u16,
    stop: Arc<AtomicBool>,
}

impl Server {
    fn start(root: PathBuf) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a local port");
        let port = listener.local_addr().expect("address").port();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(stream) = stream {
                    serve(stream, &root);
                }
            }
        });
        Self { port, stop }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        TcpStream::connect(("127.0.0.1", self.port)).ok();
    }
}

fn serve(mut stream: TcpStream, root: &Path) {
    let mut line = String::new();
    if BufReader::new(&stream).read_line(&mut line).is_err() {
        return;
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/");
    let path = path
        .split('?')
        .next()
        .unwrap_or("/")
        .trim_start_matches('/');
    let file = root.join(path);
    let body = (!path.contains(".."))
        .then(|| std::fs::read(&file).ok())
        .flatten();
    let kind = match file.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html",
        Some("js") => "text/javascript",
        Some("json") => "application/json",
        Some("glb") => "model/gltf-binary",
        _ => "application/octet-stream",
    };
    let head = match &body {
        Some(b) => format!(
            "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            b.len()
        ),
        None => "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".into(),
    };
    stream.write_all(head.as_bytes()).ok();
    if let Some(b) = body {
        stream.write_all(&b).ok();
    }
}

/// Runs Chromium headless on `url` with `mode` (`--screenshot=...` or
/// `--dump-dom`), returning its standard output.
fn chromium_run(bin: &Path, profile: &Path, url: &str, mode: &str) -> String {
    let mut child = std::process::Command::new(bin)
        .args([
            "--headless=new",
            "--no-sandbox",
            "--use-angle=swiftshader",
            "--enable-unsafe-swiftshader",
            "--force-device-scale-factor=1",
            "--hide-scrollbars",
            "--virtual-time-budget=30000",
        ])
        .arg(format!("--window-size={},{}", SIZE.0, SIZE.1))
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(mode)
        .arg(url)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("chromium starts");
    let deadline = Instant::now() + Duration::from_secs(120);
    while child.try_wait().expect("chromium runs").is_none() {
        if Instant::now() > deadline {
            child.kill().ok();
            panic!("chromium took over 120 s on {url}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut out = String::new();
    if let Some(mut s) = child.stdout.take() {
        std::io::Read::read_to_string(&mut s, &mut out).ok();
    }
    out
}

/// The share of `a`'s pixels that have a pixel of `b` within one pixel.
fn matched(a: &[bool], b: &[bool]) -> f64 {
    let (w, h) = (SIZE.0 as i64, SIZE.1 as i64);
    let near = |x: i64, y: i64| {
        (-1..=1).any(|dy| {
            (-1..=1).any(|dx| {
                let (nx, ny) = (x + dx, y + dy);
                nx >= 0 && ny >= 0 && nx < w && ny < h && b[(ny * w + nx) as usize]
            })
        })
    };
    let mut hit = 0;
    let mut all = 0;
    for y in 0..h {
        for x in 0..w {
            if a[(y * w + x) as usize] {
                all += 1;
                hit += near(x, y) as usize;
            }
        }
    }
    hit as f64 / all.max(1) as f64
}

fn iou(a: &[bool], b: &[bool]) -> (f64, usize, usize) {
    let both = a.iter().zip(b).filter(|(x, y)| **x && **y).count();
    let either = a.iter().zip(b).filter(|(x, y)| **x || **y).count();
    let count = |m: &[bool]| m.iter().filter(|x| **x).count();
    (both as f64 / either.max(1) as f64, count(a), count(b))
}

/// Both silhouettes in one picture: white where they agree, red where only
/// Stampede drew, green where only the page did.
fn overlay_png(ours: &[bool], theirs: &[bool], path: &Path) {
    let pixels = ours
        .iter()
        .zip(theirs)
        .flat_map(|(&a, &b)| match (a, b) {
            (true, true) => [255, 255, 255, 255],
            (true, false) => [255, 0, 0, 255],
            (false, true) => [0, 255, 0, 255],
            (false, false) => [0, 0, 0, 255],
        })
        .collect();
    RgbaImage {
        width: SIZE.0,
        height: SIZE.1,
        pixels,
    }
    .save_png(path)
    .ok();
}

#[test]
fn the_web_page_plays_the_export_as_stampede_draws_it() {
    let web = web_dir();
    let Some(bin) = chromium() else {
        return skip("no `chromium` on PATH (apt-get install chromium)");
    };
    if !web
        .join("node_modules/three/build/three.module.js")
        .is_file()
    {
        return skip("three.js is not installed (npm ci in examples/web)");
    }
    let Some(gpu) = gpu_common::gpu_or_skip("web_example") else {
        return;
    };
    let loaded = load(&ModelChoice::Horse, 30.0, Precision::F16, None).expect("the horse bakes");
    // Narrow, so each frame wraps over rows and a wrong lookup row reads
    // other vertices (not merely a neighbouring frame).
    let narrow = vat::bake(
        &loaded.model,
        &vat::BakeOptions {
            max_width: 512,
            ..vat::BakeOptions::default()
        },
    )
    .expect("bake");
    assert!(narrow.layout.rows_per_frame > 1);
    let narrow = std::sync::Arc::new(narrow);
    let (model, vat) = (&loaded.model, &narrow);

    // The export the page reads, as `stampede bake` writes it.
    let root = std::env::temp_dir().join(format!("stampede-web-{}", std::process::id()));
    std::fs::remove_dir_all(&root).ok();
    let export = root.join("export");
    std::fs::create_dir_all(&export).expect("dir");
    let (_, mesh) = formats::write_mesh(model, &vat.layout, &export).expect("mesh.glb");
    vat::export_with(model, vat, &export, &serde_json::json!({ "mesh": mesh })).expect("export");

    // Stampede's render: instances standing in a field, each its own clip
    // and time offset; no shadows and no LOD, so only the crowd changes
    // pixels.
    let config = RendererConfig {
        motion: Motion::Stand,
        cull: CullSettings {
            lod: false,
            ..CullSettings::default()
        },
        shadows: ShadowSettings {
            enabled: false,
            ..ShadowSettings::default()
        },
        clip: None,
        ..RendererConfig::for_model(&loaded, SIZE.0, SIZE.1, COUNT, SEED, headless::FORMAT)
    };
    let mut view = Headless::new(gpu, model, vat, &config).expect("renderer");
    let settings = FrameSettings {
        time: TIME,
        spread: 1.0,
        ..FrameSettings::default()
    };
    view.render(&settings).expect("a first frame");
    let frame = view.renderer.last_frame.expect("a frame");
    let aspect = SIZE.0 as f32 / SIZE.1 as f32;

    // Each instance as the page gets it: its matrix, clip, rate and offset.
    let mut instances = Vec::new();
    let mut bounds = stampede::Aabb::EMPTY;
    for i in 0..COUNT {
        let inst = crowd::generate(SEED, i);
        let place = instance_placement(
            &inst,
            i,
            &frame,
            &vat.clips,
            &loaded.ground_speeds,
            BehaviourView::Off,
        )
        .expect("standing instances have a CPU placement");
        let (clip, t) = instance_clip_time(&inst, &frame, &vat.clips);
        let rate = frame.playback * inst.speed;
        let offset = inst.time_offset * frame.spread * vat.clips[clip].duration;
        assert!(
            (TIME as f32 * rate + offset - t).abs() < 1e-4,
            "the clip time is time × rate + offset"
        );
        let right = place.up.cross(place.forward).normalize();
        let up = place.forward.cross(right);
        let s = inst.scale;
        let matrix = Mat4::from_cols(
            (right * s).extend(0.0),
            (up * s).extend(0.0),
            (place.forward * s).extend(0.0),
            place.origin.extend(1.0),
        );
        for corner in [vat.bounds.min, vat.bounds.max] {
            bounds.add(matrix.transform_point3(corner));
        }
        instances.push(serde_json::json!({
            "matrix": matrix.to_cols_array(), "clip": clip, "rate": rate, "offset": offset,
        }));
    }
    let mut camera = Camera {
        yaw: 0.7,
        pitch: 0.3,
        ..Camera::default()
    };
    camera.frame(&bounds, aspect);
    camera.distance *= 0.55;
    view.camera = camera;
    let with = view.render(&settings).expect("render");
    view.renderer.hide_crowd = true;
    let without = view.render(&settings).expect("render");
    let stampede_mask: Vec<bool> = with
        .pixels
        .chunks_exact(4)
        .zip(without.pixels.chunks_exact(4))
        .map(|(a, b)| (0..3).map(|k| a[k].abs_diff(b[k]) as u32).sum::<u32>() > 12)
        .collect();

    let (near, far) = camera.clip_planes();
    let scene = serde_json::json!({
        "time": TIME, "width": SIZE.0, "height": SIZE.1,
        "camera": { "eye": camera.eye().to_array(), "target": camera.target.to_array(),
                    "fov_y": camera.fov_y.to_degrees(), "near": near, "far": far },
        "instances": instances,
    });
    std::fs::write(root.join("scene.json"), scene.to_string()).expect("scene");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&web, root.join("web")).expect("link the page");

    let server = Server::start(root.clone());
    let url = format!(
        "http://127.0.0.1:{}/web/index.html?export=../export/&scene=../scene.json",
        server.port
    );
    let shot = root.join("web.png");
    let profile = root.join("profile");
    chromium_run(
        &bin,
        &profile,
        &url,
        &format!("--screenshot={}", shot.display()),
    );
    let page = RgbaImage::load_png(&shot).expect("chromium's screenshot");
    assert_eq!((page.width, page.height), SIZE);
    let page_mask: Vec<bool> = page.pixels.chunks_exact(4).map(|p| p[0] > 128).collect();

    let (iou, ours, theirs) = iou(&stampede_mask, &page_mask);
    let score = matched(&stampede_mask, &page_mask).min(matched(&page_mask, &stampede_mask));
    eprintln!(
        "web example: {:.2} % of each silhouette within a pixel of the other, IoU {iou:.4} (Stampede {ours} px, page {theirs} px of {})",
        score * 100.0,
        SIZE.0 * SIZE.1
    );
    if score < MIN_MATCH {
        let title = chromium_run(&bin, &profile, &url, "--dump-dom");
        let title = title
            .split("<title>")
            .nth(1)
            .and_then(|t| t.split("</title>").next())
            .unwrap_or("?");
        overlay_png(&stampede_mask, &page_mask, &root.join("overlay.png"));
        with.save_png(&root.join("stampede.png")).ok();
        panic!(
            "the page's crowd differs from Stampede's: {score:.4} of a silhouette within a pixel of the other < {MIN_MATCH} (page title: {title}); see {}",
            root.display()
        );
    }
    assert!(
        ours as f64 > 0.02 * (SIZE.0 * SIZE.1) as f64,
        "the crowd fills too little of the view"
    );
    drop(server);
    std::fs::remove_dir_all(&root).ok();
}
