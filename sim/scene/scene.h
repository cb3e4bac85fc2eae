// The scene description: what a scene file says, fully resolved (files loaded,
// pin selectors turned into vertex ids). World builds model, state and
// obstacles from it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/model/cloth_model.h"
#include "sim/scene/environment.h"
#include "sim/scene/shape.h"

namespace cb {

enum class MotionKind { Static, Oscillate, Rotate, Keyframes };

/// Kinematic motion of an obstacle; evaluated at time t (s) it gives a transform
/// applied after the obstacle's own placement (or, for Keyframes, the vertices).
struct Motion {
  MotionKind kind = MotionKind::Static;
  Vec3f direction{1, 0, 0};  ///< Oscillate: offset = direction * amplitude * sin(2 pi t / period)
  float amplitude = 0;       ///< m
  float period = 1;          ///< s
  Vec3f axis{0, 1, 0};       ///< Rotate: unit axis through `pivot`
  Vec3f pivot{0, 0, 0};      ///< m
  float angular_velocity = 0;  ///< rad/s
  float start_time = 0;      ///< s, motion starts (is held at t=start_time before)
  // Keyframes: vertex positions of each frame, frame_time seconds apart, linearly
  // interpolated; after the last frame it loops or holds.
  std::vector<std::vector<Vec3f>> frames;
  float frame_time = 0.04f;  ///< s
  bool loop = true;
};

enum class ObstacleKind { Plane, Sphere, Box, Capsule, Mesh };

struct ObstacleSpec {
  std::string name;
  ObstacleKind kind = ObstacleKind::Plane;
  Transform pose;            ///< placement (local -> world) at rest
  float scale = 1.f;         ///< Mesh: uniform scale applied before pose
  float radius = 0.5f;       ///< m, Sphere/Capsule
  float half_length = 0.5f;  ///< m, Capsule
  Vec3f half_extents{0.5f, 0.5f, 0.5f};  ///< m, Box
  float friction = 0.3f;
  TriMesh mesh;              ///< Mesh: local-space mesh (frames replace its positions)
  Motion motion;
};

struct ClothSpec {
  std::string name;
  TriMesh mesh;                  ///< placed in world space
  Material material;
  GridInfo grid;                 ///< generated grids only
  std::vector<uint32_t> pinned;  ///< local vertex ids, sorted, unique
};

struct CameraSpec {
  Vec3f eye{0, 1.2f, 3.f};
  Vec3f target{0, 0.5f, 0};
  float fov_deg = 45.f;
};

struct SceneSpec {
  std::string path;      ///< the file it came from ("" for scenes built in code)
  std::string title;
  std::vector<ClothSpec> cloths;
  std::vector<ObstacleSpec> obstacles;
  Environment env;
  std::string solver;    ///< registry name ("" = the first registered)
  std::map<std::string, std::string> solver_params;  ///< name -> text value
  /// The parameters the scene gives other solvers, applied when the user
  /// switches to one (solver -> name -> text value): a scene made for one
  /// method can say what another needs on it (kick_skirt.json: Verlet's sub-steps).
  std::map<std::string, std::map<std::string, std::string>> params_of;
  float dt = 1.f / 60;   ///< s, frame time step
  int substeps = 4;
  bool self_collision = true;
  CameraSpec camera;
  std::vector<std::string> warnings;  ///< unknown keys, suspicious meshes
};

/// Reads a scene JSON file (see scenes/README.md). Throws cb::Error naming the
/// file, the JSON path and what was expected; warnings land in the result.
SceneSpec load_scene(const std::string& path);

/// A scene with one OBJ cloth dropped above a ground plane (what the app does
/// when handed a bare .obj file).
SceneSpec scene_from_obj(const std::string& obj_path);

/// Makes `name` the scene's solver (--solver, the app's solver choice): the
/// parameters the scene gives its solver move to params_of, and those it gives
/// `name`, if any, become solver_params.
void use_solver(SceneSpec& s, const std::string& name);

/// The cloth inputs for build_cloth_model, in scene order.
std::vector<ClothInput> cloth_inputs(const SceneSpec& s);

}  // namespace cb
