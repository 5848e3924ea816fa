//! The layering the code keeps: `src/crowd` has no GPU code, no module
//! below the front ends (`app`, `bench`, `cli`, `main`) imports them, only the
//! front ends import `render`, and no two modules import each other in a
//! circle. Module paths are read from `crate::` and `super::` references in
//! each file (its unit tests excluded).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type Module = Vec<String>;

fn modules() -> BTreeMap<Module, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeMap::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable src/") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path
                    .strip_prefix(&root)
                    .expect("under src/")
                    .with_extension("");
                let mut parts: Module = rel.iter().map(|p| p.to_string_lossy().into()).collect();
                if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
                    parts.pop();
                }
                let text = std::fs::read_to_string(&path).expect("readable source");
                let code = text
                    .split("#[cfg(test)]\nmod tests")
                    .next()
                    .unwrap_or("")
                    .to_string();
                out.insert(parts, code);
            }
        }
    }
    out
}

/// The modules each module refers to (by `crate::a::b` or `super::x`),
/// its own ancestors left out.
fn edges(mods: &BTreeMap<Module, String>) -> BTreeMap<Module, BTreeSet<Module>> {
    references(mods, false)
}

/// The modules each module refers to, with its ancestors when `ancestors`
/// (a path that names the parent itself, or an item the parent defines or
/// re-exports, resolves to the parent).
fn references(
    mods: &BTreeMap<Module, String>,
    ancestors: bool,
) -> BTreeMap<Module, BTreeSet<Module>> {
    let resolve = |path: &[String]| -> Option<Module> {
        (1..=path.len())
            .rev()
            .map(|n| path[..n].to_vec())
            .find(|p| mods.contains_key(p))
    };
    let mut out = BTreeMap::new();
    for (m, code) in mods {
        let mut deps = BTreeSet::new();
        for start in ["crate::", "super::"] {
            for (i, _) in code.match_indices(start) {
                if code[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                let rest: Vec<String> = code[i..]
                    .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                    .next()
                    .unwrap_or("")
                    .split("::")
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect();
                let mut path: Module = if start == "crate::" {
                    rest[1..].to_vec()
                } else {
                    let mut base = m[..m.len().saturating_sub(1)].to_vec();
                    let mut tail = &rest[1..];
                    while tail.first().is_some_and(|s| s == "super") {
                        base.pop();
                        tail = &tail[1..];
                    }
                    base.extend(tail.iter().cloned());
                    base
                };
                path.retain(|s| !s.is_empty());
                if let Some(r) = resolve(&path)
                    && r != *m
                    && (ancestors || !m.starts_with(&r))
                {
                    deps.insert(r);
                }
            }
        }
        out.insert(m.clone(), deps);
    }
    out
}

fn top(m: &Module) -> &str {
    m.first().map_or("", String::as_str)
}

#[test]
fn the_crowd_has_no_gpu_code() {
    for (m, code) in modules() {
        if top(&m) == "crowd" {
            assert!(!code.contains("wgpu"), "src/{} mentions wgpu", m.join("/"));
        }
    }
}

#[test]
fn only_the_front_ends_import_app_and_render() {
    let mods = modules();
    let front = ["app", "bench", "cli", "main"];
    for (m, deps) in edges(&mods) {
        for d in deps {
            if top(&d) == "app" {
                assert!(top(&m) == "app" || m == ["main"], "{m:?} imports {d:?}");
            }
            if top(&d) == "render" {
                assert!(
                    top(&m) == "render" || front.contains(&top(&m)),
                    "{m:?} imports {d:?}"
                );
            }
        }
    }
}

/// The renderer (the facade) is src/render/mod.rs and the files beside it.
/// Below it, `data/` (the crowd's GPU data), `passes/` and `util/` never
/// import it, nor the probes that drive it: they take what they need
/// from each other, and `camera` and `config` (the camera, the
/// renderer's settings and error), which are plain vocabulary. Only the
/// facade's files and `probes/` (the read-backs of a whole renderer)
/// implement `Renderer`.
#[test]
fn nothing_below_the_renderer_imports_it() {
    let mods = modules();
    let render = |m: &Module| top(m) == "render";
    let vocabulary = ["camera", "config"];
    let below = ["data", "passes", "util"];
    let mut checked = 0;
    for (m, deps) in references(&mods, true) {
        if !render(&m) || m.len() < 2 || !below.contains(&m[1].as_str()) {
            continue;
        }
        checked += 1;
        for d in deps.iter().filter(|d| render(d)) {
            let facade = d.len() == 1
                || (d.len() == 2
                    && !below.contains(&d[1].as_str())
                    && !vocabulary.contains(&d[1].as_str()));
            assert!(
                !facade,
                "src/{} imports {} of the renderer's facade: name the module that defines it",
                m.join("/"),
                d.join("::")
            );
        }
    }
    assert!(checked > 50, "only {checked} modules below the renderer");
    for (m, code) in &mods {
        let facade_file = m.len() <= 2 || (m.len() == 3 && m[1] == "probes");
        if render(m) && !facade_file {
            assert!(
                !code.contains("impl Renderer"),
                "src/{} implements Renderer: that belongs beside src/render/mod.rs or in probes/",
                m.join("/")
            );
        }
    }
}

#[test]
fn no_import_circles() {
    let graph = edges(&modules());
    // Depth-first search for a back edge.
    fn visit(
        m: &Module,
        graph: &BTreeMap<Module, BTreeSet<Module>>,
        stack: &mut Vec<Module>,
        done: &mut BTreeSet<Module>,
    ) -> Option<Vec<Module>> {
        if let Some(i) = stack.iter().position(|s| s == m) {
            let mut circle = stack[i..].to_vec();
            circle.push(m.clone());
            return Some(circle);
        }
        if done.contains(m) {
            return None;
        }
        stack.push(m.clone());
        for d in graph.get(m).into_iter().flatten() {
            if let Some(c) = visit(d, graph, stack, done) {
                return Some(c);
            }
        }
        stack.pop();
        done.insert(m.clone());
        None
    }
    let mut done = BTreeSet::new();
    for m in graph.keys() {
        if let Some(circle) = visit(m, &graph, &mut Vec::new(), &mut done) {
            let names: Vec<String> = circle.iter().map(|m| m.join("::")).collect();
            panic!("import circle: {}", names.join(" → "));
        }
    }
}
