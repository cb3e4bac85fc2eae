#include "render/renderer.h"

#include "render/texture.h"

namespace cb::render {

namespace {
constexpr float kGroundHalfSize = 50.f;  // m
}

Vec3f grab_point(const World& w) {
  const Grab& g = w.grab();
  if (g.verts.a < 0) return g.target;
  const Vec3f* x = w.state().x.data();
  Vec3f p[3];
  for (int k = 0; k < 3; ++k) detail::buffer_copy_to_host(w.context(), &p[k], x + g.verts[k], sizeof(Vec3f));
  return p[0] * g.bary.x + p[1] * g.bary.y + p[2] * g.bary.z;
}

void Renderer::init() {
  std::string dir = find_shader_dir();
  surface_ = Shader::load(dir, "cloth");
  flat_ = Shader::load(dir, "flat");
  points_ = Shader::load(dir, "points");
  ground_ = Shader::load(dir, "ground");
  make_check_texture(&texture_);
  fallback_ground_.upload(tessellate_plane(kGroundHalfSize));
}

void Renderer::set_world(const World& w) {
  cloth_.build(w.context(), w.model());
  obstacles_.build(w.obstacles(), kGroundHalfSize);
  has_plane_ = false;
  for (const Shape& s : w.obstacles().shapes) has_plane_ |= s.kind == ShapeKind::Plane;
  pins_.clear();
  cloth_.set_pins(pins_);
  sync_pins(w);
}

void Renderer::publish(const World& w) {
  cloth_.publish(w.context(), w.state());
  obstacles_.update(w.obstacles());
  sync_pins(w);
}

void Renderer::sync_pins(const World& w) {
  std::vector<uint32_t> now = w.pinned_vertices();
  if (now != pins_) {
    pins_ = std::move(now);
    cloth_.set_pins(pins_);
  }
}

std::string Renderer::load_texture_file(const std::string& path) { return load_texture(path, &texture_); }

void Renderer::draw(const World& w, const OrbitCamera& cam, int width, int height, const ViewOptions& opt) {
  glViewport(0, 0, width, height);
  glClearColor(opt.background.r, opt.background.g, opt.background.b, 1.f);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glEnable(GL_DEPTH_TEST);
  glDisable(GL_CULL_FACE);
  const glm::mat4 vp = cam.projection(float(width) / float(std::max(height, 1))) * cam.view();
  const glm::vec3 eye = cam.eye();
  if (opt.ground) {
    ground_.use();
    ground_.set("u_view_proj", vp);
    ground_.set("u_eye", eye);
    ground_.set("u_cell", 0.1f);
    ground_.set("u_color", glm::vec3(0.30f, 0.31f, 0.32f));
    if (has_plane_) {
      obstacles_.draw_planes(ground_, w.obstacles());
    } else {
      ground_.set("u_model", glm::mat4(1.f));
      fallback_ground_.draw();
    }
  }
  surface_.use();
  surface_.set("u_view_proj", vp);
  surface_.set("u_eye", eye);
  surface_.set("u_use_texture", 0);
  if (opt.obstacles) {
    surface_.set("u_front_color", glm::vec3(0.55f, 0.57f, 0.60f));
    surface_.set("u_back_color", glm::vec3(0.35f, 0.36f, 0.38f));
    obstacles_.draw_solids(surface_, w.obstacles());
  }
  draw_cloth(vp, eye, opt);
  draw_markers(w, cam, vp, height, opt);
}

void Renderer::draw_cloth(const glm::mat4& vp, glm::vec3 eye, const ViewOptions& opt) {
  if (opt.surface != SurfaceMode::Wireframe) {
    surface_.use();
    surface_.set("u_model", glm::mat4(1.f));
    surface_.set("u_front_color", opt.front_color);
    surface_.set("u_back_color", opt.back_color);
    surface_.set("u_use_texture", opt.texture ? 1 : 0);
    surface_.set("u_texture_scale", opt.texture_scale);
    surface_.set("u_texture", 0);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, texture_.id());
    // with the wireframe on top, push the surface back a little so the lines are
    // not z-fought. Only then: the offset's slope term moved a skirt 1-4 mm over
    // the mannequin's thigh behind it, seen at a grazing angle, and the thigh
    // showed through (the dress at frame 150)
    const bool wire_on_top = opt.surface == SurfaceMode::ShadedWire;
    if (wire_on_top) {
      glEnable(GL_POLYGON_OFFSET_FILL);
      glPolygonOffset(1.f, 1.f);
    }
    cloth_.draw_surface();
    if (wire_on_top) glDisable(GL_POLYGON_OFFSET_FILL);
  }
  if (opt.surface != SurfaceMode::Shaded) {
    flat_.use();
    flat_.set("u_view_proj", vp);
    flat_.set("u_model", glm::mat4(1.f));
    bool only = opt.surface == SurfaceMode::Wireframe;
    flat_.set("u_color", only ? glm::vec4(opt.front_color, 1.f) : glm::vec4(0.08f, 0.08f, 0.09f, 1.f));
    cloth_.draw_wire();
  }
  (void)eye;
}

void Renderer::draw_markers(const World& w, const OrbitCamera& cam, const glm::mat4& vp, int height,
                            const ViewOptions& opt) {
  glEnable(GL_PROGRAM_POINT_SIZE);
  points_.use();
  points_.set("u_view_proj", vp);
  points_.set("u_viewport_height", float(height));
  points_.set("u_proj_scale", cam.projection(1.f)[1][1]);
  points_.set("u_use_radius", 0);
  if (opt.pins) {  // pins stay visible through the cloth
    glDisable(GL_DEPTH_TEST);
    points_.set("u_pixel_size", 9.f);
    points_.set("u_color", glm::vec4(0.95f, 0.18f, 0.22f, 1.f));
    cloth_.draw_pins();
    glEnable(GL_DEPTH_TEST);
  }
  if (opt.debug_overlays && w.solver()) {
    DebugDraw dd;
    w.solver()->debug_draw(dd);
    points_.set("u_pixel_size", 5.f);
    overlay_.draw_points(points_, dd.points, dd.point_radii, glm::vec4(0.3f, 0.9f, 0.4f, 1.f));
    flat_.use();
    flat_.set("u_view_proj", vp);
    overlay_.draw_lines(flat_, dd.lines, glm::vec4(1.f, 0.9f, 0.2f, 1.f));
  }
  if (opt.intersections) draw_intersections(w, vp);
  const Grab& g = w.grab();
  if (g.active) {  // the grab: a line from the held point to the cursor target
    std::vector<Vec3f> seg = {grab_point(w), g.target};
    flat_.use();
    flat_.set("u_view_proj", vp);
    glDisable(GL_DEPTH_TEST);
    overlay_.draw_lines(flat_, seg, glm::vec4(1.f, 1.f, 1.f, 0.9f));
    points_.use();
    points_.set("u_pixel_size", 7.f);
    overlay_.draw_points(points_, {g.target}, {}, glm::vec4(1.f, 1.f, 1.f, 1.f));
    glEnable(GL_DEPTH_TEST);
  }
}

// magenta outlines of both triangles of every intersecting pair (seen through the cloth)
void Renderer::draw_intersections(const World& w, const glm::mat4& vp) {
  const std::vector<Int2>& pairs = w.intersecting_pairs();
  if (pairs.empty()) return;
  std::vector<Vec3f> x = w.positions();
  const ObstacleSet& o = w.obstacles();
  const int nt = int(w.model().num_tris());
  std::vector<Vec3f> seg;
  auto outline = [&](int id) {
    bool cloth = id < nt;
    if (!cloth && size_t(id - nt) >= o.mesh_tris.size()) return;
    Int3 t = cloth ? w.model().tris[size_t(id)] : o.mesh_tris[size_t(id - nt)];
    const Vec3f* p = cloth ? x.data() : o.mesh_x.data();
    seg.insert(seg.end(), {p[t.a], p[t.b], p[t.b], p[t.c], p[t.c], p[t.a]});
  };
  for (const Int2& pr : pairs) {
    outline(pr.a);
    outline(pr.b);
  }
  flat_.use();
  flat_.set("u_view_proj", vp);
  glDisable(GL_DEPTH_TEST);
  overlay_.draw_lines(flat_, seg, glm::vec4(1.f, 0.2f, 0.9f, 1.f));
  glEnable(GL_DEPTH_TEST);
}

}  // namespace cb::render
