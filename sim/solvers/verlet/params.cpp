#include "sim/solvers/verlet/params.h"

#include <cmath>

namespace cb {

ParamTable VerletParams::to_table() const {
  ParamTable t;
  t.group("springs and integration");
  t.add_int("substeps", substeps, 0, 1000, "sub-steps per frame (0 = the scene's)");
  t.add_float("stretch_scale", stretch_scale, 0, 100, "", "multiplier of the material stretch stiffness", true);
  t.add_float("shear_scale", shear_scale, 0, 100, "", "multiplier of the material shear stiffness", true);
  t.add_float("bend_scale", bend_scale, 0, 1e6, "", "multiplier of the material bending stiffness", true);
  t.add_float("stability", stability, 0.01, 1, "", "fraction of the explicit stability limit springs may reach");
  t.add_float("spring_damping", spring_damping, 0, 1, "", "spring damping, fraction of critical");
  t.add_float("damping", damping, 0, 100, "1/s", "velocity damping added to the material's");
  t.add_float("max_stretch", max_stretch, 0, 10, "", "strain limit of structural/shear springs (0.1 = 10 %)");
  t.add_int("strain_iterations", strain_iterations, 0, 100, "strain-limiting Jacobi iterations per sub-step");
  t.add_choice("strain_split", int(strain_split), {"mass", "equal"},
               "a stretched spring's excess shared by inverse mass, or half to each end (Provot 1995)");
  t.add_int("strain_reach", strain_reach, 0, 64,
            "rings spanned by the strain limit's long constraints (0 = springs only)");
  t.add_bool("obstacles_in_passes", obstacles_in_passes,
             "obstacles push the cloth out after every strain pass, not only the last");
  t.add_bool("mesh_ccd", mesh_ccd, "a fast vertex stops where its path first touches a mesh obstacle");
  t.add_bool("edge_clearance", edge_clearance,
             "cloth edges, not only vertices, keep the thickness from a curved obstacle (vertices held farther)");
  t.add_bool("hoops", hoops, "closed boundary loops (waistbands, hems) limit their length as a whole");
  t.add_bool("long_range", long_range, "long-range attachments: tether vertices to their nearest pin");
  t.add_bool("grab_holds", grab_holds, "the strain limit holds the grabbed vertices at the grab (the cloth follows)");
  t.group("virtual spheres (Zheng 2021)");
  t.add_float("radius_scale", radius_scale, 0.1, 2, "", "virtual sphere radius / half the rest length");
  t.add_choice("store", int(store), {"hash", "dense", "all-pairs"},
               "sphere store: sorted hash grid, the thesis's dense grid, or the all-pairs baseline");
  t.add_bool("thesis_cells", thesis_cells, "hash grid cells of side 2r/sqrt(3), 5x5x5 neighbourhood");
  t.add_int("collision_iterations", collision_iterations, 0, 100, "sphere response iterations per sub-step");
  t.add_float("contact_damping", contact_damping, 0, 1, "", "fraction of approaching normal velocity removed");
  t.add_int("max_contacts", max_contacts, 1, 64, "contacts kept per sphere");
  return t;
}

std::string VerletParams::from_table(const ParamTable& t) {
  VerletParams p;
  p.substeps = t.get_int("substeps");
  p.stretch_scale = float(t.get("stretch_scale"));
  p.shear_scale = float(t.get("shear_scale"));
  p.bend_scale = float(t.get("bend_scale"));
  p.stability = float(t.get("stability"));
  p.spring_damping = float(t.get("spring_damping"));
  p.damping = float(t.get("damping"));
  p.max_stretch = float(t.get("max_stretch"));
  p.strain_iterations = t.get_int("strain_iterations");
  p.strain_split = StrainSplit(t.get_int("strain_split"));
  p.strain_reach = t.get_int("strain_reach");
  p.obstacles_in_passes = t.get_bool("obstacles_in_passes");
  p.mesh_ccd = t.get_bool("mesh_ccd");
  p.edge_clearance = t.get_bool("edge_clearance");
  p.hoops = t.get_bool("hoops");
  p.long_range = t.get_bool("long_range");
  p.grab_holds = t.get_bool("grab_holds");
  p.radius_scale = float(t.get("radius_scale"));
  p.store = SphereStore(t.get_int("store"));
  p.thesis_cells = t.get_bool("thesis_cells");
  p.collision_iterations = t.get_int("collision_iterations");
  p.contact_damping = float(t.get("contact_damping"));
  p.max_contacts = t.get_int("max_contacts");
  std::string err = p.validate();
  if (err.empty()) *this = p;
  return err;
}

std::string VerletParams::validate() const {
  auto in = [](float v, float lo, float hi) { return std::isfinite(v) && v >= lo && v <= hi; };
  if (substeps < 0 || substeps > 1000) return "substeps must be in [0, 1000]";
  if (!in(stretch_scale, 0, 100) || !in(shear_scale, 0, 100) || !in(bend_scale, 0, 1e6f))
    return "stiffness scales must be >= 0 (stretch/shear <= 100, bend <= 1e6)";
  if (!in(stability, 0.01f, 1)) return "stability must be in [0.01, 1]";
  if (!in(spring_damping, 0, 1)) return "spring_damping must be in [0, 1]";
  if (!in(damping, 0, 100)) return "damping must be in [0, 100] 1/s";
  if (!in(max_stretch, 0, 10)) return "max_stretch must be in [0, 10]";
  if (strain_iterations < 0 || strain_iterations > 100) return "strain_iterations must be in [0, 100]";
  if (strain_reach != 0 && (strain_reach < 2 || strain_reach > 64)) return "strain_reach must be 0 or in [2, 64]";
  if (!in(radius_scale, 0.1f, 2)) return "radius_scale must be in [0.1, 2]";
  if (int(store) < 0 || int(store) > 2) return "store must be hash, dense or all-pairs";
  if (collision_iterations < 0 || collision_iterations > 100) return "collision_iterations must be in [0, 100]";
  if (!in(contact_damping, 0, 1)) return "contact_damping must be in [0, 1]";
  if (max_contacts < 1 || max_contacts > 64) return "max_contacts must be in [1, 64]";
  return "";
}

}  // namespace cb
