#include "support/test_support.h"

#include <array>
#include <cstdio>
#include <sys/stat.h>
#include <sys/wait.h>

#include "sim/model/grid.h"

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
