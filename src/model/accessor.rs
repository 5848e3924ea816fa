//! Accessor checks done before any data is read, so that a truncated or
//! inconsistent file becomes an error that says which accessor is wrong
//! instead of a short read or a panic deep inside a reader.

use super::ImportError;
use gltf::Document;
use gltf::accessor::{DataType, Dimensions};
use gltf::buffer::Data;
use std::path::Path;

/// Checks that every accessor's elements lie inside its buffer view and every
/// view inside its buffer.
pub fn validate_all(file: &Path, doc: &Document, buffers: &[Data]) -> Result<(), ImportError> {
    let buffer_bytes: usize = buffers.iter().map(|b| b.len()).sum();
    for view in doc.views() {
        let buffer = view.buffer().index();
        let len = buffers.get(buffer).map_or(0, |b| b.len());
        let end = view.offset().checked_add(view.length());
        if end.is_none_or(|end| end > len) {
            return Err(ImportError::BufferView {
                file: file.to_owned(),
                view: view.index(),
                problem: format!(
                    "spans bytes {}..{} but buffer {buffer} holds only {len} bytes (truncated file?)",
                    view.offset(),
                    view.offset().saturating_add(view.length())
                ),
            });
        }
    }
    for accessor in doc.accessors() {
        let err = |problem: String| ImportError::Accessor {
            file: file.to_owned(),
            what: accessor
                .name()
                .map_or_else(|| "glTF data".to_string(), |n| format!("'{n}'")),
            accessor: accessor.index(),
            problem,
        };
        if accessor.count() == 0 {
            return Err(err("has a count of 0".into()));
        }
        let size = accessor.size();
        if let Some(view) = accessor.view() {
            let stride = view.stride().unwrap_or(size);
            if stride < size {
                return Err(err(format!(
                    "has elements of {size} bytes but its view's stride is {stride}"
                )));
            }
            let end = (accessor.count() - 1)
                .checked_mul(stride)
                .and_then(|b| b.checked_add(size))
                .and_then(|b| b.checked_add(accessor.offset()));
            if end.is_none_or(|end| end > view.length()) {
                return Err(err(format!(
                    "reads {} elements of {size} bytes from offset {} but buffer view {} holds only {} bytes",
                    accessor.count(),
                    accessor.offset(),
                    view.index(),
                    view.length()
                )));
            }
        } else if accessor.count() > buffer_bytes {
            // Without a view the elements are zeros (plus sparse values), so
            // nothing in the file backs the count: a file of a few bytes
            // could claim 2^30 vertices. Every real use (a sparse morph
            // target beside the POSITION data it changes) stays far below
            // one element per byte of the file's buffers.
            return Err(err(format!(
                "has no buffer view but claims {} elements, more than the {buffer_bytes} bytes of the file's buffers could describe",
                accessor.count()
            )));
        }
        if let Some(sparse) = accessor.sparse() {
            let n = sparse.count();
            let idx_size = sparse.indices().index_type().size();
            let checks = [
                (sparse.indices().view(), sparse.indices().offset(), idx_size),
                (sparse.values().view(), sparse.values().offset(), size),
            ];
            for (view, offset, elem) in checks {
                let end = n.checked_mul(elem).and_then(|b| b.checked_add(offset));
                if n == 0 || end.is_none_or(|end| end > view.length()) {
                    return Err(err(format!(
                        "has sparse data outside buffer view {}",
                        view.index()
                    )));
                }
            }
        }
    }
    Ok(())
}

/// Checks that an accessor has the element layout a reader of the gltf crate
/// assumes for `what`. The crate checks this only with debug assertions, and
/// reads the wrong number of bytes per element (or panics) without them.
pub fn require(
    file: &Path,
    what: &str,
    accessor: &gltf::Accessor,
    dimensions: Dimensions,
    types: &[DataType],
) -> Result<(), ImportError> {
    if accessor.dimensions() == dimensions && types.contains(&accessor.data_type()) {
        return Ok(());
    }
    let allowed: Vec<String> = types.iter().map(|t| format!("{t:?}")).collect();
    Err(ImportError::Accessor {
        file: file.to_owned(),
        what: what.to_owned(),
        accessor: accessor.index(),
        problem: format!(
            "is {:?} {:?} but must be {dimensions:?} of {}",
            accessor.data_type(),
            accessor.dimensions(),
            allowed.join(" or ")
        ),
    })
}

/// Collects a reader's items, failing when the reader is missing or yields a
/// different number of elements than the accessor declares.
pub fn collect<T, I: Iterator<Item = T>>(
    file: &Path,
    what: &str,
    accessor: &gltf::Accessor,
    iter: Option<I>,
) -> Result<Vec<T>, ImportError> {
    let err = |problem: &str| ImportError::Accessor {
        file: file.to_owned(),
        what: what.to_owned(),
        accessor: accessor.index(),
        problem: problem.to_owned(),
    };
    let items: Vec<T> = iter
        .ok_or_else(|| err("cannot be read (wrong component type, or no buffer data)"))?
        .collect();
    if items.len() != accessor.count() {
        return Err(err(&format!(
            "yielded {} elements instead of {}",
            items.len(),
            accessor.count()
        )));
    }
    Ok(items)
}
