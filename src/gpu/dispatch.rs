//! Compute dispatches wider than one row of workgroups.

/// The most workgroups a dispatch has in one dimension (WebGPU's and
/// wgpu's default limit).
pub const MAX_DISPATCH_ROW: u32 = 65_535;

/// Workgroups `(x, y)` covering `items` items of `size` each: one row when
/// it fits [`MAX_DISPATCH_ROW`], else rows of it. The shader's item is
/// `id.x + id.y * num_workgroups.x * size` (and it checks the count: the
/// last row may run past it).
pub fn dispatch_rows(items: u32, size: u32) -> (u32, u32) {
    dispatch_rows_within(items, size, MAX_DISPATCH_ROW)
}

/// [`dispatch_rows`] with rows of at most `row` workgroups (clamped to
/// 1..=[`MAX_DISPATCH_ROW`]).
pub fn dispatch_rows_within(items: u32, size: u32, row: u32) -> (u32, u32) {
    let row = row.clamp(1, MAX_DISPATCH_ROW);
    let groups = items.div_ceil(size.max(1)).max(1);
    if groups <= row {
        (groups, 1)
    } else {
        (row, groups.div_ceil(row))
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_DISPATCH_ROW, dispatch_rows, dispatch_rows_within};

    #[test]
    fn dispatches_past_a_row_take_rows() {
        assert_eq!(dispatch_rows(0, 64), (1, 1));
        assert_eq!(dispatch_rows(1_000_000, 64), (15_625, 1));
        let row = MAX_DISPATCH_ROW * 64;
        assert_eq!(dispatch_rows(row, 64), (MAX_DISPATCH_ROW, 1));
        assert_eq!(dispatch_rows(row + 1, 64), (MAX_DISPATCH_ROW, 2));
        // Ten million: 156,250 workgroups in 3 rows, covering every item.
        let (x, y) = dispatch_rows(10_000_000, 64);
        assert_eq!((x, y), (MAX_DISPATCH_ROW, 3));
        assert!(x as u64 * y as u64 * 64 >= 10_000_000);
        // Narrower rows: 1,000 items of 10 in rows of 30 workgroups.
        assert_eq!(dispatch_rows_within(1_000, 10, 30), (30, 4));
        assert_eq!(dispatch_rows_within(300, 10, 30), (30, 1));
        assert_eq!(dispatch_rows_within(1_000, 10, 0), (1, 100));
    }
}
