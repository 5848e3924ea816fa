//! Axis-aligned bounding boxes.

use glam::Vec3;

/// An axis-aligned box. `Aabb::EMPTY` contains nothing and grows with `add`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Aabb {
    pub min: Vec3,
    pub max: Vec3,
}

impl Aabb {
    pub const EMPTY: Self = Self {
        min: Vec3::splat(f32::INFINITY),
        max: Vec3::splat(f32::NEG_INFINITY),
    };

    pub fn from_points(points: impl IntoIterator<Item = Vec3>) -> Self {
        let mut b = Self::EMPTY;
        for p in points {
            b.add(p);
        }
        b
    }

    pub fn add(&mut self, p: Vec3) {
        self.min = self.min.min(p);
        self.max = self.max.max(p);
    }

    pub fn union(&self, other: &Self) -> Self {
        Self {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.min.cmpgt(self.max).any()
    }

    pub fn size(&self) -> Vec3 {
        if self.is_empty() {
            Vec3::ZERO
        } else {
            self.max - self.min
        }
    }

    pub fn center(&self) -> Vec3 {
        if self.is_empty() {
            Vec3::ZERO
        } else {
            (self.min + self.max) * 0.5
        }
    }

    /// The sphere around the box: its centre and half its diagonal.
    pub fn sphere(&self) -> (Vec3, f32) {
        (self.center(), self.diagonal() * 0.5)
    }

    /// Length of the diagonal: the model's "size" in error reports.
    pub fn diagonal(&self) -> f32 {
        self.size().length()
    }
}
