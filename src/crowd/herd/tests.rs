use super::*;

fn params() -> HerdParams {
    HerdParams {
        seed: 11,
        clips: [1, 0, 2],
        speeds: [1.3, 8.5, 0.0],
        mix: [0.4, 0.4, 0.2],
        segment: 6.0,
        fade: 0.25,
        spacing: 3.2,
        footprint: FOOTPRINT,
        lag_speed: 12.0,
    }
}

/// A horse's box across and along (1.25 × its length is the spacing).
const FOOTPRINT: Vec2 = Vec2::new(0.6, 2.56);

/// Whether two horses' boxes (`FOOTPRINT` at the largest instance scale,
/// centred on their positions, turned to their headings) overlap: a
/// separating-axis test over the four edge directions.
fn boxes_overlap(a: (Vec2, Vec2), b: (Vec2, Vec2)) -> bool {
    let half = FOOTPRINT * 1.12 * 0.5;
    if a.0.distance(b.0) > 2.0 * half.length() {
        return false;
    }
    let axes = |f: Vec2| [Vec2::new(f.y, -f.x), f];
    let corners = |(p, f): (Vec2, Vec2)| {
        let [r, f] = axes(f);
        [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
            .map(|(i, j)| p + r * half.x * i + f * half.y * j)
    };
    let (ca, cb) = (corners(a), corners(b));
    axes(a.1).into_iter().chain(axes(b.1)).all(|axis| {
        let span = |c: &[Vec2; 4]| {
            c.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| {
                let d = p.dot(axis);
                (lo.min(d), hi.max(d))
            })
        };
        let ((a0, a1), (b0, b1)) = (span(&ca), span(&cb));
        a1 > b0 && b1 > a0
    })
}

#[test]
fn formation_neighbours_keep_their_distance() {
    let s = 3.2;
    let slots: Vec<Vec2> = (0..2500).map(|i| formation_slot(i, s)).collect();
    for (i, a) in slots.iter().enumerate() {
        for b in &slots[i + 1..] {
            let d = (*a - *b).abs();
            assert!(d.y >= s || d.x >= s / 2.5, "{a} and {b} too close");
        }
    }
}

#[test]
fn the_path_is_measured_in_arc_length_and_turns_gently() {
    let path = HerdPath::new(3, 100.0);
    let step = path.length / PATH_SAMPLES as f32;
    let mut worst_turn = 0.0f32;
    for i in 0..PATH_SAMPLES {
        let (a, ta) = path.at(i as f32 * step, 0.0);
        let (b, tb) = path.at((i + 1) as f32 * step, 0.0);
        assert!(
            (a.distance(b) - step).abs() < 0.01 * step,
            "uneven spacing at {i}"
        );
        worst_turn = worst_turn.max(ta.angle_to(tb).abs() / step);
    }
    // Curvature at most 1 / (0.3 R): a gentle loop, no hairpins.
    assert!(
        worst_turn < 1.0 / 30.0,
        "sharpest turn radius {}",
        1.0 / worst_turn
    );
    // Closed: the end meets the start.
    assert!(path.at(path.length, 0.0).0.distance(path.at(0.0, 0.0).0) < 1e-3 * path.length);
}

#[test]
fn the_gait_mix_is_respected() {
    let herd = Herd::new(params(), 100);
    let mut counts = [0; 3];
    for k in 0..3000 {
        counts[herd.gait(k) as usize] += 1;
    }
    let share = counts.map(|c| c as f32 / 3000.0);
    assert!(
        (share[0] - 0.4).abs() < 0.05
            && (share[1] - 0.4).abs() < 0.05
            && (share[2] - 0.2).abs() < 0.05,
        "{share:?}"
    );
    let mut only_walk = params();
    only_walk.mix = [1.0, 0.0, 0.0];
    let herd = Herd::new(only_walk, 100);
    assert!((0..100).all(|k| herd.gait(k) == Gait::Walk));
}

/// Horse 0's distance over `frames` frames `dt` apart from `start` (herd
/// seconds): continuous, never backwards, and at the gait's speed once a
/// crossfade is over.
fn check_speed(start: f64, frames: u32, dt: f64) {
    let mut herd = Herd::new(params(), 100);
    let mut last: Option<f64> = None;
    let lag = -herd.slot(0).y / params().lag_speed;
    for f in 0..frames {
        let t = start + f as f64 * dt;
        let table = herd.table(t);
        // Horse 0 sees the schedule shifted by its lag.
        let h = herd.instance(&table, 0, t);
        if let Some(prev) = last {
            let v = ((h.distance - prev) / dt) as f32;
            assert!((-1e-3..=8.5 * 1.01).contains(&v), "speed {v} at {t}");
            let tau = t - lag as f64;
            let k = (tau / 6.0).floor();
            let local = tau - k * 6.0;
            if local > 0.3 {
                let g = herd.gait(k as i64);
                let expected = params().speeds[g as usize];
                assert!(
                    (v - expected).abs() < 0.05,
                    "at {t}: {v} vs {expected} ({g:?})"
                );
                assert_eq!(h.clip, params().clips[g as usize]);
                assert_eq!(h.weight, 1.0);
            }
        }
        last = Some(h.distance);
    }
}

#[test]
fn distance_is_continuous_and_speed_follows_the_gait() {
    check_speed(0.0, 60 * 90, 1.0 / 60.0);
}

/// At day 30 the herd moves as smoothly as at second 3: 300 frames a
/// second over two gait changes (an f32 herd time moves in 0.25 s steps).
#[test]
fn at_day_30_speed_still_follows_the_gait_frame_by_frame() {
    check_speed(30.0 * 86_400.0 + 0.1, 300 * 13, 1.0 / 300.0);
}

/// Horse `index` at herd time `t` straight from the pure functions in f64:
/// the distance summed over the schedule, the place on the path at that
/// distance modulo its length.
fn reference(herd: &mut Herd, index: u32, t: f64) -> (f64, Vec2) {
    let slot = herd.slot(index);
    let max_lag = herd.max_lag();
    let lag = (-slot.y / herd.params.lag_speed).clamp(-max_lag, max_lag);
    let tau = t - lag as f64;
    let seg = herd.params.segment as f64;
    let k = (tau / seg).floor();
    let local = (tau - k * seg) as f32;
    let distance = herd.start_distance(k as i64) + herd.within(k as i64, local) as f64;
    let along = (distance + slot.y as f64).rem_euclid(herd.path.length as f64);
    (distance, herd.path.at(along as f32, slot.x).0)
}

/// The table's relative times and distances put every horse where the f64
/// pure functions do, at second 3 as at day 30 and a year.
#[test]
fn horses_are_where_the_f64_pure_functions_say_at_any_uptime() {
    let mut herd = Herd::new(params(), 300);
    for t in [
        3.0,
        14.3,
        2_592_000.0,
        2_592_000.0 + 7.77,
        31_536_000.0 + 1.9,
    ] {
        let table = herd.table(t);
        for i in (0..300).step_by(7) {
            let h = herd.instance(&table, i, t);
            let (distance, position) = reference(&mut herd, i, t);
            assert!(
                (h.distance - distance).abs() < 1e-3,
                "t {t} horse {i}: distance {} vs {distance}",
                h.distance
            );
            assert!(
                h.position.distance(position) < 1e-3 * params().spacing,
                "t {t} horse {i}: {} vs {position}",
                h.position
            );
        }
    }
}

#[test]
fn the_table_gives_the_same_horse_whatever_frame_it_was_made_for() {
    let mut herd = Herd::new(params(), 500);
    for &t in &[0.1f64, 5.9, 6.1, 37.0, 200.0, 2_592_000.3] {
        let table = herd.table(t);
        let shifted = herd.table(t + 0.5);
        for i in [0u32, 7, 99, 499] {
            let a = herd.instance(&table, i, t);
            let b = herd.instance(&shifted, i, t);
            assert!((a.distance - b.distance).abs() < 1e-3, "horse {i} at {t}");
            assert_eq!((a.clip, a.previous), (b.clip, b.previous));
        }
    }
}

/// A band's horses stand clear of each other (their boxes at the largest
/// scale, heading along the path) at every count from 2 to 20 and at some
/// up to the largest band, yet closer than the spiral would put them: they
/// run together as a herd does.
#[test]
fn bands_stand_clear_and_close() {
    let s = params().spacing;
    assert!(band_slots(1, FOOTPRINT).is_empty());
    assert!(band_slots(BAND_MAX + 1, FOOTPRINT).is_empty());
    assert_eq!(
        (1..=20).map(band_lanes).collect::<Vec<_>>(),
        [1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3]
    );
    let ahead = Vec2::Y;
    for count in (2..=20).chain([33, 64, 101, BAND_MAX - 1, BAND_MAX]) {
        let slots = band_slots(count, FOOTPRINT);
        assert_eq!(slots.len(), count as usize);
        for (i, a) in slots.iter().enumerate() {
            for b in &slots[i + 1..] {
                assert!(
                    !boxes_overlap((*a, ahead), (*b, ahead)),
                    "{count} horses: slots {a} and {b} overlap"
                );
            }
        }
        // Each horse has a neighbour within two body widths across and a
        // body length along: the band is close, not merely clear.
        for (i, a) in slots.iter().enumerate() {
            let near = slots.iter().enumerate().any(|(j, b)| {
                let d = (*a - *b).abs();
                i != j && d.x < 2.0 * FOOTPRINT.x && d.y < 1.2 * FOOTPRINT.y
            });
            assert!(near, "{count} horses: slot {a} runs alone");
        }
        // The band's box is centred on the herd's centre.
        let (lo, hi) = Herd::new(params(), count).slot_box(count);
        let mid = (lo + hi) * 0.5;
        assert!(mid.length() < 0.2 * s, "{count} horses: centred at {mid}");
        // Its area per horse is well under the spiral's.
        let area = |(lo, hi): (Vec2, Vec2)| {
            let e = hi - lo + FOOTPRINT;
            e.x * e.y
        };
        let spiral = (0..count).map(|i| formation_slot(i, s)).fold(
            (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)),
            |(lo, hi), p| (lo.min(p), hi.max(p)),
        );
        assert!(
            area((lo, hi)) < 0.5 * area(spiral),
            "{count} horses: band {} vs spiral {}",
            area((lo, hi)),
            area(spiral)
        );
    }
    // 20 horses: three lanes, front row first, alternate rows half a lane
    // apart.
    let band = band_slots(20, FOOTPRINT);
    let step = band_step(FOOTPRINT);
    assert!(band[0].y > band[3].y + 0.8 * step.y && band[3].y > band[6].y + 0.8 * step.y);
    let offset = (band[3].x - band[0].x).abs();
    assert!(
        (offset - 0.5 * step.x).abs() < 0.2 * step.x,
        "rows are {offset} apart across, lanes {}",
        step.x
    );
}

#[test]
fn horses_never_run_into_each_other() {
    // Bands of 3, 20 and 150, and a spiral.
    for count in [3, 20, 150, BAND_MAX + 50] {
        let mut herd = Herd::new(params(), count);
        for f in 0..400 {
            let t = f as f64 * 0.15;
            let table = herd.table(t);
            let p: Vec<(Vec2, Vec2)> = (0..count)
                .map(|i| {
                    let h = herd.instance(&table, i, t);
                    (h.position, h.forward)
                })
                .collect();
            // Slots stand clear (the formation tests); gait changes only
            // stretch the herd, so over the run no two boxes meet.
            for (i, a) in p.iter().enumerate() {
                for (j, b) in p.iter().enumerate().skip(i + 1) {
                    assert!(
                        !boxes_overlap(*a, *b),
                        "{count} horses at {t} s: {i} at {} and {j} at {} collide",
                        a.0,
                        b.0
                    );
                }
            }
        }
    }
}

/// The start distances come out the same whatever order they are asked in
/// (forward, backward, across checkpoints) as the plain running sum from
/// segment 0, and the herd keeps one checkpoint per 4,096 segments.
#[test]
fn start_distances_match_the_running_sum_in_any_order() {
    let mut herd = Herd::new(params(), 40);
    let seg = herd.params.segment;
    let n = 3 * CHECKPOINT_SEGMENTS + 100;
    let mut sum = vec![0.0f64];
    for j in 0..n {
        let next = sum[j as usize] + herd.within(j, seg) as f64;
        sum.push(next);
    }
    let order = [
        5,
        4,
        n,
        17,
        CHECKPOINT_SEGMENTS - 1,
        CHECKPOINT_SEGMENTS,
        CHECKPOINT_SEGMENTS + 1,
        2 * CHECKPOINT_SEGMENTS + 7,
        1,
        n - 1,
        0,
        -3,
    ];
    for k in order {
        let expected = if k <= 0 { 0.0 } else { sum[k as usize] };
        assert_eq!(herd.start_distance(k), expected, "segment {k}");
    }
    assert_eq!(herd.checkpoints.len() as i64, n / CHECKPOINT_SEGMENTS + 1);
}
