// Helpers shared by the tests: paths, backends to test, small scenes built in code.
#pragma once

#include <string>
#include <vector>

#include "sim/core/backend.h"
#include "sim/scene/scene.h"

namespace cb::test {

/// Absolute path of a file in the source tree ("scenes/hanging_sheet.json").
std::string source_path(const std::string& rel);
/// Absolute path in ../shared ("data/ccd"); "" when the folder is absent.
std::string shared_path(const std::string& rel);
/// The backends this machine can run: always Cpu; Cuda where a device answers.
std::vector<Context> backends();
/// A context on the CUDA backend, or false when none answers (tests then skip).
bool cuda_context(Context* out);
/// A scene with one quad grid (nx x ny, width x height m) lying in the xz plane at
/// height y (m), no obstacles, gravity -9.81 y.
SceneSpec grid_scene(int nx, int ny, float width, float height, float y);
/// Runs `cmd` through the shell; returns the exit status and fills `output`
/// with stdout+stderr.
int run_command(const std::string& cmd, std::string* output);

}  // namespace cb::test

/// Skips the current test when the shared data folder is missing.
#define CB_REQUIRE_SHARED(rel)                                                \
  do {                                                                        \
    if (::cb::test::shared_path(rel).empty()) GTEST_SKIP() << "no ../shared/" << rel; \
  } while (0)
