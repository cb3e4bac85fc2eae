#include "sim/solvers/pbd/params.h"

#include <cmath>

namespace cb {

std::string PbdParams::validate() const {
  if (iterations < 1 || iterations > 1000) return "iterations must be in [1, 1000]";
  if (substeps < 0 || substeps > 1000) return "substeps must be in [0, 1000] (0 = the scene's)";
  if (!(jacobi_omega > 0.f && jacobi_omega <= 2.f)) return "jacobi_omega must be in (0, 2]";
  if (!(sor > 0.f && sor < 2.f)) return "sor must be in (0, 2)";
  if (!(stretch_compliance >= 0.f) || !std::isfinite(stretch_compliance)) return "stretch_compliance must be >= 0 (m/N)";
  if (!(shear_compliance >= 0.f) || !std::isfinite(shear_compliance)) return "shear_compliance must be >= 0 (m/N)";
  if (!(bend_compliance >= 0.f) || !std::isfinite(bend_compliance)) return "bend_compliance must be >= 0 (1/(N m))";
  if (settle_passes < 0 || settle_passes > 100000) return "settle_passes must be in [0, 100000]";
  if (ease_frames < 0 || ease_frames > 10000) return "ease_frames must be in [0, 10000]";
  if (!(self_radius >= 0.f) || !std::isfinite(self_radius)) return "self_radius must be >= 0 (m)";
  if (!(hoop_stretch >= -1.f && hoop_stretch <= 1.f)) return "hoop_stretch must be in [-1, 1] (negative = off)";
  return "";
}

ParamTable PbdParams::to_table() const {
  ParamTable t;
  t.group("solver");
  t.add_int("iterations", iterations, 1, 1000, "constraint iterations per substep");
  t.add_int("substeps", substeps, 0, 1000, "substeps per frame (0 = the Simulation panel's)");
  t.add_choice("mode", int(mode), {"gauss-seidel", "jacobi"}, "coloured parallel Gauss-Seidel, or Jacobi with averaging");
  t.add_choice("split", int(split), {"mass", "equal"},
               "a constraint's correction shared by inverse mass, or as if every free vertex had the mean mass");
  t.add_float("jacobi_omega", jacobi_omega, 0.05, 2.0, "", "Jacobi over-relaxation of the averaged corrections");
  t.add_float("sor", sor, 0.05, 1.95, "",
              "Gauss-Seidel successive over-relaxation (1 = plain; above ~1.5 stiff cloth may diverge)");
  t.group("material");
  t.add_float("stretch_compliance", stretch_compliance, 0.0, 1.0, "m/N", "1 / membrane stretch stiffness (0 = rigid)", true);
  t.add_float("shear_compliance", shear_compliance, 0.0, 1.0, "m/N", "1 / shear stiffness of quad-grid diagonals", true);
  t.add_float("bend_compliance", bend_compliance, 0.0, 1e12, "1/(N m)", "1 / bending stiffness B (isometric bending)", true);
  t.add_bool("bending", bending, "bending constraints on/off");
  t.add_float("hoop_stretch", hoop_stretch, -1.0, 1.0, "",
              "closed boundary loops (waistbands, hems) at most this much longer as a whole (negative = off)");
  t.group("collisions");
  t.add_bool("edge_clearance", edge_clearance,
             "cloth edges, not only vertices, keep the thickness from a curved obstacle (vertices held farther)");
  t.add_bool("self_collision", self_collision, "particle-particle self-collision");
  t.add_float("self_radius", self_radius, 0.0, 0.1, "m", "self-collision particle radius (0 = max(thickness/2, 0.3 x mean edge))");
  t.group("diagnostics");
  t.add_bool("measure_residual", measure_residual, "report the constraint residual (stats 'pbd residual')");
  t.group("taking over another solver's state");
  t.add_int("settle_passes", settle_passes, 0, 100000,
            "most projection passes without velocity on taking over a state (0 = off)");
  t.add_int("ease_frames", ease_frames, 0, 10000,
            "most frames whose kinetic energy gain is capped after taking over a state (0 = off)");
  return t;
}

PbdParams PbdParams::from_table(const ParamTable& t) {
  PbdParams p;
  auto num = [&t](const char* n, double fallback) { return t.find(n) ? t.get(n) : fallback; };
  p.iterations = int(num("iterations", p.iterations));
  p.substeps = int(num("substeps", p.substeps));
  p.mode = PbdMode(int(num("mode", int(p.mode))));
  p.split = PbdSplit(int(num("split", int(p.split))));
  p.jacobi_omega = float(num("jacobi_omega", p.jacobi_omega));
  p.sor = float(num("sor", p.sor));
  p.stretch_compliance = float(num("stretch_compliance", p.stretch_compliance));
  p.shear_compliance = float(num("shear_compliance", p.shear_compliance));
  p.bend_compliance = float(num("bend_compliance", p.bend_compliance));
  p.bending = num("bending", p.bending) != 0;
  p.hoop_stretch = float(num("hoop_stretch", p.hoop_stretch));
  p.edge_clearance = num("edge_clearance", p.edge_clearance) != 0;
  p.self_collision = num("self_collision", p.self_collision) != 0;
  p.self_radius = float(num("self_radius", p.self_radius));
  p.measure_residual = num("measure_residual", p.measure_residual) != 0;
  p.settle_passes = int(num("settle_passes", p.settle_passes));
  p.ease_frames = int(num("ease_frames", p.ease_frames));
  return p;
}

PbdParams PbdParams::defaults_from_material(const Material& m) {
  PbdParams p;
  p.stretch_compliance = m.stretch_stiffness > 0 ? 1.f / m.stretch_stiffness : 0.f;
  p.shear_compliance = m.shear_stiffness > 0 ? 1.f / m.shear_stiffness : 0.f;
  p.bend_compliance = m.bend_stiffness > 0 ? 1.f / m.bend_stiffness : 1e12f;
  return p;
}

}  // namespace cb
