// clothbox-cli run: steps a scene headless, optionally exporting OBJ frames and
// per-frame statistics as CSV.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>
#include <sys/stat.h>

#include "app/cli/commands.h"
#include "app/cli/world_setup.h"
#include "sim/core/error.h"
#include "sim/io/obj.h"
#include "sim/solvers/solver.h"

namespace cb::cli {
namespace {

// Per-frame statistics, written as CSV at the end of the run. A stage or
// counter may appear only in some frames (impact zones when there are impacts):
// the columns are the union over the run, in first-seen order, and a cell is
// empty where its frame did not report that column.
class StatsTable {
 public:
  void add(const FrameStats& s) {
    std::vector<std::pair<size_t, double>> row;
    for (const auto& st : s.stages) row.emplace_back(column("ms_" + st.first), st.second);
    for (const auto& c : s.counters) row.emplace_back(column(c.first), c.second);
    fixed_.push_back({double(s.frame), s.sim_time, s.step_ms, s.min_strain, s.max_strain, s.has_nan ? 1.0 : 0.0});
    rows_.push_back(std::move(row));
  }
  void write(std::ostream& out) const {
    out << "frame,time_s,step_ms,min_strain,max_strain,nan";
    for (const std::string& n : names_) out << "," << n;
    out << "\n";
    for (size_t r = 0; r < rows_.size(); ++r) {
      for (size_t k = 0; k < fixed_[r].size(); ++k) out << (k ? "," : "") << fixed_[r][k];
      std::vector<const double*> cells(names_.size(), nullptr);
      for (const auto& c : rows_[r]) cells[c.first] = &c.second;
      for (const double* c : cells) {
        out << ",";
        if (c) out << *c;
      }
      out << "\n";
    }
  }

 private:
  size_t column(const std::string& name) {
    for (size_t k = 0; k < names_.size(); ++k)
      if (names_[k] == name) return k;
    names_.push_back(name);
    return names_.size() - 1;
  }
  std::vector<std::string> names_;
  std::vector<std::vector<double>> fixed_;
  std::vector<std::vector<std::pair<size_t, double>>> rows_;
};

// cloth_NNNNN.obj, and obstacles_NNNNN.obj (every mesh obstacle in its pose at
// that frame, one soup) when the scene has mesh obstacles
void export_frame(const World& w, const std::string& dir, int frame) {
  char name[64];
  std::snprintf(name, sizeof name, "/cloth_%05d.obj", frame);
  write_obj(dir + name, w.positions(), w.model().tris, &w.model().uv);
  if (!w.obstacles().has_meshes()) return;
  std::snprintf(name, sizeof name, "/obstacles_%05d.obj", frame);
  write_obj(dir + name, w.obstacles().mesh_x, w.obstacles().mesh_tris);
}

// --switch FRAME:SOLVER[,FRAME:SOLVER...]: after FRAME frames the run goes on with
// SOLVER (World::set_solver: positions, velocities and pins kept), in frame order
std::vector<std::pair<int, std::string>> parse_switches(const std::string& text, int frames) {
  std::vector<std::pair<int, std::string>> out;
  size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    const size_t end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    const size_t colon = item.find(':');
    char* stop = nullptr;
    const long frame = colon == std::string::npos ? -1 : std::strtol(item.c_str(), &stop, 10);
    if (colon == std::string::npos || colon == 0 || stop != item.c_str() + colon || colon + 1 == item.size())
      throw Error("--switch: '" + item + "' is not FRAME:SOLVER (e.g. --switch 100:pbd,200:icloth)");
    if (frame < 0 || frame >= frames)
      throw Error("--switch: frame " + std::to_string(frame) + " is outside the run's frames [0, " +
                  std::to_string(frames) + ")");
    if (!out.empty() && frame <= out.back().first)
      throw Error("--switch: the frames must increase ('" + item + "')");
    const std::string name = item.substr(colon + 1);
    if (!find_solver(name)) throw Error("--switch: unknown solver '" + name + "' (available: " + solver_names() + ")");
    out.emplace_back(int(frame), name);
    start = end + 1;
  }
  return out;
}

}  // namespace

int cmd_run(int argc, char** argv) {
  Args args(argc, argv, 0, {"quiet"});
  args.allow_only({"scene", "solver", "backend", "frames", "dt", "substeps", "params", "export-obj", "every", "stats",
                   "switch", "switch-params", "quiet"});
  auto world = make_world(args);
  const int frames = int(args.get_int("frames", 100, 0, 10000000));
  const std::vector<std::pair<int, std::string>> switches = parse_switches(args.get("switch"), frames);
  if (args.has("switch-params") && switches.empty()) throw Error("--switch-params needs --switch");
  const int every = int(args.get_int("every", 1, 1, 1000000));
  const std::string dir = args.get("export-obj");
  if (!dir.empty()) {
    mkdir(dir.c_str(), 0755);
    export_frame(*world, dir, 0);
  }
  std::ofstream csv;
  if (args.has("stats")) {  // opened now: a path that cannot be written fails before the run
    csv.open(args.get("stats"));
    if (!csv) throw Error(args.get("stats") + ": cannot write the statistics file");
  }
  StatsTable table;
  double total_ms = 0;
  int nan_frame = -1;
  size_t next_switch = 0;
  for (int f = 1; f <= frames; ++f) {
    if (next_switch < switches.size() && switches[next_switch].first == f - 1) {
      const std::string err = world->set_solver(switches[next_switch++].second);
      if (!err.empty()) throw Error("--switch: " + err);
      // the parameters of every solver switched to (--params: the first one's)
      if (args.has("switch-params")) apply_params(*world, args.get("switch-params"), "--switch-params");
    }
    world->step();
    const FrameStats& s = world->stats();
    total_ms += s.step_ms;
    if (csv.is_open()) table.add(s);
    if (!dir.empty() && f % every == 0) export_frame(*world, dir, f);
    if (s.has_nan) {
      nan_frame = f;
      break;
    }
  }
  if (csv.is_open()) table.write(csv);
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
