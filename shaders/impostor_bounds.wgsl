// Each atlas cell's bounds: the texels of its cell (column = yaw, row =
// elevation) that any of the model's atlas frames covers at mip level 0,
// as (first x, first y, last x + 1, last y + 1) within the cell. The
// impostor's quad is fitted to them (impostor.wgsl), so that the texels
// every frame leaves empty cost no fragments. One workgroup per (column,
// row, frame); the union over the frames is made by atomics. The CPU twin
// is `impostor::cell_bounds` (tests/impostor_gpu.rs).
// The same pass sums the model's colour over every cell of every frame for
// the splat level (splat_common.wgsl): each cell's mean premultiplied
// albedo and coverage, in 1/STAT_ONE units, summed over the cells (the
// twin is `impostor::atlas_sums`).
// requires: impostor_common splat_common

@group(0) @binding(0) var<storage, read> atlas: AtlasParams;
@group(0) @binding(1) var bounds_albedo: texture_2d_array<f32>;
// Four words a cell, row by row of the grid: min x, min y, max x + 1,
// max y + 1 (written [cell, cell, 0, 0] before: nothing covered).
@group(0) @binding(2) var<storage, read_write> cell_bounds: array<atomic<u32>>;
// The model's sums: premultiplied red, green, blue and coverage.
@group(0) @binding(3) var<storage, read_write> atlas_sums: array<atomic<u32>, 4>;

var<workgroup> group_sums: array<atomic<u32>, 4>;

const BOUNDS_GROUP: u32 = 8u;

@compute @workgroup_size(8, 8)
fn cs_bounds(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_id) local: vec3<u32>,
) {
    let column = group.x;
    let row = group.y;
    let frame = group.z;
    if column >= atlas.yaws || row >= atlas.rows || frame >= atlas.layers {
        return;
    }
    let place = atlas_place(atlas, frame, row);
    let origin = vec2<u32>(column * atlas.cell, place.y);
    var lo = vec2<u32>(atlas.cell);
    var hi = vec2<u32>(0u);
    var sum = vec4<f32>(0.0);
    for (var y = local.y; y < atlas.cell; y += BOUNDS_GROUP) {
        for (var x = local.x; x < atlas.cell; x += BOUNDS_GROUP) {
            let texel = textureLoad(bounds_albedo, origin + vec2<u32>(x, y), place.x, 0);
            sum += texel;
            if texel.a > 0.0 {
                lo = min(lo, vec2<u32>(x, y));
                hi = max(hi, vec2<u32>(x + 1u, y + 1u));
            }
        }
    }
    // This invocation's share of the cell's mean, then the workgroup's.
    let share = vec4<u32>(round(sum * STAT_ONE / f32(atlas.cell * atlas.cell)));
    for (var c = 0u; c < 4u; c++) {
        atomicAdd(&group_sums[c], share[c]);
    }
    workgroupBarrier();
    if local.x == 0u && local.y == 0u {
        for (var c = 0u; c < 4u; c++) {
            atomicAdd(&atlas_sums[c], atomicLoad(&group_sums[c]));
        }
    }
    if hi.x > 0u {
        let at = (row * atlas.yaws + column) * 4u;
        atomicMin(&cell_bounds[at], lo.x);
        atomicMin(&cell_bounds[at + 1u], lo.y);
        atomicMax(&cell_bounds[at + 2u], hi.x);
        atomicMax(&cell_bounds[at + 3u], hi.y);
    }
}
