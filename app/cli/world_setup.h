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

/// Sets the active solver's parameters from "k=v,k=v"; `option` names the
/// command-line option in the error a bad pair throws.
void apply_params(World& w, const std::string& list, const std::string& option);

/// Loads a scene file: JSON scenes, or a bare .obj dropped over the ground.
SceneSpec load_scene_or_obj(const std::string& path);

}  // namespace cb::cli
