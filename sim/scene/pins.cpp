#include "sim/scene/pins.h"

#include "sim/core/error.h"

namespace cb {

uint32_t select_corner(const TriMesh& local, const std::string& corner) {
  Aabb b = bounds(local);
  float cx, cy;
  if (corner == "top-left") { cx = b.lo.x; cy = b.hi.y; }
  else if (corner == "top-right") { cx = b.hi.x; cy = b.hi.y; }
  else if (corner == "bottom-left") { cx = b.lo.x; cy = b.lo.y; }
  else if (corner == "bottom-right") { cx = b.hi.x; cy = b.lo.y; }
  else throw Error("unknown corner '" + corner + "' (expected top-left, top-right, bottom-left or bottom-right)");
  uint32_t best = 0;
  float best_d = 1e30f;
  for (uint32_t v = 0; v < local.positions.size(); ++v) {
    float dx = local.positions[v].x - cx, dy = local.positions[v].y - cy;
    float d = dx * dx + dy * dy;
    if (d < best_d) { best_d = d; best = v; }
  }
  return best;
}

std::vector<uint32_t> select_edge(const TriMesh& local, const std::string& side, float tolerance) {
  Aabb b = bounds(local);
  int axis;
  float value;
  if (side == "top") { axis = 1; value = b.hi.y; }
  else if (side == "bottom") { axis = 1; value = b.lo.y; }
  else if (side == "left") { axis = 0; value = b.lo.x; }
  else if (side == "right") { axis = 0; value = b.hi.x; }
  else throw Error("unknown edge '" + side + "' (expected top, bottom, left or right)");
  std::vector<uint32_t> out;
  for (uint32_t v = 0; v < local.positions.size(); ++v)
    if (std::fabs(local.positions[v][axis] - value) <= tolerance) out.push_back(v);
  return out;
}

std::vector<uint32_t> select_box(const TriMesh& world, Vec3f lo, Vec3f hi) {
  std::vector<uint32_t> out;
  for (uint32_t v = 0; v < world.positions.size(); ++v) {
    Vec3f p = world.positions[v];
    if (p.x >= lo.x && p.x <= hi.x && p.y >= lo.y && p.y <= hi.y && p.z >= lo.z && p.z <= hi.z) out.push_back(v);
  }
  return out;
}

}  // namespace cb
