// Draws one World: ground grid and planes, obstacles, the cloth (shaded,
// wireframe or both; two-sided; optional texture), pin markers, the grab line
// and the solver's debug overlays. Owns every GL resource of the scene view.
#pragma once

#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "render/camera.h"
#include "render/cloth_mesh.h"
#include "render/gl_objects.h"
#include "render/obstacle_draw.h"
#include "render/overlay_draw.h"
#include "render/shader.h"
#include "sim/world.h"

namespace cb::render {

enum class SurfaceMode { Shaded = 0, Wireframe = 1, ShadedWire = 2 };

/// What the View options of the UI toggle.
struct ViewOptions {
  SurfaceMode surface = SurfaceMode::Shaded;
  bool texture = false;
  float texture_scale = 4.f;     ///< texture repeats per unit of UV
  bool obstacles = true;
  bool ground = true;
  bool pins = true;
  bool debug_overlays = false;   ///< the solver's DebugDraw (contacts, spheres)
  bool intersections = true;     ///< outline triangles in World::intersecting_pairs()
  glm::vec3 front_color{0.92f, 0.45f, 0.16f};
  glm::vec3 back_color{0.20f, 0.44f, 0.85f};
  glm::vec3 background{0.17f, 0.18f, 0.19f};
};

/// Current world position (m) of the grabbed surface point (copies three vertices).
Vec3f grab_point(const World& w);

class Renderer {
 public:
  /// Loads the shaders (find_shader_dir) and the default texture. Needs a GL context.
  void init();
  /// Rebuilds the cloth and obstacle buffers for a new world (scene load/reload).
  void set_world(const World& w);
  /// Publishes this frame's cloth vertices (interop or upload) and moved obstacles.
  void publish(const World& w);
  /// Draws the scene into the current framebuffer (width x height px).
  void draw(const World& w, const OrbitCamera& cam, int width, int height, const ViewOptions& opt);
  /// Replaces the cloth texture with an image file; "" or why not.
  std::string load_texture_file(const std::string& path);

  PublishPath path() const { return cloth_.path(); }
  const std::string& interop_note() const { return cloth_.interop_note(); }

 private:
  void draw_cloth(const glm::mat4& vp, glm::vec3 eye, const ViewOptions& opt);
  void draw_markers(const World& w, const OrbitCamera& cam, const glm::mat4& vp, int height, const ViewOptions& opt);
  void sync_pins(const World& w);
  void draw_intersections(const World& w, const glm::mat4& vp);

  Shader surface_, flat_, points_, ground_;
  ClothMesh cloth_;
  ObstacleDraw obstacles_;
  OverlayDraw overlay_;
  GlMesh fallback_ground_;  ///< grid at y = 0 when the scene has no plane
  GlTexture texture_;
  std::vector<uint32_t> pins_;
  bool has_plane_ = false;
};

}  // namespace cb::render
