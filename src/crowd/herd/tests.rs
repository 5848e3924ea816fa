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
        lag_speed: 12.0,
    }
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
    for f in 0..frames {
        let t = start + f as f64 * dt;
        let table = herd.table(t);
        // Horse 0 sits near the centre: it sees the schedule shifted by its
        // small lag.
        let h = herd.instance(&table, 0, t);
        let lag = -formation_slot(0, params().spacing).y / params().lag_speed;
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
    let slot = formation_slot(index, herd.params.spacing);
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

/// A small herd runs closer together, yet every pair of slots still keeps
/// the spacing rule (a spacing along the path or 1/2.5 of one across);
/// larger herds keep the full spacing.
#[test]
fn small_herds_close_up_within_the_spacing_rule() {
    let s = 3.2;
    assert_eq!(formation_spacing(s, 1), s);
    assert_eq!(formation_spacing(s, SMALL_HERD + 1), s);
    for count in 2..=SMALL_HERD {
        let compact = formation_spacing(s, count);
        assert!(compact <= s, "{count}: {compact}");
        let slots: Vec<Vec2> = (0..count).map(|i| formation_slot(i, compact)).collect();
        for (i, a) in slots.iter().enumerate() {
            for b in &slots[i + 1..] {
                let d = *a - *b;
                assert!(
                    d.y.abs() >= s || d.x.abs() >= s / 2.5,
                    "{count} horses: slots {a} and {b} break the rule at spacing {s}"
                );
            }
        }
    }
    // Two or three horses would otherwise run two to three spacings apart.
    assert!(formation_spacing(s, 3) < 0.6 * s);
}

#[test]
fn horses_never_run_into_each_other() {
    // Small herds (closed up) and a large one.
    for count in [3, 20, 150] {
        let mut herd = Herd::new(params(), count);
        let mut closest = f32::INFINITY;
        for f in 0..400 {
            let t = f as f64 * 0.15;
            let table = herd.table(t);
            let p: Vec<Vec2> = (0..count)
                .map(|i| herd.instance(&table, i, t).position)
                .collect();
            for (i, a) in p.iter().enumerate() {
                for b in &p[i + 1..] {
                    closest = closest.min(a.distance(*b));
                }
            }
        }
        // Slots are a spacing apart along the path or 1/2.5 of it across
        // (the formation tests); gait changes only stretch the herd, so
        // over the run no pair comes closer than the formation allows.
        assert!(
            closest > 0.4 * params().spacing,
            "{count} horses: closest pair {closest}"
        );
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
