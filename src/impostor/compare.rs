//! How close an impostor's picture is to the mesh's: the silhouettes'
//! intersection over union and the mean colour difference where either
//! covers, on two RGBA8 images whose alpha is coverage.

/// Two pictures compared.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct ImageStats {
    /// Texels both cover ÷ texels either covers (1 = the same silhouette).
    pub iou: f32,
    /// Mean absolute difference of the RGB channels, 0 to 255, over the
    /// texels either covers (an uncovered texel counts as black).
    pub mean_diff: f32,
    /// Texels either covers.
    pub covered: u32,
}

impl ImageStats {
    /// The worst of several comparisons: the lowest IoU, the highest mean
    /// difference.
    pub fn worst(all: impl IntoIterator<Item = ImageStats>) -> ImageStats {
        all.into_iter().fold(
            ImageStats {
                iou: 1.0,
                ..ImageStats::default()
            },
            |w, s| ImageStats {
                iou: w.iou.min(s.iou),
                mean_diff: w.mean_diff.max(s.mean_diff),
                covered: w.covered.max(s.covered),
            },
        )
    }
}

/// Compares `a` and `b` (RGBA8, the same size, alpha = coverage): a texel
/// is covered where its alpha is at least `threshold`.
pub fn compare_coverage(a: &[[u8; 4]], b: &[[u8; 4]], threshold: u8) -> ImageStats {
    let (mut both, mut either, mut diff) = (0u32, 0u32, 0u64);
    for (x, y) in a.iter().zip(b) {
        let (ca, cb) = (x[3] >= threshold, y[3] >= threshold);
        if ca || cb {
            either += 1;
            let colour =
                |p: &[u8; 4], covered: bool| if covered { [p[0], p[1], p[2]] } else { [0; 3] };
            let (p, q) = (colour(x, ca), colour(y, cb));
            diff += (0..3).map(|c| p[c].abs_diff(q[c]) as u64).sum::<u64>();
        }
        if ca && cb {
            both += 1;
        }
    }
    ImageStats {
        iou: if either == 0 {
            1.0
        } else {
            both as f32 / either as f32
        },
        mean_diff: if either == 0 {
            0.0
        } else {
            diff as f32 / (3 * either) as f32
        },
        covered: either,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iou_and_difference_of_two_squares() {
        // 4×4 images: a 2×2 square at the corner, and one moved right by 1.
        let square = |x0: usize| {
            let mut img = vec![[0u8; 4]; 16];
            for y in 0..2 {
                for x in x0..x0 + 2 {
                    img[y * 4 + x] = [200, 100, 50, 255];
                }
            }
            img
        };
        let (a, b) = (square(0), square(1));
        let same = compare_coverage(&a, &a, 128);
        assert_eq!((same.iou, same.mean_diff, same.covered), (1.0, 0.0, 4));
        let moved = compare_coverage(&a, &b, 128);
        // Both cover 2 texels, either 6.
        assert!((moved.iou - 2.0 / 6.0).abs() < 1e-6);
        // 4 texels differ by the whole colour: (200 + 100 + 50) / 3 each.
        assert!((moved.mean_diff - 4.0 * 350.0 / 3.0 / 6.0).abs() < 1e-3);
        let w = ImageStats::worst([same, moved]);
        assert_eq!((w.iou, w.mean_diff), (moved.iou, moved.mean_diff));
    }
}
