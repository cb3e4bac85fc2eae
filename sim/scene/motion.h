// Kinematic obstacle motion evaluated at a time.
#pragma once

#include <vector>

#include "sim/scene/scene.h"

namespace cb {

/// Rigid transform of the motion at time t (s); identity for Static and Keyframes.
Transform motion_transform(const Motion& m, double t);

/// Keyframes: positions at time t, linearly interpolated between frames (loops or
/// holds after the last). `out` gets frames[0].size() entries.
void keyframe_positions(const Motion& m, double t, std::vector<Vec3f>& out);

/// World-space Shape of an analytic obstacle at time t.
Shape shape_at(const ObstacleSpec& o, double t);

/// World-space vertices of a mesh obstacle at time t.
void mesh_at(const ObstacleSpec& o, double t, std::vector<Vec3f>& out);

}  // namespace cb
