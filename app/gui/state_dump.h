// --dump-state: the simulation state as JSON, for tests and bug reports.
//   {"frame": app frame, "sim_frame": n, "time": s, "solver": "pbd", "backend": "cpu",
//    "solver_params": {"iterations": "10", ...} (text values),
//    "positions": [[x, y, z], ...] (m), "velocities": [[..], ...] (m/s), "pinned": [ids], "has_nan": false,
//    "grab": {"active": true, "verts": [a, b, c], "bary": [..], "target": [..] (m), "point": [..] (m)},
//    "steps": [{"frame": f, "solver": "pbd", "max_displacement": m, "has_nan": false, "step_ms": ms}, ...]}
// "steps" lists every simulation step since start (when the app tracks them).
#pragma once

#include <string>

#include "app/gui/app.h"

namespace cb::gui {

/// Writes the dump; returns "" or why not.
std::string write_state_dump(const App& app, const std::string& path);

/// Appends this step's record (max vertex displacement, NaN) to app.steps.
void record_step(App& app);

}  // namespace cb::gui
