// clothbox-cli sub-commands. Each takes argv after the command word and returns
// the process exit code (0 ok, 1 failed check, 2 bad input).
#pragma once

namespace cb::cli {

struct Command {
  const char* name;
  const char* usage;  ///< one line: "run --scene FILE [--frames N] ..."
  int (*run)(int argc, char** argv);
};

int cmd_run(int argc, char** argv);
int cmd_info(int argc, char** argv);
int cmd_bench(int argc, char** argv);
int cmd_ccd(int argc, char** argv);
int cmd_check(int argc, char** argv);

}  // namespace cb::cli
