// clothbox-cli run: steps a scene headless, optionally exporting OBJ frames and
// per-frame statistics as CSV.
#include <cstdio>
#include <fstream>
#include <string>
#include <sys/stat.h>

#include "app/cli/commands.h"
#include "app/cli/world_setup.h"
#include "sim/core/error.h"
#include "sim/io/obj.h"

namespace cb::cli {
namespace {

void write_csv_header(std::ofstream& csv, const FrameStats& s) {
  csv << "frame,time_s,step_ms,min_strain,max_strain,nan";
  for (const auto& st : s.stages) csv << ",ms_" << st.first;
  for (const auto& c : s.counters) csv << "," << c.first;
  csv << "\n";
}

void write_csv_row(std::ofstream& csv, const FrameStats& s) {
  csv << s.frame << "," << s.sim_time << "," << s.step_ms << "," << s.min_strain << "," << s.max_strain << ","
      << (s.has_nan ? 1 : 0);
  for (const auto& st : s.stages) csv << "," << st.second;
  for (const auto& c : s.counters) csv << "," << c.second;
  csv << "\n";
}

void export_frame(const World& w, const std::string& dir, int frame) {
  char name[64];
  std::snprintf(name, sizeof name, "/cloth_%05d.obj", frame);
  write_obj(dir + name, w.positions(), w.model().tris, &w.model().uv);
}

}  // namespace

int cmd_run(int argc, char** argv) {
  Args args(argc, argv, 0, {"quiet"});
  args.allow_only({"scene", "solver", "backend", "frames", "dt", "substeps", "params", "export-obj", "every", "stats",
                   "quiet"});
  auto world = make_world(args);
  const int frames = int(args.get_int("frames", 100, 0, 10000000));
  const int every = int(args.get_int("every", 1, 1, 1000000));
  const std::string dir = args.get("export-obj");
  if (!dir.empty()) {
    mkdir(dir.c_str(), 0755);
    export_frame(*world, dir, 0);
  }
  std::ofstream csv;
  if (args.has("stats")) {
    csv.open(args.get("stats"));
    if (!csv) throw Error(args.get("stats") + ": cannot write the statistics file");
  }
  double total_ms = 0;
  int nan_frame = -1;
  for (int f = 1; f <= frames; ++f) {
    world->step();
    const FrameStats& s = world->stats();
    total_ms += s.step_ms;
    if (csv.is_open()) {
      if (f == 1) write_csv_header(csv, s);
      write_csv_row(csv, s);
    }
    if (!dir.empty() && f % every == 0) export_frame(*world, dir, f);
    if (s.has_nan) {
      nan_frame = f;
      break;
    }
  }
  const FrameStats& s = world->stats();
  std::printf("scene %s: solver %s, backend %s, %zu vertices, %zu triangles\n", world->scene().path.c_str(),
              world->solver_name().c_str(), backend_name(world->context().backend), world->model().num_vertices(),
              world->model().num_tris());
  std::printf("frames %d, simulated %.3f s, mean %.3f ms/frame, strain [%.4f, %.4f]\n", world->frame(), world->time(),
              world->frame() ? total_ms / world->frame() : 0.0, s.min_strain, s.max_strain);
  if (!args.has("quiet"))
    for (const auto& c : s.counters) std::printf("  %s: %g\n", c.first.c_str(), c.second);
  if (nan_frame >= 0) {
    std::fprintf(stderr, "error: NaN or inf in the state at frame %d\n", nan_frame);
    return 1;
  }
  return 0;
}

}  // namespace cb::cli
