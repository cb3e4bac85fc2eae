#include "render/obstacle_draw.h"

namespace cb::render {

glm::mat4 to_mat4(const Transform& t) {
  glm::mat4 m(1.f);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) m[c][r] = t.R.m[r][c];
  m[3] = glm::vec4(t.t.x, t.t.y, t.t.z, 1.f);
  return m;
}

void GlMesh::upload(const TessMesh& m) {
  pos.allocate(GL_ARRAY_BUFFER, m.positions.size() * sizeof(Vec3f), m.positions.data(), GL_DYNAMIC_DRAW);
  nrm.allocate(GL_ARRAY_BUFFER, m.normals.size() * sizeof(Vec3f), m.normals.data(), GL_DYNAMIC_DRAW);
  ebo.allocate(GL_COPY_WRITE_BUFFER, m.indices.size() * sizeof(uint32_t), m.indices.data(), GL_STATIC_DRAW);
  vao.create();
  vao.attribute(0, pos, 3);
  vao.attribute(1, nrm, 3);
  glBindVertexArray(0);
  count = int(m.indices.size());
}

void GlMesh::draw() const {
  if (count == 0) return;
  vao.bind();
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ebo.id());
  glDrawElements(GL_TRIANGLES, count, GL_UNSIGNED_INT, nullptr);
  glBindVertexArray(0);
}

void ObstacleDraw::build(const ObstacleSet& o, float plane_half_size) {
  shapes_.clear();
  shapes_.resize(o.shapes.size());
  for (size_t i = 0; i < o.shapes.size(); ++i) shapes_[i].upload(tessellate_shape(o.shapes[i], plane_half_size));
  mesh_tris_ = o.mesh_tris;
  meshes_ = GlMesh{};
  mesh_version_ = ~0ull;
  update(o);
}

void ObstacleDraw::update(const ObstacleSet& o) {
  if (o.mesh_tris.empty() || o.mesh_version == mesh_version_) return;
  mesh_version_ = o.mesh_version;
  std::vector<Vec3f> n = smooth_normals(o.mesh_x, o.mesh_tris);
  if (meshes_.count == 0) {
    TessMesh m;
    m.positions = o.mesh_x;
    m.normals = n;
    for (const Int3& t : o.mesh_tris) m.indices.insert(m.indices.end(), {uint32_t(t.a), uint32_t(t.b), uint32_t(t.c)});
    meshes_.upload(m);
    return;
  }
  meshes_.pos.update(GL_ARRAY_BUFFER, o.mesh_x.size() * sizeof(Vec3f), o.mesh_x.data());
  meshes_.nrm.update(GL_ARRAY_BUFFER, n.size() * sizeof(Vec3f), n.data());
}

void ObstacleDraw::draw_solids(const Shader& surface, const ObstacleSet& o) const {
  for (size_t i = 0; i < shapes_.size() && i < o.shapes.size(); ++i) {
    if (o.shapes[i].kind == ShapeKind::Plane) continue;
    surface.set("u_model", to_mat4(o.shapes[i].pose));
    shapes_[i].draw();
  }
  surface.set("u_model", glm::mat4(1.f));
  meshes_.draw();
}

void ObstacleDraw::draw_planes(const Shader& ground, const ObstacleSet& o) const {
  for (size_t i = 0; i < shapes_.size() && i < o.shapes.size(); ++i) {
    if (o.shapes[i].kind != ShapeKind::Plane) continue;
    ground.set("u_model", to_mat4(o.shapes[i].pose));
    shapes_[i].draw();
  }
}

}  // namespace cb::render
