//! Joint hierarchy, rest pose and forward kinematics for the procedural rigs.
//!
//! Rest rotations are identity, so a joint's rest world transform is a pure
//! translation and its inverse bind matrix is the opposite translation.

use glam::{Mat4, Quat, Vec3};

/// One joint: a glTF node with a parent and a rest transform.
#[derive(Clone, Debug)]
pub struct Joint {
    pub name: String,
    pub parent: Option<usize>,
    /// Rest translation relative to the parent.
    pub translation: Vec3,
    /// Rest rotation relative to the parent (identity for every rig here).
    pub rotation: Quat,
}

/// Joints in an order where every parent comes before its children.
#[derive(Clone, Debug, Default)]
pub struct Skeleton {
    joints: Vec<Joint>,
}

/// Local joint rotations plus an offset added to the root's rest translation.
#[derive(Clone, Debug)]
pub struct Pose {
    pub rotations: Vec<Quat>,
    pub root_offset: Vec3,
}

impl Pose {
    /// The bind pose of `skeleton`.
    pub fn rest(skeleton: &Skeleton) -> Self {
        Self {
            rotations: vec![Quat::IDENTITY; skeleton.len()],
            root_offset: Vec3::ZERO,
        }
    }

    /// Multiplies a local rotation onto joint `joint` (after the current one).
    pub fn rotate(&mut self, joint: usize, rotation: Quat) {
        if let Some(r) = self.rotations.get_mut(joint) {
            *r = (*r * rotation).normalize();
        }
    }
}

impl Skeleton {
    /// Adds a joint whose rest position is `world` (model space) and returns
    /// its index. `parent` must be an index returned earlier.
    pub fn add(&mut self, name: &str, parent: Option<usize>, world: Vec3) -> usize {
        let parent = parent.filter(|&p| p < self.joints.len());
        let parent_world = parent.map_or(Vec3::ZERO, |p| self.rest_position(p));
        self.joints.push(Joint {
            name: name.to_owned(),
            parent,
            translation: world - parent_world,
            rotation: Quat::IDENTITY,
        });
        self.joints.len() - 1
    }

    pub fn len(&self) -> usize {
        self.joints.len()
    }

    pub fn joints(&self) -> &[Joint] {
        &self.joints
    }

    pub fn children(&self, joint: usize) -> impl Iterator<Item = usize> + '_ {
        self.joints
            .iter()
            .enumerate()
            .filter(move |(_, j)| j.parent == Some(joint))
            .map(|(i, _)| i)
    }

    pub fn roots(&self) -> impl Iterator<Item = usize> + '_ {
        self.joints
            .iter()
            .enumerate()
            .filter(|(_, j)| j.parent.is_none())
            .map(|(i, _)| i)
    }

    /// Rest position of a joint in model space.
    pub fn rest_position(&self, joint: usize) -> Vec3 {
        self.rest_world()
            .get(joint)
            .map_or(Vec3::ZERO, |m| m.w_axis.truncate())
    }

    /// Rest world transforms, computed exactly as a glTF reader would.
    pub fn rest_world(&self) -> Vec<Mat4> {
        self.world(&Pose::rest(self))
    }

    /// Inverses of the rest world transforms, in joint order.
    pub fn inverse_bind_matrices(&self) -> Vec<Mat4> {
        self.rest_world().iter().map(Mat4::inverse).collect()
    }

    /// World transforms of every joint for `pose` (forward kinematics).
    pub fn world(&self, pose: &Pose) -> Vec<Mat4> {
        let mut world: Vec<Mat4> = Vec::with_capacity(self.joints.len());
        for (index, joint) in self.joints.iter().enumerate() {
            let animated = pose.rotations.get(index).copied().unwrap_or(Quat::IDENTITY);
            let mut translation = joint.translation;
            if joint.parent.is_none() {
                translation += pose.root_offset;
            }
            let local = Mat4::from_rotation_translation(
                (joint.rotation * animated).normalize(),
                translation,
            );
            let parent = joint.parent.and_then(|p| world.get(p)).copied();
            world.push(parent.map_or(local, |p| p * local));
        }
        world
    }
}
