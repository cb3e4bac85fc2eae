// clothbox-cli ccd: runs the CCD benchmark files (Wang et al. 2021 format) and
// prints, per file and in total, queries, ground-truth collisions, false
// negatives, false positives and time per query. Exit status 1 on any false negative.
#include <chrono>
#include <cstdio>
#include <string>

#include "app/cli/args.h"
#include "app/cli/commands.h"
#include "sim/collision/ccd_benchmark.h"
#include "sim/core/buffer.h"
#include "sim/core/error.h"

namespace cb::cli {
namespace {

void print_row(const std::string& name, const CcdBenchStats& s) {
  double mean_us = s.queries ? 1e6 * s.seconds / double(s.queries) : 0.0;
  double fp_rate = s.queries > s.collisions ? double(s.false_positives) / double(s.queries - s.collisions) : 0.0;
  std::printf("%-52s %7zu %6zu %4zu %5zu %6.1f%% %6zu %9.3f %9.3f %8.1f\n", name.c_str(), s.queries, s.collisions,
              s.false_negatives, s.false_positives, 100.0 * fp_rate, s.capped, mean_us, 1e6 * s.max_seconds,
              s.queries ? double(s.boxes) / double(s.queries) : 0.0);
}

// the same queries on the backend in one batch; returns the number of answers that differ from the CPU's
size_t run_on_backend(const Context& ctx, const CcdBenchFile& f, const CcdOptions& opt, double* seconds) {
  DeviceBuffer<CcdQuery> q(ctx, f.queries);
  DeviceBuffer<CcdResult> r(ctx, f.queries.size());
  synchronize(ctx);
  auto t0 = std::chrono::steady_clock::now();
  ccd_batch(ctx, q.data(), int(f.queries.size()), f.edge_edge, opt, r.data());
  synchronize(ctx);
  *seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto h = r.to_host();
  size_t differ = 0;
  for (size_t i = 0; i < h.size(); ++i) {
    CcdResult c = f.edge_edge ? ccd_edge_edge(f.queries[i].x0, f.queries[i].x1, opt)
                              : ccd_vertex_face(f.queries[i].x0, f.queries[i].x1, opt);
    differ += (c.hit != h[i].hit) ? 1 : 0;
  }
  return differ;
}

}  // namespace

int cmd_ccd(int argc, char** argv) {
  Args args(argc, argv, 0);
  args.allow_only({"tolerance", "min-distance", "max-boxes", "backend", "repeat"});
  if (args.positional().empty()) throw Error("ccd needs at least one benchmark .csv file");
  CcdOptions opt;
  opt.tolerance = args.get_double("tolerance", opt.tolerance, 0.0, 1.0);
  opt.min_distance = args.get_double("min-distance", opt.min_distance, 0.0, 1.0);
  opt.max_boxes = int(args.get_int("max-boxes", opt.max_boxes, 1, 100000000));
  int repeats = int(args.get_int("repeat", 1, 1, 1000));
  Context ctx = make_context(parse_backend(args.get("backend", "cpu")));
  std::printf("# tolerance %g, min distance %g, max boxes %d; times on one CPU thread (fastest of %d runs)\n",
              opt.tolerance, opt.min_distance, opt.max_boxes, repeats);
  std::printf("%-52s %7s %6s %4s %5s %7s %6s %9s %9s %8s\n", "file", "queries", "coll", "FN", "FP", "FPrate",
              "capped", "mean_us", "max_us", "boxes");
  CcdBenchStats total;
  size_t differ = 0;
  double backend_seconds = 0;
  for (const std::string& path : args.positional()) {
    CcdBenchFile f = read_ccd_file(path);
    CcdBenchStats s = run_ccd_file(f, opt, repeats);
    print_row(path, s);
    total.add(s);
    if (ctx.is_cuda()) differ += run_on_backend(ctx, f, opt, &backend_seconds);
  }
  print_row("total", total);
  if (ctx.is_cuda())
    std::printf("cuda: %.4f us per query (batched), %zu answers differ from the CPU\n",
                total.queries ? 1e6 * backend_seconds / double(total.queries) : 0.0, differ);
  if (total.false_negatives) std::printf("FAILED: %zu false negatives\n", total.false_negatives);
  return total.false_negatives || differ ? 1 : 0;
}

}  // namespace cb::cli
