// Scene JSON loader. The format is documented in scenes/README.md; every error
// names the file, the JSON path and what was expected.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "sim/core/error.h"
#include "sim/io/obj.h"
#include "sim/model/mesh_check.h"
#include "sim/scene/json_reader.h"
#include "sim/scene/pins.h"
#include "sim/scene/scene.h"

namespace cb {
namespace {

using json = nlohmann::json;
constexpr float kBig = 1e6f;             // m: a scene larger than 1000 km is a typo
constexpr float kShearOverStretch = 100.f;  // a material's shear / stretch stiffness beyond which it warns
constexpr int kMaxGridSide = 4097;       // vertices per side: 16.8 M vertices at most
constexpr size_t kMaxKeyframes = 10000;

std::string dir_of(const std::string& path) {
  size_t s = path.find_last_of('/');
  return s == std::string::npos ? std::string(".") : path.substr(0, s);
}

std::string resolve(const std::string& base_dir, const std::string& rel) {
  if (!rel.empty() && rel[0] == '/') return rel;
  return base_dir + "/" + rel;
}

// rotate_deg = [rx, ry, rz]: R = Rz * Ry * Rx (degrees)
Transform read_transform(const JsonReader& r, const json& obj, const std::string& path, float* scale) {
  Transform T;
  auto it = obj.find("transform");
  if (it == obj.end()) return T;
  const std::string p = path + "/transform";
  r.require_object(*it, p);
  r.check_keys(*it, p, {"translate", "rotate_deg", "scale"});
  T.t = r.vec3(*it, "translate", p, Vec3f{});
  Vec3f deg = r.vec3(*it, "rotate_deg", p, Vec3f{});
  const float k = float(M_PI / 180.0);
  T.R = rotation({0, 0, 1}, deg.z * k) * rotation({0, 1, 0}, deg.y * k) * rotation({1, 0, 0}, deg.x * k);
  float s = r.number(*it, "scale", p, 1.f, 1e-6f, kBig);
  if (scale) *scale = s;
  else if (s != 1.f) r.fail(p + "/scale", "scale is not supported for this object");
  return T;
}

Material read_material(const JsonReader& r, const json& c, const std::string& path) {
  Material m;
  auto it = c.find("material");
  if (it == c.end()) return m;
  const std::string p = path + "/material";
  r.require_object(*it, p);
  r.check_keys(*it, p, {"density", "stretch", "shear", "bend", "damping", "thickness", "friction", "rest_limit"});
  m.density = r.number(*it, "density", p, m.density, 1e-6f, 1e3f);
  m.stretch_stiffness = r.number(*it, "stretch", p, m.stretch_stiffness, 0.f, 1e9f);
  m.shear_stiffness = r.number(*it, "shear", p, m.shear_stiffness, 0.f, 1e9f);
  m.bend_stiffness = r.number(*it, "bend", p, m.bend_stiffness, 0.f, 1e3f);
  m.damping = r.number(*it, "damping", p, m.damping, 0.f, 1e3f);
  m.thickness = r.number(*it, "thickness", p, m.thickness, 0.f, 0.5f);
  m.friction = r.number(*it, "friction", p, m.friction, 0.f, 10.f);
  m.rest_limit = r.boolean(*it, "rest_limit", p, m.rest_limit);
  // Cloth is far softer in shear than in stretch (the shipped scenes: a tenth).
  // Far stiffer in shear, I-Cloth's solve fails: a 12 x 12 sheet at 5,000 N/m of
  // stretch hung at 0.017 strain with 5e6 N/m of shear and reached 158 with 5e7
  // (RESULTS.md, twenty-seventh session). Allowed, with a warning.
  if (m.shear_stiffness > kShearOverStretch * m.stretch_stiffness) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "shear stiffness %g N/m is over %g times the stretch stiffness (%g N/m): cloth is softer in shear "
                  "than in stretch, and I-Cloth's solve fails from about 10000 times",
                  double(m.shear_stiffness), double(kShearOverStretch), double(m.stretch_stiffness));
    r.warn(p + "/shear", buf);
  }
  return m;
}

TriMesh load_mesh_file(const JsonReader& r, const std::string& file, const std::string& path, float weld) {
  try {
    ObjReadOptions o;
    o.weld_distance = weld;
    return read_obj(resolve(dir_of(r.file()), file), o);
  } catch (const Error& e) {
    r.fail(path, e.what());
  }
}

TriMesh read_cloth_mesh(const JsonReader& r, const json& c, const std::string& path, GridInfo* grid) {
  const bool has_grid = c.contains("grid"), has_obj = c.contains("obj");
  if (has_grid == has_obj) r.fail(path, "a cloth needs exactly one of \"grid\" or \"obj\"");
  if (has_obj) {
    float weld = r.number(c, "weld", path, 0.f, 0.f, 0.1f);
    return load_mesh_file(r, r.required_string(c, "obj", path), path + "/obj", weld);
  }
  const json& g = c["grid"];
  const std::string p = path + "/grid";
  r.require_object(g, p);
  r.check_keys(g, p, {"layout", "nx", "ny", "width", "height"});
  GridSpec spec;
  const std::string layout = r.string(g, "layout", p, "quad");  // fails with its own path
  try {
    spec.layout = parse_grid_layout(layout);
  } catch (const Error& e) {
    r.fail(p + "/layout", e.what());
  }
  spec.nx = r.integer(g, "nx", p, 32, 2, kMaxGridSide);
  spec.ny = r.integer(g, "ny", p, 32, 2, kMaxGridSide);
  spec.width = r.number(g, "width", p, 1.f, 1e-4f, 1e3f);
  spec.height = r.number(g, "height", p, 1.f, 1e-4f, 1e3f);
  grid->layout = spec.layout;
  grid->nx = spec.nx;
  grid->ny = spec.ny;
  grid->spacing = grid_spacing(spec);
  return make_grid(spec);
}

void read_pins(const JsonReader& r, const json& c, const std::string& path, const TriMesh& local, const TriMesh& world,
               std::vector<uint32_t>& out) {
  auto it = c.find("pins");
  if (it == c.end()) return;
  const std::string p = path + "/pins";
  if (!it->is_array()) r.fail(p, "expected a list of pin selectors, got " + JsonReader::describe(*it));
  const Aabb b = bounds(local);
  const float tol = 1e-5f * std::max(1e-3f, length(b.extent()));
  for (size_t i = 0; i < it->size(); ++i) {
    const json& s = (*it)[i];
    const std::string ps = p + "/" + std::to_string(i);
    r.require_object(s, ps);
    r.check_keys(s, ps, {"vertices", "corners", "edge", "box"});
    try {
      if (s.contains("vertices")) {
        if (!s["vertices"].is_array()) r.fail(ps + "/vertices", "expected a list of vertex ids");
        for (const json& v : s["vertices"]) {
          if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() >= int64_t(local.positions.size()))
            r.fail(ps + "/vertices", "vertex id " + JsonReader::describe(v) + " is not in [0, " +
                                         std::to_string(local.positions.size()) + ")");
          out.push_back(v.get<uint32_t>());
        }
      }
      if (s.contains("corners")) {
        if (!s["corners"].is_array()) r.fail(ps + "/corners", "expected a list such as [\"top-left\", \"top-right\"]");
        for (const json& k : s["corners"]) {
          if (!k.is_string()) r.fail(ps + "/corners", "expected corner names, got " + JsonReader::describe(k));
          out.push_back(select_corner(local, k.get<std::string>()));
        }
      }
      if (s.contains("edge")) {
        auto e = select_edge(local, r.string(s, "edge", ps, ""), tol);
        out.insert(out.end(), e.begin(), e.end());
      }
      if (s.contains("box")) {
        const std::string pb = ps + "/box";
        r.require_object(s["box"], pb);
        Vec3f lo = r.vec3(s["box"], "min", pb, Vec3f{}), hi = r.vec3(s["box"], "max", pb, Vec3f{});
        auto e = select_box(world, lo, hi);
        out.insert(out.end(), e.begin(), e.end());
      }
    } catch (const Error& e) {
      std::string w = e.what();
      if (w.rfind(r.file(), 0) == 0) throw;
      r.fail(ps, w);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

// A mesh placed by its transform (and scale) must stay within the scene's
// bounds (coordinate_problem); `what` names a keyframe ("" for the mesh itself).
void check_placed(const JsonReader& r, const std::string& path, const std::vector<Vec3f>& placed,
                  const std::string& what) {
  std::string problem;
  const int64_t v = first_coordinate_problem(placed, &problem);
  if (v >= 0) r.fail(path + "/transform", "vertex " + std::to_string(v + 1) + what + ", placed, " + problem);
}

ClothSpec read_cloth(const JsonReader& r, const json& c, const std::string& path, size_t index) {
  r.require_object(c, path);
  r.check_keys(c, path, {"name", "grid", "obj", "weld", "transform", "material", "pins"});
  ClothSpec cs;
  cs.name = r.string(c, "name", path, "cloth" + std::to_string(index));
  TriMesh local = read_cloth_mesh(r, c, path, &cs.grid);
  try {
    require_valid_mesh(local, &r.warnings());
  } catch (const Error& e) {
    r.fail(path + (c.contains("obj") ? "/obj" : "/grid"), e.what());
  }
  float scale = 1.f;
  Transform T = read_transform(r, c, path, &scale);
  cs.mesh = local;
  transform_mesh(cs.mesh, T, scale);
  check_placed(r, path, cs.mesh.positions, "");
  cs.material = read_material(r, c, path);
  read_pins(r, c, path, local, cs.mesh, cs.pinned);
  if (cs.grid.layout != GridLayout::None) cs.grid.spacing *= scale;
  return cs;
}

std::vector<std::string> keyframe_files(const JsonReader& r, const json& m, const std::string& p) {
  std::vector<std::string> files;
  if (m.contains("files")) {
    if (!m["files"].is_array()) r.fail(p + "/files", "expected a list of OBJ file names");
    for (const json& f : m["files"]) {
      if (!f.is_string()) r.fail(p + "/files", "expected file names, got " + JsonReader::describe(f));
      files.push_back(f.get<std::string>());
    }
  } else {
    std::string pattern = r.required_string(m, "pattern", p);
    if (std::count(pattern.begin(), pattern.end(), '%') != 1 || pattern.find("%d") == std::string::npos)
      r.fail(p + "/pattern", "expected one %d in the pattern, e.g. \"kick/shell%d.obj\"");
    int first = r.integer(m, "first", p, 0, 0, 1 << 30), last = r.integer(m, "last", p, 0, 0, 1 << 30);
    int step = r.integer(m, "step", p, 1, 1, 1 << 30);
    if (last < first) r.fail(p + "/last", "last must be >= first");
    for (int i = first; i <= last; i += step) {
      char buf[1024];
      std::snprintf(buf, sizeof buf, pattern.c_str(), i);
      files.emplace_back(buf);
      if (files.size() > kMaxKeyframes) r.fail(p, "more than 10000 keyframes");
    }
  }
  if (files.size() < 2) r.fail(p, "keyframes need at least two files");
  return files;
}

void load_keyframes(const JsonReader& r, const json& m, const std::string& p, ObstacleSpec& o) {
  std::vector<std::string> files = keyframe_files(r, m, p);
  o.motion.frame_time = r.number(m, "frame_time", p, 0.04f, 1e-4f, 1e3f);
  o.motion.loop = r.boolean(m, "loop", p, true);
  const std::string dir = dir_of(r.file());
  std::vector<std::vector<Vec3f>> frames(files.size());
  std::vector<std::string> errors(files.size());
#pragma omp parallel for schedule(dynamic)
  for (long long i = 0; i < (long long)files.size(); ++i) {
    try {
      frames[size_t(i)] = read_obj_positions(resolve(dir, files[size_t(i)]));
    } catch (const Error& e) {
      errors[size_t(i)] = e.what();
    }
  }
  for (size_t i = 0; i < files.size(); ++i)
    if (!errors[i].empty()) r.fail(p + "/files/" + std::to_string(i), errors[i]);
  if (o.mesh.positions.empty()) o.mesh = load_mesh_file(r, files[0], p + "/files/0", 0.f);
  for (size_t i = 0; i < files.size(); ++i)
    if (frames[i].size() != o.mesh.positions.size())
      r.fail(p + "/files/" + std::to_string(i), files[i] + " has " + std::to_string(frames[i].size()) +
                                                   " vertices, the obstacle mesh has " +
                                                   std::to_string(o.mesh.positions.size()) + " (same topology required)");
  o.motion.frames = std::move(frames);
}

void read_motion(const JsonReader& r, const json& obj, const std::string& path, ObstacleSpec& o) {
  auto it = obj.find("motion");
  if (it == obj.end()) return;
  const std::string p = path + "/motion";
  const json& m = *it;
  r.require_object(m, p);
  r.check_keys(m, p, {"type", "direction", "amplitude", "period", "axis", "pivot", "angular_velocity", "start_time",
                      "files", "pattern", "first", "last", "step", "frame_time", "loop"});
  std::string type = r.required_string(m, "type", p);
  Motion& mo = o.motion;
  mo.start_time = r.number(m, "start_time", p, 0.f, 0.f, kBig);
  if (type == "static") {
    mo.kind = MotionKind::Static;
  } else if (type == "oscillate") {
    mo.kind = MotionKind::Oscillate;
    mo.direction = normalize(r.vec3(m, "direction", p, {1, 0, 0}));
    if (length2(mo.direction) == 0) r.fail(p + "/direction", "direction must not be zero");
    mo.amplitude = r.number(m, "amplitude", p, 0.2f, 0.f, kBig);
    mo.period = r.number(m, "period", p, 2.f, 1e-3f, kBig);
  } else if (type == "rotate") {
    mo.kind = MotionKind::Rotate;
    mo.axis = normalize(r.vec3(m, "axis", p, {0, 1, 0}));
    if (length2(mo.axis) == 0) r.fail(p + "/axis", "axis must not be zero");
    mo.pivot = r.vec3(m, "pivot", p, o.pose.t);
    mo.angular_velocity = r.number(m, "angular_velocity", p, 1.f, -1e3f, 1e3f);
  } else if (type == "keyframes") {
    if (o.kind != ObstacleKind::Mesh) r.fail(p + "/type", "keyframes need a mesh obstacle");
    mo.kind = MotionKind::Keyframes;
    load_keyframes(r, m, p, o);
  } else {
    r.fail(p + "/type", "unknown motion '" + type + "' (expected static, oscillate, rotate or keyframes)");
  }
}

ObstacleSpec read_obstacle(const JsonReader& r, const json& obj, const std::string& path, size_t index) {
  r.require_object(obj, path);
  r.check_keys(obj, path, {"type", "name", "transform", "radius", "half_length", "half_extents", "friction", "obj",
                           "motion"});
  ObstacleSpec o;
  o.name = r.string(obj, "name", path, "obstacle" + std::to_string(index));
  std::string type = r.required_string(obj, "type", path);
  if (type == "plane") o.kind = ObstacleKind::Plane;
  else if (type == "sphere") o.kind = ObstacleKind::Sphere;
  else if (type == "box") o.kind = ObstacleKind::Box;
  else if (type == "capsule") o.kind = ObstacleKind::Capsule;
  else if (type == "mesh") o.kind = ObstacleKind::Mesh;
  else r.fail(path + "/type", "unknown obstacle type '" + type + "' (expected plane, sphere, box, capsule or mesh)");
  o.pose = read_transform(r, obj, path, o.kind == ObstacleKind::Mesh ? &o.scale : nullptr);
  o.radius = r.number(obj, "radius", path, 0.5f, 1e-5f, kBig);
  o.half_length = r.number(obj, "half_length", path, 0.5f, 0.f, kBig);
  o.half_extents = r.vec3(obj, "half_extents", path, {0.5f, 0.5f, 0.5f});
  if (!(o.half_extents.x > 0 && o.half_extents.y > 0 && o.half_extents.z > 0))
    r.fail(path + "/half_extents", "box half extents must be > 0 (m)");
  o.friction = r.number(obj, "friction", path, 0.3f, 0.f, 10.f);
  if (o.kind == ObstacleKind::Mesh && obj.contains("obj"))
    o.mesh = load_mesh_file(r, r.required_string(obj, "obj", path), path + "/obj", 0.f);
  read_motion(r, obj, path, o);
  if (o.kind == ObstacleKind::Mesh && o.mesh.positions.empty())
    r.fail(path + "/obj", "a mesh obstacle needs \"obj\" (or keyframes)");
  if (o.kind == ObstacleKind::Mesh) {  // at its pose (a motion moves it from there)
    auto placed = [&](std::vector<Vec3f> x) {
      transform_points(x, o.pose, o.scale);
      return x;
    };
    check_placed(r, path, placed(o.mesh.positions), "");
    for (size_t k = 0; k < o.motion.frames.size(); ++k)
      check_placed(r, path, placed(o.motion.frames[k]), " of keyframe " + std::to_string(k));
  }
  return o;
}

void read_environment(const JsonReader& r, const json& doc, SceneSpec& s) {
  s.env.gravity = r.vec3(doc, "gravity", "", s.env.gravity);
  s.env.air_drag = r.number(doc, "air_drag", "", 0.f, 0.f, 1e3f);
  if (doc.contains("wind")) {
    const json& w = doc["wind"];
    r.require_object(w, "/wind");
    r.check_keys(w, "/wind", {"velocity", "gust", "frequency", "wavelength"});
    s.env.wind.velocity = r.vec3(w, "velocity", "/wind", {});
    s.env.wind.gust = r.number(w, "gust", "/wind", 0.f, 0.f, 100.f);
    s.env.wind.frequency = r.number(w, "frequency", "/wind", 0.5f, 0.f, 1e3f);
    s.env.wind.wavelength = r.number(w, "wavelength", "/wind", 2.f, 1e-3f, kBig);
  }
}

// A solver's parameters: {name: number, true/false or a name}, as text.
void read_params(const JsonReader& r, const json& p, const std::string& where, std::map<std::string, std::string>& out) {
  r.require_object(p, where);
  for (auto kv = p.begin(); kv != p.end(); ++kv) {
    const json& v = kv.value();
    if (v.is_string()) out[kv.key()] = v.get<std::string>();
    else if (v.is_boolean()) out[kv.key()] = v.get<bool>() ? "true" : "false";
    else if (v.is_number()) out[kv.key()] = v.dump();
    else r.fail(where + "/" + kv.key(), "expected a number, true/false or a name, got " + JsonReader::describe(v));
  }
}

void read_solver(const JsonReader& r, const json& doc, SceneSpec& s) {
  auto it = doc.find("solver");
  if (it == doc.end()) return;
  if (it->is_string()) {
    s.solver = it->get<std::string>();
    return;
  }
  r.require_object(*it, "/solver");
  r.check_keys(*it, "/solver", {"name", "params", "params_of"});
  s.solver = r.required_string(*it, "name", "/solver");
  if (it->contains("params")) read_params(r, (*it)["params"], "/solver/params", s.solver_params);
  if (!it->contains("params_of")) return;
  const json& of = (*it)["params_of"];
  r.require_object(of, "/solver/params_of");
  for (auto kv = of.begin(); kv != of.end(); ++kv) {
    const std::string where = "/solver/params_of/" + kv.key();
    if (kv.key() == s.solver) r.fail(where, "the scene's own solver takes its parameters from /solver/params");
    read_params(r, kv.value(), where, s.params_of[kv.key()]);
  }
}

void read_camera(const JsonReader& r, const json& doc, SceneSpec& s) {
  auto it = doc.find("camera");
  if (it == doc.end()) return;
  r.require_object(*it, "/camera");
  r.check_keys(*it, "/camera", {"eye", "target", "fov"});
  s.camera.eye = r.vec3(*it, "eye", "/camera", s.camera.eye);
  s.camera.target = r.vec3(*it, "target", "/camera", s.camera.target);
  s.camera.fov_deg = r.number(*it, "fov", "/camera", s.camera.fov_deg, 5.f, 170.f);
  if (length2(s.camera.eye - s.camera.target) == 0) r.fail("/camera", "eye and target must differ");
}

json parse_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot open the scene file (missing or unreadable)");
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    return json::parse(ss.str());
  } catch (const json::exception& e) {  // syntax errors, number overflow (1e999)
    std::string w = e.what();
    size_t colon = w.find("] ");
    throw Error(path + ": invalid JSON: " + (colon == std::string::npos ? w : w.substr(colon + 2)));
  }
}

}  // namespace

SceneSpec load_scene(const std::string& path) {
  json doc = parse_file(path);
  SceneSpec s;
  s.path = path;
  JsonReader r(path, &s.warnings);
  r.require_object(doc, "");
  r.check_keys(doc, "", {"title", "dt", "substeps", "gravity", "wind", "air_drag", "self_collision", "solver", "camera",
                         "cloths", "obstacles"});
  s.title = r.string(doc, "title", "", path);
  s.dt = r.number(doc, "dt", "", s.dt, 1e-5f, 0.1f);
  s.substeps = r.integer(doc, "substeps", "", s.substeps, 1, 1000);
  s.self_collision = r.boolean(doc, "self_collision", "", s.self_collision);
  read_environment(r, doc, s);
  read_solver(r, doc, s);
  read_camera(r, doc, s);
  if (!doc.contains("cloths")) r.fail("/cloths", "missing (a scene needs at least one cloth)");
  const json& cl = doc["cloths"];
  if (!cl.is_array() || cl.empty()) r.fail("/cloths", "expected a non-empty list of cloths, got " + JsonReader::describe(cl));
  for (size_t i = 0; i < cl.size(); ++i) s.cloths.push_back(read_cloth(r, cl[i], "/cloths/" + std::to_string(i), i));
  if (doc.contains("obstacles")) {
    const json& ob = doc["obstacles"];
    if (!ob.is_array()) r.fail("/obstacles", "expected a list of obstacles, got " + JsonReader::describe(ob));
    for (size_t i = 0; i < ob.size(); ++i)
      s.obstacles.push_back(read_obstacle(r, ob[i], "/obstacles/" + std::to_string(i), i));
  }
  return s;
}

// A dropped OBJ comes without a material. The default collision thickness
// (4 mm) can exceed a fine mesh's short edges, and then each vertex's own ring
// lies within the contact distance: I-Cloth's repulsion pushes it apart every
// step and stretches the cloth (a 60 x 60 grid of 3.4 mm edges: 11 % in free
// fall, 15 times slower, RESULTS.md, twenty-sixth session). So the thickness is
// at most a quarter of the short edges: the 1st percentile of each triangle's
// shortest edge, and at least 0.1 mm.
static float dropped_thickness(const TriMesh& m, float fallback) {
  const float e = short_edge(m);
  if (!(e > 0.f)) return fallback;
  return std::max(1e-4f, std::min(fallback, 0.25f * e));
}

SceneSpec scene_from_obj(const std::string& obj_path) {
  SceneSpec s;
  s.path = obj_path;
  ClothSpec c;
  c.name = obj_path;
  c.mesh = read_obj(obj_path);
  c.material.thickness = dropped_thickness(c.mesh, c.material.thickness);
  // a mesh made for something else (a mannequin, a fitted garment) has parts
  // closer than that at rest, its own: they keep their gaps under I-Cloth
  // (Material::rest_limit; RESULTS.md, forty-first session)
  c.material.rest_limit = true;
  char note[64];
  std::snprintf(note, sizeof note, " (dropped as cloth, thickness %.2g mm)", double(c.material.thickness) * 1e3);
  s.title = obj_path + note;
  // drop it so its lowest point is 0.5 m above the ground, centred in x and z
  Aabb b = bounds(c.mesh);
  Vec3f shift{-b.center().x, 0.5f - b.lo.y, -b.center().z};
  for (Vec3f& p : c.mesh.positions) p += shift;
  s.cloths.push_back(std::move(c));
  ObstacleSpec ground;
  ground.name = "ground";
  s.obstacles.push_back(ground);
  float r = 0.5f * length(b.extent()) + 0.5f;
  s.camera.target = {0, 0.5f + 0.5f * b.extent().y, 0};
  s.camera.eye = s.camera.target + Vec3f{0, 0.6f * r, 2.2f * r};
  return s;
}

void use_solver(SceneSpec& s, const std::string& name) {
  if (name == s.solver) return;
  if (!s.solver_params.empty() && !s.solver.empty()) s.params_of[s.solver] = std::move(s.solver_params);
  s.solver_params.clear();
  auto it = s.params_of.find(name);
  if (it != s.params_of.end()) {
    s.solver_params = std::move(it->second);
    s.params_of.erase(it);
  }
  s.solver = name;
}

std::vector<ClothInput> cloth_inputs(const SceneSpec& s) {
  std::vector<ClothInput> out;
  for (const ClothSpec& c : s.cloths) out.push_back({c.name, c.mesh, c.material, c.grid});
  return out;
}

}  // namespace cb
