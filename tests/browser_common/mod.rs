//! The browser test's web server: it serves the built site and takes the
//! page's report (its canvas, timings and splat count, or its error).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::mpsc;

/// What the page posted: its canvas as a PNG with its timings, or an error.
pub enum Report {
    Png(Page),
    Error(String),
}

/// What the page reports after its frames.
pub struct Page {
    pub png: Vec<u8>,
    pub first_frame_ms: f64,
    pub frame_ms: f64,
    /// The far field's splats in the last frame read, or "none: why".
    pub splats: String,
}

/// A query value, percent-decoded.
fn query_text(v: &str) -> String {
    let mut out = Vec::new();
    let mut bytes = v.bytes();
    while let Some(b) = bytes.next() {
        match b {
            b'%' => {
                let hex: String = bytes.by_ref().take(2).map(char::from).collect();
                out.push(u8::from_str_radix(&hex, 16).unwrap_or(b'?'));
            }
            b'+' => out.push(b' '),
            b => out.push(b),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Serves `dir` and takes the page's report (POST /report).
pub fn serve(dir: PathBuf) -> (u16, mpsc::Receiver<Report>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a local port");
    let port = listener.local_addr().unwrap().port();
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let dir = dir.clone();
            let send = send.clone();
            std::thread::spawn(move || {
                let _ = answer(stream, &dir, &send);
            });
        }
    });
    (port, receive)
}

fn answer(stream: TcpStream, dir: &Path, send: &mpsc::Sender<Report>) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    let mut length = 0usize;
    loop {
        let mut header = String::new();
        reader.read_line(&mut header)?;
        if header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let mut stream = stream;
    if method == "POST" && path == "/report" {
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        let field = |key: &str| {
            query
                .split('&')
                .find_map(|kv| kv.strip_prefix(&format!("{key}=")))
                .and_then(|v| v.parse::<f64>().ok())
                .unwrap_or(f64::NAN)
        };
        let text = |key: &str| {
            query
                .split('&')
                .find_map(|kv| kv.strip_prefix(&format!("{key}=")))
                .map(query_text)
                .unwrap_or_default()
        };
        if query.contains("adapter=") {
            eprintln!("browser adapter: {}; off: {}", text("adapter"), text("off"));
        }
        let report = if query.contains("kind=png") {
            Report::Png(Page {
                png: body,
                first_frame_ms: field("first_frame_ms"),
                frame_ms: field("frame_ms"),
                splats: text("splats"),
            })
        } else {
            Report::Error(String::from_utf8_lossy(&body).into_owned())
        };
        let _ = send.send(report);
        return stream.write_all(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
    }
    let name = if path == "/" {
        "index.html"
    } else {
        path.trim_start_matches('/')
    };
    let file = dir.join(name);
    match std::fs::read(&file).ok().filter(|_| !name.contains("..")) {
        Some(bytes) => {
            let kind = match file.extension().and_then(|e| e.to_str()) {
                Some("html") => "text/html; charset=utf-8",
                Some("js") => "text/javascript",
                Some("wasm") => "application/wasm",
                _ => "application/octet-stream",
            };
            write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                bytes.len()
            )?;
            stream.write_all(&bytes)
        }
        None => stream
            .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
    }
}
