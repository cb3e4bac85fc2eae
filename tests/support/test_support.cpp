#include "support/test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <sys/wait.h>

#include "sim/model/grid.h"
#include "sim/world.h"

namespace cb::test {

std::string source_path(const std::string& rel) { return std::string(CLOTHBOX_SOURCE_DIR) + "/" + rel; }

std::string shared_path(const std::string& rel) {
  std::string p = std::string(CLOTHBOX_SHARED_DIR) + "/" + rel;
  struct stat st;
  return stat(p.c_str(), &st) == 0 ? p : std::string();
}

bool cuda_context(Context* out) {
  if (cuda_device_count() == 0) return false;
  *out = make_context(BackendRequest::Cuda);
  return true;
}

std::vector<Context> backends() {
  std::vector<Context> b{Context{}};
  Context c;
  if (cuda_context(&c)) b.push_back(c);
  return b;
}

std::string write_grid_obj(const std::string& name, int n, float size) {
  const std::string path = std::filesystem::temp_directory_path().string() + "/clothbox_" + name + ".obj";
  std::ofstream f(path);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) f << "v " << size * float(i) / float(n - 1) << " 0 " << size * float(j) / float(n - 1) << "\n";
  for (int j = 0; j + 1 < n; ++j)
    for (int i = 0; i + 1 < n; ++i) {
      const int a = j * n + i + 1, b = a + 1, c = a + n, d = c + 1;
      f << "f " << a << " " << c << " " << b << "\nf " << b << " " << c << " " << d << "\n";
    }
  return path;
}

TriMesh box_mesh(Vec3f lo, Vec3f hi) {
  TriMesh m;
  for (int i = 0; i < 8; ++i)
    m.positions.push_back(Vec3f((i & 1) ? hi.x : lo.x, (i & 2) ? hi.y : lo.y, (i & 4) ? hi.z : lo.z));
  const int q[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  for (const auto& f : q) {
    m.tris.push_back(Int3{f[0], f[1], f[2]});
    m.tris.push_back(Int3{f[0], f[2], f[3]});
  }
  return m;
}

SceneSpec grid_scene(int nx, int ny, float width, float height, float y) {
  SceneSpec s;
  s.path = "test-grid";
  ClothSpec c;
  c.name = "sheet";
  GridSpec g;
  g.nx = nx;
  g.ny = ny;
  g.width = width;
  g.height = height;
  c.mesh = make_grid(g);
  for (Vec3f& p : c.mesh.positions) p = Vec3f{p.x, y, -p.y};  // xy plane -> horizontal, normal +y
  c.grid.layout = GridLayout::Quad;
  c.grid.nx = nx;
  c.grid.ny = ny;
  c.grid.spacing = grid_spacing(g);
  s.cloths.push_back(c);
  return s;
}

SceneSpec circle_skirt_over_ball() {
  const int rings = 12;
  const float inner = 0.107f, outer = 0.353f;
  ClothSpec skirt;
  skirt.name = "skirt";
  for (int j = 0; j < rings; ++j)
    for (int k = 0; k < kSkirtAround; ++k) {
      const float r = inner + (outer - inner) * float(j) / float(rings - 1);
      const float a = 6.2831853f * float(k) / float(kSkirtAround);
      skirt.mesh.positions.push_back({r * std::cos(a), 0.975f, r * std::sin(a)});
    }
  for (int j = 0; j + 1 < rings; ++j)
    for (int k = 0; k < kSkirtAround; ++k) {
      const int a = j * kSkirtAround + k, b = j * kSkirtAround + (k + 1) % kSkirtAround;
      skirt.mesh.tris.push_back({a, b, b + kSkirtAround});
      skirt.mesh.tris.push_back({a, b + kSkirtAround, a + kSkirtAround});
    }
  skirt.material.density = 0.15f;
  SceneSpec s;
  s.path = "test-skirt";
  s.dt = 0.01f;
  s.cloths.push_back(skirt);
  ObstacleSpec ball, ground;
  ball.kind = ObstacleKind::Sphere;
  ball.radius = 0.15f;
  ball.pose.t = Vec3f{0, kSkirtBallCentre, 0};
  ground.kind = ObstacleKind::Plane;
  s.obstacles = {ball, ground};
  return s;
}

std::vector<uint32_t> highest_vertices(const World& w) {
  float top = -1e30f;
  for (const Vec3f& p : w.positions()) top = std::max(top, p.y);
  std::vector<uint32_t> ids;
  for (size_t i = 0; i < w.positions().size(); ++i)
    if (w.positions()[i].y > top - 1e-4f) ids.push_back(uint32_t(i));
  return ids;
}

std::vector<uint32_t> circle_skirt_waistband() {
  std::vector<uint32_t> ids(kSkirtAround);
  for (int k = 0; k < kSkirtAround; ++k) ids[size_t(k)] = uint32_t(k);
  return ids;
}

float mean_height(const World& w, const std::vector<uint32_t>& ids) {
  float y = 0.f;
  for (uint32_t i : ids) y += w.positions()[i].y;
  return ids.empty() ? 0.f : y / float(ids.size());
}

ObstacleSpec mesh_floor() {
  ObstacleSpec floor;
  floor.kind = ObstacleKind::Mesh;
  floor.mesh.positions = {{-1, 0, -1}, {1, 0, -1}, {1, 0, 1}, {-1, 0, 1}};
  floor.mesh.tris = {{0, 2, 1}, {0, 3, 2}};
  return floor;
}

ObstacleSpec mesh_paddle(Vec3f centre, float period) {
  ObstacleSpec paddle;
  paddle.kind = ObstacleKind::Mesh;
  paddle.mesh.positions = {{-0.2f, -0.2f, 0}, {0.2f, -0.2f, 0}, {0.2f, 0.2f, 0}, {-0.2f, 0.2f, 0}};
  paddle.mesh.tris = {{0, 1, 2}, {0, 2, 3}};
  paddle.pose.t = centre;
  paddle.motion.kind = MotionKind::Oscillate;
  paddle.motion.direction = Vec3f(0, 0, 1);
  paddle.motion.amplitude = 0.4f;
  paddle.motion.period = period;
  return paddle;
}

ObstacleSpec mesh_ball(Vec3f centre, float r, int rings, int segments) {
  ObstacleSpec ball;
  ball.kind = ObstacleKind::Mesh;
  TriMesh& m = ball.mesh;
  m.positions.push_back({0, r, 0});  // north pole, then rings 1 .. rings-1, then the south pole
  for (int i = 1; i < rings; ++i) {
    const float theta = 3.14159265f * float(i) / float(rings);
    for (int k = 0; k < segments; ++k) {
      const float phi = 6.2831853f * float(k) / float(segments);
      m.positions.push_back({r * std::sin(theta) * std::cos(phi), r * std::cos(theta), r * std::sin(theta) * std::sin(phi)});
    }
  }
  m.positions.push_back({0, -r, 0});
  const int south = int(m.positions.size()) - 1;
  const auto at = [&](int ring, int k) { return 1 + (ring - 1) * segments + (k % segments); };
  for (int k = 0; k < segments; ++k) {
    m.tris.push_back({0, at(1, k + 1), at(1, k)});
    for (int i = 1; i + 1 < rings; ++i) {
      m.tris.push_back({at(i, k), at(i, k + 1), at(i + 1, k + 1)});
      m.tris.push_back({at(i, k), at(i + 1, k + 1), at(i + 1, k)});
    }
    m.tris.push_back({south, at(rings - 1, k), at(rings - 1, k + 1)});
  }
  ball.pose.t = centre;
  return ball;
}

SceneSpec coarse_sheet_over_mesh_ball(int n, float size, float thickness, float y, float ball_r) {
  SceneSpec s = grid_scene(n, n, size, size, y);
  s.cloths[0].material.thickness = thickness;
  s.dt = 1.f / 60.f;
  s.obstacles = {mesh_ball(Vec3f{0, 0, 0}, ball_r, 24, 48)};
  s.obstacles[0].friction = 0.8f;
  return s;
}

SceneSpec coarse_sheet_over_ball(int n, float size, float thickness, float y, float ball_r) {
  SceneSpec s = coarse_sheet_over_mesh_ball(n, size, thickness, y, ball_r);
  ObstacleSpec ball;
  ball.kind = ObstacleKind::Sphere;
  ball.radius = ball_r;
  ball.friction = 0.8f;
  s.obstacles = {ball};
  return s;
}

int edges_dipping_into_ball(const World& w, Vec3f centre, float r, float* deepest) {
  int count = 0;
  float worst = 0.f;
  for (const Int2& e : w.model().topo.edges) {
    const Vec3f mid = (w.positions()[size_t(e.a)] + w.positions()[size_t(e.b)]) * 0.5f;
    const float depth = r - length(mid - centre);
    if (depth > 0.f) ++count, worst = std::max(worst, depth);
  }
  if (deepest) *deepest = worst;
  return count;
}

ObstacleSet flat_triangle(float y_prev, float y, float mu) {
  ObstacleSet o;
  o.mesh_x = {Vec3f(0, y, 0), Vec3f(1, y, 0), Vec3f(0, y, 1)};
  o.mesh_x_prev = {Vec3f(0, y_prev, 0), Vec3f(1, y_prev, 0), Vec3f(0, y_prev, 1)};
  o.mesh_tris = {Int3{0, 1, 2}};
  MeshRange r;
  r.num_vertices = 3;
  r.num_tris = 1;
  r.friction = mu;
  o.meshes = {r};
  o.mesh_version = 1;
  return o;
}

float max_distance(const std::vector<Vec3f>& a, const std::vector<Vec3f>& b) {
  float worst = 0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, length(a[i] - b[i]));
  return worst;
}

std::vector<float> divergence(World& a, World& b, int frames, const std::function<void(World&)>& before) {
  std::vector<float> d;
  for (int f = 0; f < frames; ++f) {
    for (World* w : {&a, &b}) {
      if (before) before(*w);
      w->step();
    }
    d.push_back(max_distance(a.positions(), b.positions()));
  }
  return d;
}

std::string describe_divergence(const std::vector<float>& d) {
  std::string s = "largest vertex distance per frame (m):";
  char buf[32];
  for (size_t f = 0; f < d.size(); ++f) {
    std::snprintf(buf, sizeof buf, " %zu:%.2e", f, double(d[f]));
    s += buf;
  }
  return s;
}

void expect_agreement(const std::vector<float>& d, int early_frames, float early_tol, float late_tol) {
  const std::string trace = describe_divergence(d);
  for (int f = 0; f < early_frames && f < int(d.size()); ++f) EXPECT_LT(d[size_t(f)], early_tol) << "frame " << f << "; " << trace;
  EXPECT_LT(*std::max_element(d.begin(), d.end()), late_tol) << trace;
}

int run_command(const std::string& cmd, std::string* output) {
  std::string full = cmd + " 2>&1";
  FILE* p = popen(full.c_str(), "r");
  if (!p) return -1;
  std::array<char, 4096> buf;
  output->clear();
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) output->append(buf.data(), n);
  int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace cb::test
