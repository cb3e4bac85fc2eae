// clothbox-cli: the headless front end (run scenes, inspect them, benchmark, check).
#include <cstdio>
#include <cstring>
#include <exception>

#include "app/cli/commands.h"
#include "sim/core/error.h"

namespace {

using cb::cli::Command;

const Command kCommands[] = {
    {"run", "run --scene FILE [--solver NAME] [--backend cpu|cuda|auto] [--frames N] [--dt S] [--substeps N]\n"
            "        [--params k=v,k=v] [--export-obj DIR --every K] [--stats FILE.csv] [--switch FRAME:SOLVER,...]\n"
            "        [--switch-params k=v,k=v] [--quiet]",
     cb::cli::cmd_run},
    {"info", "info --scene FILE   vertex/triangle/edge counts, colours, memory", cb::cli::cmd_info},
    {"bench", "bench --scene FILE [--solver NAME] [--backend B] [--frames N] [--warmup N]\n"
              "      bench keyframes --scene FILE   time to load a scene (keyframe sequences)",
     cb::cli::cmd_bench},
    {"ccd", "ccd FILE.csv... [--tolerance M] [--min-distance M] [--max-boxes N] [--repeat R] [--backend cpu|cuda]\n"
            "      CCD benchmark files: false negatives/positives, time per query (exit 1 on a false negative)",
     cb::cli::cmd_ccd},
    {"check", "check FILE.obj... [--weld M] [--cloth-vertices K] [--backend B] [--strict]\n"
              "      intersecting triangle pairs (exact; within a piece / between pieces / against the obstacle)",
     cb::cli::cmd_check},
};

void usage(FILE* out) {
  std::fprintf(out, "clothbox-cli: headless cloth simulation\n\nusage:\n");
  for (const Command& c : kCommands) std::fprintf(out, "  clothbox-cli %s\n", c.usage);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  for (const Command& c : kCommands) {
    if (std::strcmp(argv[1], c.name) != 0) continue;
    try {
      return c.run(argc - 2, argv + 2);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "clothbox-cli %s: error: %s\n", c.name, e.what());
      return 2;
    }
  }
  std::fprintf(stderr, "clothbox-cli: unknown command '%s'\n\n", argv[1]);
  usage(stderr);
  return 2;
}
