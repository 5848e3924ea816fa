//! A deterministic mutation engine for glTF and GLB bytes: byte flips,
//! truncation, splicing, GLB length corruption and JSON-aware edits of the
//! fields that size and locate data. Randomness is splitmix64, so a case is
//! reproduced from the run seed and its case number alone.

use serde_json::{Value, json};

/// splitmix64: small, fast, and good enough to pick mutations.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// A GLB file's JSON and BIN chunks.
pub struct Glb {
    pub json: Vec<u8>,
    pub bin: Option<Vec<u8>>,
}

fn u32_at(bytes: &[u8], at: usize) -> Option<usize> {
    let b = bytes.get(at..at + 4)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
}

/// Splits a well-formed GLB; `None` for anything else (a `.gltf`, or bytes
/// already broken by an earlier mutation).
pub fn split_glb(bytes: &[u8]) -> Option<Glb> {
    if bytes.get(0..4)? != b"glTF" || bytes.get(16..20)? != b"JSON" {
        return None;
    }
    let json_len = u32_at(bytes, 12)?;
    let json = bytes.get(20..20 + json_len)?.to_vec();
    let at = (20 + json_len).next_multiple_of(4);
    let bin = match (u32_at(bytes, at), bytes.get(at + 4..at + 8)) {
        (Some(len), Some(b"BIN\0")) => Some(bytes.get(at + 8..at + 8 + len)?.to_vec()),
        _ => None,
    };
    Some(Glb { json, bin })
}

/// A GLB from its chunks, with correct lengths and padding.
pub fn build_glb(json: &[u8], bin: Option<&[u8]>) -> Vec<u8> {
    let mut json = json.to_vec();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let mut out = Vec::with_capacity(json.len() + 64 + bin.map_or(0, <[u8]>::len));
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes()); // total length, set below
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json);
    if let Some(bin) = bin {
        let padded = bin.len().next_multiple_of(4);
        out.extend_from_slice(&(padded as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(bin);
        out.resize(out.len() + padded - bin.len(), 0);
    }
    let total = out.len() as u32;
    out[8..12].copy_from_slice(&total.to_le_bytes());
    out
}

/// Fields whose numbers size or locate data, or index other objects.
const SIZING_KEYS: &[&str] = &[
    "count",
    "byteOffset",
    "byteStride",
    "byteLength",
    "bufferView",
    "buffer",
    "componentType",
    "node",
    "skin",
    "mesh",
    "joints",
    "children",
    "nodes",
    "skeleton",
    "inverseBindMatrices",
    "input",
    "output",
    "sampler",
    "indices",
    "POSITION",
    "NORMAL",
    "TEXCOORD_0",
    "JOINTS_0",
    "WEIGHTS_0",
    "targets",
    "mode",
    "material",
    "source",
    "scene",
    "min",
    "max",
    "weights",
    "translation",
    "rotation",
    "scale",
];

/// Mutates `input` with one to three stacked mutations; `donors` feed the
/// splices. Returns the bytes and a description of what was done.
pub fn mutate(rng: &mut Rng, input: &[u8], donors: &[&[u8]]) -> (Vec<u8>, Vec<String>) {
    let mut bytes = input.to_vec();
    let mut done = Vec::new();
    let steps = 1 + usize::from(rng.chance(30)) + usize::from(rng.chance(10));
    for _ in 0..steps {
        let what = match rng.below(20) {
            0..=9 => json_mutation(rng, &mut bytes),
            10..=12 => flip_bytes(rng, &mut bytes),
            13 => set_bytes(rng, &mut bytes),
            14 => truncate(rng, &mut bytes),
            15 => splice(rng, &mut bytes, donors),
            16 => glb_length(rng, &mut bytes),
            17 => bin_words(rng, &mut bytes),
            _ => accessor_element(rng, &mut bytes),
        };
        done.push(what);
    }
    (bytes, done)
}

fn flip_bytes(rng: &mut Rng, bytes: &mut [u8]) -> String {
    if bytes.is_empty() {
        return "flip: nothing to flip".into();
    }
    let n = 1 + rng.below(8);
    let mut at = Vec::new();
    for _ in 0..n {
        let i = rng.below(bytes.len());
        bytes[i] ^= 1 << rng.below(8);
        at.push(i);
    }
    format!("flip bits at {at:?}")
}

fn set_bytes(rng: &mut Rng, bytes: &mut [u8]) -> String {
    if bytes.is_empty() {
        return "set: nothing to set".into();
    }
    let i = rng.below(bytes.len());
    let n = (1 + rng.below(16)).min(bytes.len() - i);
    let v = *rng.pick(&[0x00, 0xFF, 0x7F, 0x80, b'9', b'-']);
    bytes[i..i + n].fill(v);
    format!("set {n} bytes at {i} to {v:#04x}")
}

fn truncate(rng: &mut Rng, bytes: &mut Vec<u8>) -> String {
    let len = rng.below(bytes.len() + 1);
    bytes.truncate(len);
    format!("truncate to {len} bytes")
}

fn splice(rng: &mut Rng, bytes: &mut Vec<u8>, donors: &[&[u8]]) -> String {
    let donor = *rng.pick(donors);
    let from = rng.below(donor.len());
    let n = (1 + rng.below(4096)).min(donor.len() - from);
    let at = rng.below(bytes.len() + 1);
    let end = (at + n).min(bytes.len());
    if rng.chance(50) {
        bytes.splice(at..end, donor[from..from + n].iter().copied());
        format!("splice {n} donor bytes over {at}")
    } else {
        bytes.splice(at..at, donor[from..from + n].iter().copied());
        format!("insert {n} donor bytes at {at}")
    }
}

const BIG_U32: &[u32] = &[
    0,
    1,
    3,
    4,
    7,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFFF,
    0x4000_0000,
];

/// Corrupts the GLB header length or a chunk length.
fn glb_length(rng: &mut Rng, bytes: &mut [u8]) -> String {
    let Some(json_len) = u32_at(bytes, 12) else {
        return flip_bytes(rng, bytes);
    };
    let bin_at = (20 + json_len).next_multiple_of(4);
    let (field, at) = *rng.pick(&[
        ("header length", 8),
        ("JSON chunk length", 12),
        ("BIN chunk length", bin_at),
    ]);
    let Some(old) = u32_at(bytes, at) else {
        return format!("{field}: no such field");
    };
    let new = match rng.below(4) {
        0 => *rng.pick(BIG_U32) as usize,
        1 => old.wrapping_add(1 + rng.below(8)),
        2 => old.wrapping_sub(1 + rng.below(8)),
        _ => rng.next_u64() as u32 as usize,
    } as u32;
    bytes[at..at + 4].copy_from_slice(&new.to_le_bytes());
    format!("{field} {old} -> {new}")
}

/// Overwrites aligned 32-bit words of the binary data (index, joint, key
/// time or float data) with extreme values.
fn bin_words(rng: &mut Rng, bytes: &mut [u8]) -> String {
    let start = split_glb(bytes)
        .filter(|g| g.bin.is_some())
        .map_or(0, |g| (20 + g.json.len()).next_multiple_of(4) + 8);
    if bytes.len() < start + 4 {
        return flip_bytes(rng, bytes);
    }
    let words = (bytes.len() - start) / 4;
    let n = 1 + rng.below(8);
    let mut at = Vec::new();
    for _ in 0..n {
        let i = start + 4 * rng.below(words);
        let v: u32 = match rng.below(6) {
            0 => f32::NAN.to_bits(),
            1 => f32::INFINITY.to_bits(),
            2 => 3.0e38f32.to_bits(),
            3 => (-1.0e30f32).to_bits(),
            4 => *rng.pick(BIG_U32),
            _ => rng.next_u64() as u32,
        };
        bytes[i..i + 4].copy_from_slice(&v.to_le_bytes());
        at.push(i);
    }
    format!("binary words at {at:?}")
}

/// Overwrites the first component of one element (the first, the last or
/// any) of one accessor of a GLB's BIN chunk: a key time, an index, a joint,
/// a weight, a matrix entry.
fn accessor_element(rng: &mut Rng, bytes: &mut [u8]) -> String {
    let Some(glb) = split_glb(bytes).filter(|g| g.bin.is_some()) else {
        return bin_words(rng, bytes);
    };
    let Ok(doc) = serde_json::from_slice::<Value>(&glb.json) else {
        return bin_words(rng, bytes);
    };
    let n = doc["accessors"].as_array().map_or(0, Vec::len);
    let a = rng.below(n);
    let acc = &doc["accessors"][a];
    let Some(view) = acc["bufferView"].as_u64() else {
        return bin_words(rng, bytes);
    };
    let view = &doc["bufferViews"][view as usize];
    let component = match acc["componentType"].as_u64() {
        Some(5120 | 5121) => 1,
        Some(5122 | 5123) => 2,
        _ => 4,
    };
    let components = match acc["type"].as_str() {
        Some("VEC2") => 2,
        Some("VEC3") => 3,
        Some("VEC4" | "MAT2") => 4,
        Some("MAT3") => 9,
        Some("MAT4") => 16,
        _ => 1,
    };
    let stride = view["byteStride"]
        .as_u64()
        .unwrap_or(component * components);
    let count = acc["count"].as_u64().unwrap_or(1).max(1);
    let k = match rng.below(3) {
        0 => 0,
        1 => count - 1,
        _ => rng.next_u64() % count,
    };
    let bin_start = (20 + glb.json.len()).next_multiple_of(4) + 8;
    let at = view["byteOffset"].as_u64().unwrap_or(0)
        + acc["byteOffset"].as_u64().unwrap_or(0)
        + k.saturating_mul(stride);
    let at = bin_start.saturating_add(at as usize);
    let value: [u8; 4] = match (component, rng.below(4)) {
        (4, 0) if acc["componentType"] == 5126 => f32::NAN.to_bits().to_le_bytes(),
        (4, 1) if acc["componentType"] == 5126 => 1.0e30f32.to_le_bytes(),
        (4, 2) if acc["componentType"] == 5126 => (-1.0e30f32).to_le_bytes(),
        (_, 3) => [0; 4],
        _ => [0xFF; 4],
    };
    let Some(slot) = bytes.get_mut(at..at + component as usize) else {
        return format!("accessor {a} element {k}: outside the file");
    };
    slot.copy_from_slice(&value[..component as usize]);
    format!("accessor {a} element {k} <- {value:02x?}")
}

/// Parses the JSON (of a `.gltf` or of a GLB's JSON chunk), edits it, and
/// writes the file back with consistent lengths.
fn json_mutation(rng: &mut Rng, bytes: &mut Vec<u8>) -> String {
    let glb = split_glb(bytes);
    let text = glb.as_ref().map_or(&bytes[..], |g| &g.json[..]);
    let Ok(mut doc) = serde_json::from_slice::<Value>(text) else {
        return flip_bytes(rng, bytes);
    };
    let what = match rng.below(10) {
        0..=6 => replace_number(rng, &mut doc),
        7 => replace_string(rng, &mut doc),
        _ => change_structure(rng, &mut doc),
    };
    let text = serde_json::to_vec(&doc).expect("a Value serializes");
    *bytes = match glb {
        Some(g) => build_glb(&text, g.bin.as_deref()),
        None => text,
    };
    what
}

/// JSON pointers to every node accepted by `keep`, with the nearest key.
fn pointers(v: &Value, keep: &dyn Fn(&Value) -> bool) -> Vec<(String, String)> {
    fn walk(
        v: &Value,
        ptr: &mut String,
        key: &str,
        keep: &dyn Fn(&Value) -> bool,
        out: &mut Vec<(String, String)>,
    ) {
        if keep(v) {
            out.push((ptr.clone(), key.to_owned()));
        }
        let len = ptr.len();
        match v {
            Value::Object(map) => {
                for (k, child) in map {
                    ptr.push('/');
                    ptr.push_str(&k.replace('~', "~0").replace('/', "~1"));
                    walk(child, ptr, k, keep, out);
                    ptr.truncate(len);
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    ptr.push_str(&format!("/{i}"));
                    walk(child, ptr, key, keep, out);
                    ptr.truncate(len);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, &mut String::new(), "", keep, &mut out);
    out
}

fn replace_number(rng: &mut Rng, doc: &mut Value) -> String {
    let all = pointers(doc, &|v| v.is_number());
    let sizing: Vec<_> = all
        .iter()
        .filter(|(_, k)| SIZING_KEYS.contains(&k.as_str()))
        .cloned()
        .collect();
    let pool = if !sizing.is_empty() && rng.chance(85) {
        &sizing
    } else {
        &all
    };
    if pool.is_empty() {
        return "json: no numbers".into();
    }
    let (ptr, _) = rng.pick(pool).clone();
    let slot = doc
        .pointer_mut(&ptr)
        .expect("the pointer was just collected");
    let old = slot.as_f64().unwrap_or(0.0);
    let new = match rng.below(18) {
        0 => json!(0),
        1 => json!(-1),
        2 => json!(1),
        3 => json!(1u64 << 30),
        4 => json!(u32::MAX),
        5 => json!(1u64 << 32),
        6 => json!(u64::MAX),
        7 => json!(i64::MIN),
        8 => json!(1.0e39),
        9 => json!(-1.0e39),
        10 => json!(f64::MAX),
        11 => Value::Null,
        12 => json!(0.5),
        13 => json!(old + 1.0),
        14 => json!(old - 1.0),
        15 => json!(old * 1000.0),
        16 => json!(*rng.pick(&[5120, 5121, 5122, 5123, 5125, 5126, 5124, 0])),
        _ => json!(rng.below(70_000)),
    };
    let text = format!("json {ptr}: {slot} -> {new}");
    *slot = new;
    text
}

fn replace_string(rng: &mut Rng, doc: &mut Value) -> String {
    let targets = pointers(doc, &|v| v.is_string());
    let targets: Vec<_> = targets
        .into_iter()
        .filter(|(_, k)| matches!(k.as_str(), "type" | "interpolation" | "path"))
        .collect();
    if targets.is_empty() {
        return replace_number(rng, doc);
    }
    let (ptr, key) = rng.pick(&targets).clone();
    let choices: &[&str] = match key.as_str() {
        "type" => &[
            "SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4", "VEC9",
        ],
        "interpolation" => &["LINEAR", "STEP", "CUBICSPLINE", "SQUIGGLE"],
        _ => &["translation", "rotation", "scale", "weights", "pointer"],
    };
    let new = json!(*rng.pick(choices));
    let slot = doc
        .pointer_mut(&ptr)
        .expect("the pointer was just collected");
    let text = format!("json {ptr}: {slot} -> {new}");
    *slot = new;
    text
}

fn change_structure(rng: &mut Rng, doc: &mut Value) -> String {
    let containers = pointers(doc, &|v| v.is_object() || v.is_array());
    let (ptr, _) = rng.pick(&containers).clone();
    let slot = doc
        .pointer_mut(&ptr)
        .expect("the pointer was just collected");
    match slot {
        Value::Object(map) if !map.is_empty() => {
            let key = map.keys().nth(rng.below(map.len())).cloned().unwrap();
            map.remove(&key);
            format!("json {ptr}: remove '{key}'")
        }
        Value::Array(items) if !items.is_empty() => {
            if rng.chance(50) {
                let keep = rng.below(items.len());
                items.truncate(keep);
                format!("json {ptr}: keep {keep} elements")
            } else {
                let i = rng.below(items.len());
                let copy = items[i].clone();
                items.push(copy);
                format!("json {ptr}: duplicate element {i}")
            }
        }
        _ => format!("json {ptr}: empty, unchanged"),
    }
}
