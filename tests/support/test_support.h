// Helpers shared by the tests: paths, backends to test, small scenes built in code.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sim/core/backend.h"
#include "sim/scene/obstacle_set.h"
#include "sim/scene/scene.h"

namespace cb {
class World;
}
namespace cb::test {

/// Absolute path of a file in the source tree ("scenes/hanging_sheet.json").
std::string source_path(const std::string& rel);
/// Absolute path in ../shared ("data/ccd"); "" when the folder is absent.
std::string shared_path(const std::string& rel);
/// The backends this machine can run: always Cpu; Cuda where a device answers.
std::vector<Context> backends();
/// A context on the CUDA backend, or false when none answers (tests then skip).
bool cuda_context(Context* out);
/// A scene with one quad grid (nx x ny, width x height m) lying in the xz plane at
/// height y (m), no obstacles, gravity -9.81 y.
SceneSpec grid_scene(int nx, int ny, float width, float height, float y);
/// A circle skirt, an annulus of kSkirtAround x 12 vertices (waistband 0.67 m
/// round: its first kSkirtAround vertices, at y 0.975 m; hem 2.2 m), 0.15
/// kg/m^2, above a ball of radius 0.15 m centred at y = kSkirtBallCentre (0.94
/// m round) and the ground; dt 0.01 s.
constexpr int kSkirtAround = 128;
constexpr float kSkirtBallCentre = 0.8f;
SceneSpec circle_skirt_over_ball();
/// Its waistband's vertex ids.
std::vector<uint32_t> circle_skirt_waistband();
/// The vertices of w within 0.1 mm of its highest (a garment's waistband at the start).
std::vector<uint32_t> highest_vertices(const World& w);
/// Mean height (m) of the vertices `ids` of w.
float mean_height(const World& w, const std::vector<uint32_t>& ids);
/// A 2 m square mesh obstacle of two triangles at y = 0, normal +y.
ObstacleSpec mesh_floor();
/// A 0.4 m square mesh paddle in the xy plane, centred at `centre` (m) at rest,
/// swinging along z: offset 0.4 sin(2 pi t / period) m (at most 2.5 / period m/s).
ObstacleSpec mesh_paddle(Vec3f centre, float period);
/// A ball of radius r (m) centred at `centre` as a still mesh obstacle: a UV
/// sphere of `rings` latitude bands and `segments` longitudes, counter-clockwise
/// seen from outside.
ObstacleSpec mesh_ball(Vec3f centre, float r, int rings, int segments);
/// A horizontal quad sheet of n x n vertices, `size` m square (edges size /
/// (n - 1)), thickness `thickness` m, centred over x = z = 0 at height y, over a
/// still mesh ball of radius `ball_r` centred at the origin (mesh_ball, 24 x 48,
/// friction 0.8);
/// dt 1/60 s.
SceneSpec coarse_sheet_over_mesh_ball(int n, float size, float thickness, float y, float ball_r);
/// The same sheet over an analytic sphere of radius `ball_r` at the origin
/// (friction 0.8) instead of the mesh ball.
SceneSpec coarse_sheet_over_ball(int n, float size, float thickness, float y, float ball_r);
/// How many of w's cloth edges have their middle inside the ball of radius r
/// centred at `centre` (m), and the deepest such middle's depth (m, 0: none).
int edges_dipping_into_ball(const World& w, Vec3f centre, float r, float* deepest = nullptr);
/// An obstacle soup of one triangle (0,y,0) (1,y,0) (0,y,1), face normal -y, at
/// height y_prev at the start of the frame and y at its end, with friction mu.
ObstacleSet flat_triangle(float y_prev, float y, float mu);
/// A closed box [lo, hi] (m): 8 vertices, 12 triangles counter-clockwise seen
/// from outside (outward normals).
TriMesh box_mesh(Vec3f lo, Vec3f hi);
/// Writes an n x n grid of `size` m square (edges size / (n - 1)), flat in xz,
/// as an OBJ named `name` in the system's temporary folder; returns its path.
std::string write_grid_obj(const std::string& name, int n, float size);
/// The largest distance (m) between the same vertex in `a` and `b` (same size).
float max_distance(const std::vector<Vec3f>& a, const std::vector<Vec3f>& b);
/// Steps worlds `a` and `b` (same scene, e.g. CPU and CUDA) `frames` times, calling
/// `before(world)` ahead of each step; returns the largest vertex distance (m)
/// between them after each frame.
std::vector<float> divergence(World& a, World& b, int frames, const std::function<void(World&)>& before = {});
/// "f0: d0, f1: d1, ..." for a failure message.
std::string describe_divergence(const std::vector<float>& d);
/// Two backends run the same algorithm when their trajectories agree to rounding
/// (`early_tol`, m) over the first `early_frames` frames; contacts and folds then
/// amplify the rounding differences (fused multiply-adds on the device, summation
/// order) exponentially, so later frames only have to agree to `late_tol` (m),
/// which still catches a missing force or contact.
void expect_agreement(const std::vector<float>& d, int early_frames, float early_tol, float late_tol);
/// Runs `cmd` through the shell; returns the exit status and fills `output`
/// with stdout+stderr.
int run_command(const std::string& cmd, std::string* output);

}  // namespace cb::test

/// Skips the current test when the shared data folder is missing.
#define CB_REQUIRE_SHARED(rel)                                                \
  do {                                                                        \
    if (::cb::test::shared_path(rel).empty()) GTEST_SKIP() << "no ../shared/" << rel; \
  } while (0)
