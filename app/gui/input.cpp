#include "app/gui/input.h"

#include <GLFW/glfw3.h>

#include "app/gui/actions.h"
#include "render/picking.h"

namespace cb::gui {

using nlohmann::json;
using render::Ray;

namespace {

constexpr float kPinPickRadius = 10.f;  // px: a press this close to a pin marker moves the pin
constexpr float kNearRadius = 14.f;     // px: pin toggling when the ray misses the cloth

glm::vec3 g(Vec3f v) { return {v.x, v.y, v.z}; }
Vec3f v3(glm::vec3 v) { return {v.x, v.y, v.z}; }

struct Cursor {
  float x = 0, y = 0;
  int mods = 0;
};

// the event's pixel: "x"/"y", or a cloth vertex's screen position plus "offset"
Cursor cursor_of(App& app, const json& ev) {
  Cursor c;
  c.mods = ev.value("mods", 0);
  if (ev.contains("vertex")) {
    int w, h;
    app.window_size(&w, &h);
    std::vector<Vec3f> x = app.world->positions();
    size_t v = ev["vertex"].get<size_t>();
    glm::vec3 s(0.f);
    if (v < x.size())
      app.camera.project(g(x[v]), float(w), float(h), &s);
    else  // the cursor stays at the window's corner, and the user is told why
      app.notify("replay: vertex " + std::to_string(v) + " is not a cloth vertex (the cloth has " +
                     std::to_string(x.size()) + ")",
                 true);
    c.x = s.x;
    c.y = s.y;
    if (ev.contains("offset")) {
      c.x += ev["offset"][0].get<float>();
      c.y += ev["offset"][1].get<float>();
    }
    return c;
  }
  if (ev.contains("rel")) {  // relative to the last cursor position
    c.x = app.input.last_x + ev["rel"][0].get<float>();
    c.y = app.input.last_y + ev["rel"][1].get<float>();
    return c;
  }
  c.x = ev.value("x", 0.f);
  c.y = ev.value("y", 0.f);
  return c;
}

Ray ray_at(App& app, float x, float y) {
  int w, h;
  app.window_size(&w, &h);
  return app.camera.ray(x, y, float(w), float(h));
}

void start_plane_drag(App& app, glm::vec3 through, DragMode mode) {
  app.input.mode = mode;
  app.input.plane_point = through;
  app.input.plane_normal = app.camera.forward();
}

bool plane_target(App& app, float x, float y, Vec3f* out) {
  glm::vec3 p;
  if (!render::ray_plane(ray_at(app, x, y), app.input.plane_point, app.input.plane_normal, &p)) return false;
  *out = v3(p);
  return true;
}

void brush(App& app, float x, float y) {
  int w, h;
  app.window_size(&w, &h);
  std::vector<Vec3f> pos = app.world->positions();
  for (uint32_t v : render::vertices_in_circle(app.camera, float(w), float(h), pos.data(), pos.size(), x, y,
                                               app.input.brush_radius))
    app.world->set_pinned(v, app.input.brush_pin);
}

// the vertex nearest to the cursor: of the triangle under it, else on screen
int vertex_near(App& app, float x, float y, const std::vector<Vec3f>& pos) {
  render::Hit hit = render::pick_triangle(ray_at(app, x, y), pos.data(), app.world->model().tris);
  if (hit.hit()) return render::nearest_vertex_of_hit(hit, pos.data(), app.world->model().tris);
  int w, h;
  app.window_size(&w, &h);
  std::vector<uint32_t> near =
      render::vertices_in_circle(app.camera, float(w), float(h), pos.data(), pos.size(), x, y, kNearRadius);
  return render::nearest_vertex_on_screen(app.camera, float(w), float(h), pos.data(), near, x, y, kNearRadius);
}

// The pinned vertices joined to `start` by edges whose two ends are pinned
// (breadth first over the model's edges), `start` first.
std::vector<uint32_t> pinned_group(const World& w, uint32_t start) {
  const std::vector<Int2>& edges = w.model().topo.edges;
  std::vector<std::vector<uint32_t>> next(w.model().num_vertices());
  for (const Int2& e : edges)
    if (w.is_pinned(uint32_t(e.a)) && w.is_pinned(uint32_t(e.b))) {
      next[size_t(e.a)].push_back(uint32_t(e.b));
      next[size_t(e.b)].push_back(uint32_t(e.a));
    }
  std::vector<uint8_t> seen(next.size(), 0);
  std::vector<uint32_t> group{start};
  seen[start] = 1;
  for (size_t k = 0; k < group.size(); ++k)
    for (uint32_t v : next[group[k]])
      if (!seen[v]) {
        seen[v] = 1;
        group.push_back(v);
      }
  return group;
}

bool left_down(App& app, const Cursor& c) {
  Interaction& in = app.input;
  const bool shift = c.mods & kModShift, ctrl = c.mods & kModCtrl;
  if (shift) {  // brush: paint (shift) or erase (ctrl+shift) pins
    in.mode = DragMode::Brush;
    in.brush_pin = !ctrl;
    brush(app, c.x, c.y);
    return true;
  }
  std::vector<Vec3f> pos = app.world->positions();
  if (in.pin_mode || ctrl) {  // toggle the pin of the nearest vertex
    int v = vertex_near(app, c.x, c.y, pos);
    if (v >= 0) app.world->set_pinned(uint32_t(v), !app.world->is_pinned(uint32_t(v)));
    return v >= 0;
  }
  int w, h;
  app.window_size(&w, &h);
  int pin = render::nearest_vertex_on_screen(app.camera, float(w), float(h), pos.data(), app.world->pinned_vertices(),
                                             c.x, c.y, kPinPickRadius);
  if (pin >= 0) {  // drag the pin itself, with the pins joined to it
    in.pin_group = pinned_group(*app.world, uint32_t(pin));
    in.pin_offset.clear();
    for (uint32_t v : in.pin_group) in.pin_offset.push_back(pos[v] - pos[size_t(pin)]);
    start_plane_drag(app, g(pos[size_t(pin)]), DragMode::MovePin);
    return true;
  }
  render::Hit hit = render::pick_triangle(ray_at(app, c.x, c.y), pos.data(), app.world->model().tris);
  if (hit.hit()) {
    app.world->grab_begin(hit.tri, hit.bary, hit.point);
    start_plane_drag(app, g(hit.point), DragMode::Grab);
    return true;
  }
  in.mode = DragMode::Orbit;  // empty space: orbit
  return true;
}

bool mouse_down(App& app, const json& ev) {
  Cursor c = cursor_of(app, ev);
  app.input.last_x = c.x;
  app.input.last_y = c.y;
  int button = ev.value("button", 0);
  if (button == 0) return left_down(app, c);
  if (button == 1) app.input.mode = (c.mods & kModShift) ? DragMode::Pan : DragMode::Orbit;
  if (button == 2) app.input.mode = DragMode::Pan;
  return button <= 2;
}

bool mouse_move(App& app, const json& ev) {
  Cursor c = cursor_of(app, ev);
  Interaction& in = app.input;
  in.hover_x = c.x;
  in.hover_y = c.y;
  float dx = c.x - in.last_x, dy = c.y - in.last_y;
  in.last_x = c.x;
  in.last_y = c.y;
  int w, h;
  app.window_size(&w, &h);
  Vec3f target;
  switch (in.mode) {
    case DragMode::None: return false;
    case DragMode::Orbit: app.camera.orbit(dx, dy); break;
    case DragMode::Pan: app.camera.pan(dx, dy, float(h)); break;
    case DragMode::Grab:
      if (plane_target(app, c.x, c.y, &target)) app.world->grab_move(target);
      break;
    case DragMode::MovePin:
      if (plane_target(app, c.x, c.y, &target))
        for (size_t k = 0; k < in.pin_group.size(); ++k) app.world->move_pinned(in.pin_group[k], target + in.pin_offset[k]);
      break;
    case DragMode::Brush: brush(app, c.x, c.y); break;
  }
  return true;
}

bool mouse_up(App& app) {
  if (app.input.mode == DragMode::None) return false;
  if (app.input.mode == DragMode::Grab) app.world->grab_end();
  app.input.mode = DragMode::None;
  app.input.pin_group.clear();
  app.input.pin_offset.clear();
  return true;
}

// keys become the same actions the panels send
bool key(App& app, const json& ev) {
  std::string k = ev.value("key", std::string());
  if (k == "F") return apply_action(app, {{"type", "frame_all"}}).empty();
  if (k == "SPACE") return apply_action(app, {{"type", "play"}, {"on", !app.playing}}).empty();
  if (k == "N") return apply_action(app, {{"type", "step"}}).empty();
  if (k == "R") return apply_action(app, {{"type", "reset"}}).empty();
  if (k == "C") return apply_action(app, {{"type", "clear_pins"}}).empty();
  if (k == "P") return apply_action(app, {{"type", "pin_mode"}, {"on", !app.input.pin_mode}}).empty();
  if (k == "W") return apply_action(app, {{"type", "surface"}, {"mode", (int(app.view.surface) + 1) % 3}}).empty();
  if (k == "TAB") {
    app.show_ui = !app.show_ui;
    return true;
  }
  if (k == "H") {
    app.show_help = !app.show_help;
    return true;
  }
  return false;
}

}  // namespace

bool is_input_event(const std::string& t) {
  return t == "mouse_down" || t == "mouse_up" || t == "mouse_move" || t == "scroll" || t == "key";
}

bool handle_input(App& app, const json& ev) {
  const std::string t = ev.value("type", std::string());
  if (!app.world) return false;
  if (t == "mouse_down") return mouse_down(app, ev);
  if (t == "mouse_move") return mouse_move(app, ev);
  if (t == "mouse_up") return mouse_up(app);
  if (t == "scroll") {
    app.camera.zoom(ev.value("dy", 0.f));
    return true;
  }
  if (t == "key") return key(app, ev);
  return false;
}

std::string key_name(int k) {
  if (k >= GLFW_KEY_A && k <= GLFW_KEY_Z) return std::string(1, char('A' + (k - GLFW_KEY_A)));
  if (k == GLFW_KEY_SPACE) return "SPACE";
  if (k == GLFW_KEY_TAB) return "TAB";
  return "";
}

void frame_all(App& app) {
  Aabb box;
  for (const Vec3f& p : app.world->positions()) box.grow(p);
  for (const Vec3f& p : app.world->obstacles().mesh_x) box.grow(p);
  for (const Shape& s : app.world->obstacles().shapes) {
    if (s.kind == ShapeKind::Plane) continue;
    float r = s.kind == ShapeKind::Box ? length(s.half_extents) : s.radius + s.half_length;
    box.grow(s.pose.t - Vec3f{r, r, r});
    box.grow(s.pose.t + Vec3f{r, r, r});
  }
  app.camera.frame(box);
}

}  // namespace cb::gui
