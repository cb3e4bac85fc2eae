// Shared by the CLI commands: make a World from --scene/--solver/--backend/--params.
#pragma once

#include <memory>
#include <string>

#include "app/cli/args.h"
#include "sim/world.h"

namespace cb::cli {

/// Loads --scene (JSON or bare OBJ), picks --backend, applies --solver, --dt,
/// --substeps and --params "k=v,k=v". Prints the backend note and scene warnings
/// to stderr. Throws cb::Error for bad input.
std::unique_ptr<World> make_world(const Args& args);

/// Loads a scene file: JSON scenes, or a bare .obj dropped over the ground.
SceneSpec load_scene_or_obj(const std::string& path);

}  // namespace cb::cli
