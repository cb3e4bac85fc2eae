// clothbox-cli info: what a scene holds (counts, colours, memory).
#include <cstdio>

#include "app/cli/commands.h"
#include "app/cli/world_setup.h"
#include "sim/model/mesh_check.h"

namespace cb::cli {

int cmd_info(int argc, char** argv) {
  Args args(argc, argv, 0);
  args.allow_only({"scene", "backend", "solver"});
  auto world = make_world(args);
  const ClothModel& m = world->model();
  const SceneSpec& s = world->scene();
  std::printf("scene      %s (%s)\n", s.path.c_str(), s.title.c_str());
  std::printf("cloths     %zu\n", m.pieces.size());
  for (const ClothPiece& p : m.pieces)
    std::printf("  %-16s %u vertices, %u triangles%s%s\n", p.name.c_str(), p.num_vertices, p.num_tris,
                p.grid.layout != GridLayout::None ? ", grid " : "",
                p.grid.layout != GridLayout::None ? grid_layout_name(p.grid.layout) : "");
  std::printf("vertices   %zu\ntriangles  %zu\nedges      %zu (boundary %zu)\nbend pairs %zu\n", m.num_vertices(),
              m.num_tris(), m.num_edges(), m.topo.boundary_edges.size(), m.topo.bends.size());
  std::printf("colours    edges %d, bend pairs %d\n", m.edge_coloring.num_colors(), m.bend_coloring.num_colors());
  std::printf("pinned     %zu\n", world->pinned_vertices().size());
  std::printf("obstacles  %zu (%zu mesh triangles)\n", s.obstacles.size(), world->obstacles().mesh_tris.size());
  std::printf("solver     %s\n", world->solver_name().c_str());
  std::printf("memory     model %.2f MiB (host), state %.2f MiB (%s)\n", model_bytes(m) / 1048576.0,
              (world->state().x.bytes() * 3 + world->state().inv_mass.bytes()) / 1048576.0,
              backend_name(world->context().backend));
  return 0;
}

}  // namespace cb::cli
