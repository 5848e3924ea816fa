//! The ring tracks the ground draws: one for each model whose crowd gallops
//! around its own field (a model on the track), at that field's centre and
//! radius. A scene of several ground models draws one ring per field; a
//! model that joins the herd drops its ring while behaviour is on (the herd
//! roams the open field instead).

use super::Motion;
use super::scene::{CrowdModelGpu, JOINS_HERD, MAX_SCENE_MODELS};
use bytemuck::{Pod, Zeroable};

/// The ground's rings. Mirrors `GroundTracks` in shaders/ground.wgsl
/// (tests/gpu_layout.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct GroundTracksGpu {
    /// The rings in use, from the first.
    pub count: u32,
    pub _pad: [u32; 3],
    /// Each ring: its centre (x, z on the ground), its field's radius, and
    /// 1 when its model joins the herd with behaviour on (0: it keeps its
    /// track whatever the behaviour).
    pub rings: [[f32; 4]; MAX_SCENE_MODELS],
}
const _: () = assert!(std::mem::size_of::<GroundTracksGpu>() == 16 + 16 * MAX_SCENE_MODELS);

impl GroundTracksGpu {
    /// The rings of the model table `table`: every model on the track, in
    /// the table's order.
    pub fn from_table(table: &[CrowdModelGpu]) -> Self {
        let mut tracks = Self::default();
        let on_track = table
            .iter()
            .take(MAX_SCENE_MODELS)
            .filter(|e| e.count > 0 && e.motion == Motion::Track as u32);
        for e in on_track {
            tracks.rings[tracks.count as usize] = [
                e.offset[0],
                e.offset[1],
                e.field_radius,
                (e.joins == JOINS_HERD) as u32 as f32,
            ];
            tracks.count += 1;
        }
        tracks
    }

    /// The rings the ground draws this frame (`behaviour`: the living
    /// crowd is on): those of the models that keep their track. The twin of
    /// the test in `ground_color` (ground.wgsl).
    pub fn drawn(&self, behaviour: bool) -> impl Iterator<Item = &[f32; 4]> {
        self.rings[..self.count as usize]
            .iter()
            .filter(move |r| !behaviour || r[3] == 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crowd::scene::{JOINS_FLOCK, JOINS_NOTHING};

    fn entry(motion: Motion, offset: [f32; 2], radius: f32, joins: u32) -> CrowdModelGpu {
        CrowdModelGpu {
            count: 10,
            motion: motion as u32,
            offset,
            field_radius: radius,
            joins,
            ..Default::default()
        }
    }

    #[test]
    fn one_ring_per_track_field_at_its_centre() {
        let table = [
            entry(Motion::Track, [-30.0, 0.0], 20.0, JOINS_HERD),
            entry(Motion::Flock, [0.0, 0.0], 40.0, JOINS_FLOCK),
            entry(Motion::Stand, [10.0, 0.0], 5.0, JOINS_NOTHING),
            entry(Motion::Track, [40.0, 0.0], 25.0, JOINS_NOTHING),
        ];
        let tracks = GroundTracksGpu::from_table(&table);
        assert_eq!(tracks.count, 2);
        assert_eq!(tracks.rings[0], [-30.0, 0.0, 20.0, 1.0]);
        assert_eq!(tracks.rings[1], [40.0, 0.0, 25.0, 0.0]);
        // Behaviour off: both tracks; on: the herd's field roams, the other
        // model keeps its track.
        assert_eq!(tracks.drawn(false).count(), 2);
        let living: Vec<_> = tracks.drawn(true).collect();
        assert_eq!(living, [&[40.0, 0.0, 25.0, 0.0]]);
    }

    #[test]
    fn a_flock_or_a_standing_crowd_has_no_ring() {
        let table = [
            entry(Motion::Flock, [0.0, 0.0], 40.0, JOINS_FLOCK),
            entry(Motion::Stand, [0.0, 0.0], 5.0, JOINS_NOTHING),
        ];
        assert_eq!(GroundTracksGpu::from_table(&table).count, 0);
        assert_eq!(GroundTracksGpu::from_table(&[]).count, 0);
    }
}
