// clothbox-cli check: counts intersecting triangle pairs in OBJ files (exact
// triangle–triangle test; triangles sharing a vertex are not counted). Connected
// components are the cloth pieces; --cloth-vertices K makes vertices K.. an obstacle.
#include <chrono>
#include <cstdio>
#include <string>

#include "app/cli/args.h"
#include "app/cli/commands.h"
#include "sim/collision/penetration.h"
#include "sim/core/buffer.h"
#include "sim/core/error.h"
#include "sim/io/obj.h"

namespace cb::cli {
namespace {

// vertices [first, first + count) of m and the triangles lying wholly inside them, re-indexed
TriMesh sub_mesh(const TriMesh& m, int first, int count) {
  TriMesh s;
  s.source = m.source;
  s.positions.assign(m.positions.begin() + first, m.positions.begin() + first + count);
  for (const Int3& t : m.tris) {
    bool in_a = t.a >= first && t.a < first + count, in_b = t.b >= first && t.b < first + count;
    bool in_c = t.c >= first && t.c < first + count;
    if (in_a && in_b && in_c) s.tris.push_back(Int3{t.a - first, t.b - first, t.c - first});
    else if (in_a || in_b || in_c) throw Error(m.source + ": a triangle joins cloth and obstacle vertices");
  }
  return s;
}

struct Parts {
  TriMesh cloth, obstacle;
  size_t welded = 0;
};

Parts load_parts(const std::string& path, long cloth_vertices, float weld) {
  TriMesh m = read_obj(path, ObjReadOptions{false, 0.f});
  int n = int(m.positions.size());
  int k = cloth_vertices < 0 || cloth_vertices > n ? n : int(cloth_vertices);
  Parts p;
  p.cloth = sub_mesh(m, 0, k);
  p.obstacle = sub_mesh(m, k, n - k);
  if (weld > 0) {
    p.welded += weld_vertices(p.cloth, weld);
    if (!p.obstacle.tris.empty()) p.welded += weld_vertices(p.obstacle, weld);
  }
  return p;
}

}  // namespace

int cmd_check(int argc, char** argv) {
  Args args(argc, argv, 0, {"strict"});
  args.allow_only({"weld", "cloth-vertices", "backend", "strict"});
  if (args.positional().empty()) throw Error("check needs at least one .obj file");
  float weld = float(args.get_double("weld", 0.0, 0.0, 1.0));
  long cloth_vertices = args.get_int("cloth-vertices", -1, 0, 1L << 30);
  Context ctx = make_context(parse_backend(args.get("backend", "auto")));
  std::printf("# exact triangle-triangle test, %s backend, weld %g m\n", backend_name(ctx.backend), double(weld));
  std::printf("%-48s %8s %8s %6s %9s %8s %8s %8s %8s %9s\n", "file", "verts", "tris", "pieces", "tested", "within",
              "between", "obstacle", "total", "ms");
  uint64_t all = 0;
  for (const std::string& path : args.positional()) {
    Parts p = load_parts(path, cloth_vertices, weld);
    std::vector<uint32_t> group = triangle_components(p.cloth.positions.size(), p.cloth.tris);
    uint32_t pieces = 0;
    for (uint32_t g : group) pieces = g + 1 > pieces ? g + 1 : pieces;
    DeviceBuffer<Vec3f> cx(ctx, p.cloth.positions), ox(ctx, p.obstacle.positions);
    DeviceBuffer<Int3> ct(ctx, p.cloth.tris), ot(ctx, p.obstacle.tris);
    DeviceBuffer<uint32_t> dg(ctx, group);
    auto t0 = std::chrono::steady_clock::now();
    IntersectionCounts c = count_intersections(ctx, TriSet{cx.data(), ct.data(), int(p.cloth.tris.size()), dg.data()},
                                               TriSet{ox.data(), ot.data(), int(p.obstacle.tris.size()), nullptr});
    double ms = 1e3 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%-48s %8zu %8zu %6u %9llu %8llu %8llu %8llu %8llu %9.1f\n", path.c_str(),
                p.cloth.positions.size() + p.obstacle.positions.size(), p.cloth.tris.size() + p.obstacle.tris.size(),
                pieces, (unsigned long long)c.candidates, (unsigned long long)c.within_cloth,
                (unsigned long long)c.between_cloths, (unsigned long long)c.cloth_obstacle,
                (unsigned long long)c.total(), ms);
    all += c.total();
  }
  return args.has("strict") && all > 0 ? 1 : 0;
}

}  // namespace cb::cli
