#include "render/cloth_mesh.h"

namespace cb::render {

const char* publish_path_name(PublishPath p) {
  switch (p) {
    case PublishPath::None: return "none";
    case PublishPath::CudaInterop: return "CUDA-GL interop (kernel writes the GL buffers, no host copy)";
    case PublishPath::CudaHostCopy: return "CUDA -> host -> glBufferSubData (interop unavailable)";
    case PublishPath::CpuUpload: return "CPU: glBufferSubData";
  }
  return "?";
}

void ClothMesh::build(const Context& ctx, const ClothModel& model) {
  bridge_.unregister();
  nverts_ = int(model.num_vertices());
  const size_t vbytes = model.num_vertices() * sizeof(Vec3f);
  pos_.allocate(GL_ARRAY_BUFFER, vbytes, model.rest.data(), GL_DYNAMIC_DRAW);
  nrm_.allocate(GL_ARRAY_BUFFER, vbytes, nullptr, GL_DYNAMIC_DRAW);
  std::vector<Vec2f> uv = model.uv;
  uv.resize(model.num_vertices());
  uv_.allocate(GL_ARRAY_BUFFER, uv.size() * sizeof(Vec2f), uv.data(), GL_STATIC_DRAW);
  vao_.create();
  vao_.attribute(0, pos_, 3);
  vao_.attribute(1, nrm_, 3);
  vao_.attribute(2, uv_, 2);
  glBindVertexArray(0);
  tri_ebo_.allocate(GL_COPY_WRITE_BUFFER, model.tris.size() * sizeof(Int3), model.tris.data(), GL_STATIC_DRAW);
  edge_ebo_.allocate(GL_COPY_WRITE_BUFFER, model.topo.edges.size() * sizeof(Int2), model.topo.edges.data(),
                     GL_STATIC_DRAW);
  ntri_idx_ = int(model.tris.size() * 3);
  nedge_idx_ = int(model.topo.edges.size() * 2);
  topo_.upload(ctx, model);
  interop_note_.clear();
  if (ctx.is_cuda()) interop_note_ = bridge_.register_buffers(pos_.id(), nrm_.id());
  path_ = PublishPath::None;
}

void ClothMesh::publish(const Context& ctx, const SimState& state) {
  if (nverts_ == 0 || state.size() != size_t(nverts_)) return;
  if (ctx.is_cuda() && bridge_.registered()) {
    Vec3f *px = nullptr, *pn = nullptr;
    std::string err = bridge_.map(&px, &pn);
    if (err.empty()) {
      write_cloth_vertices(ctx, topo_, state.x.data(), px, pn);
      bridge_.unmap();
      path_ = PublishPath::CudaInterop;
      return;
    }
    interop_note_ = err;
    bridge_.unregister();
  }
  const size_t bytes = size_t(nverts_) * sizeof(Vec3f);
  if (ctx.is_cuda()) {  // kernel into backend scratch, then one host copy
    stage_x_.resize(ctx, size_t(nverts_));
    stage_n_.resize(ctx, size_t(nverts_));
    write_cloth_vertices(ctx, topo_, state.x.data(), stage_x_.data(), stage_n_.data());
    stage_x_.download(host_x_);
    stage_n_.download(host_n_);
    path_ = PublishPath::CudaHostCopy;
  } else {
    host_x_.resize(size_t(nverts_));
    host_n_.resize(size_t(nverts_));
    write_cloth_vertices(ctx, topo_, state.x.data(), host_x_.data(), host_n_.data());
    path_ = PublishPath::CpuUpload;
  }
  pos_.update(GL_ARRAY_BUFFER, bytes, host_x_.data());
  nrm_.update(GL_ARRAY_BUFFER, bytes, host_n_.data());
}

void ClothMesh::set_pins(const std::vector<uint32_t>& ids) {
  npins_ = int(ids.size());
  glBindVertexArray(0);
  pin_ebo_.allocate(GL_COPY_WRITE_BUFFER, ids.size() * sizeof(uint32_t), ids.data(), GL_DYNAMIC_DRAW);
}

void ClothMesh::draw_surface() const {
  vao_.bind();
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, tri_ebo_.id());
  glDrawElements(GL_TRIANGLES, ntri_idx_, GL_UNSIGNED_INT, nullptr);
  glBindVertexArray(0);
}

void ClothMesh::draw_wire() const {
  vao_.bind();
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, edge_ebo_.id());
  glDrawElements(GL_LINES, nedge_idx_, GL_UNSIGNED_INT, nullptr);
  glBindVertexArray(0);
}

void ClothMesh::draw_pins() const {
  if (npins_ == 0) return;
  vao_.bind();
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, pin_ebo_.id());
  glDrawElements(GL_POINTS, npins_, GL_UNSIGNED_INT, nullptr);
  glBindVertexArray(0);
}

}  // namespace cb::render
