#include "sim/io/obj.h"

#include <tiny_obj_loader.h>

#include <algorithm>
#include <cstring>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "sim/core/error.h"
#include "sim/model/mesh_check.h"
#include "sim/model/near_points.h"

namespace cb {
namespace {

std::string first_line(const std::string& s) {
  std::string l = s.substr(0, s.find('\n'));
  return l;
}

void collect_faces(const tinyobj::attrib_t& attrib, const std::vector<tinyobj::shape_t>& shapes, const std::string& path,
                   TriMesh& m, bool want_uvs) {
  const int64_t nv = int64_t(attrib.vertices.size() / 3);
  const int64_t nt = int64_t(attrib.texcoords.size() / 2);
  std::vector<uint8_t> has_uv(size_t(nv), 0);
  if (want_uvs && nt > 0) m.uvs.assign(size_t(nv), Vec2f{});
  for (const auto& sh : shapes) {
    size_t off = 0;
    for (size_t f = 0; f < sh.mesh.num_face_vertices.size(); ++f) {
      const int fv = sh.mesh.num_face_vertices[f];
      for (int k = 0; k < fv; ++k) {
        const tinyobj::index_t& ix = sh.mesh.indices[off + size_t(k)];
        if (ix.vertex_index < 0 || ix.vertex_index >= nv)
          throw Error(path + ": face " + std::to_string(f + 1) + " refers to vertex " +
                      std::to_string(ix.vertex_index + 1) + " but the file has " + std::to_string(nv) + " vertices");
        if (!m.uvs.empty() && ix.texcoord_index >= 0 && ix.texcoord_index < nt && !has_uv[size_t(ix.vertex_index)]) {
          has_uv[size_t(ix.vertex_index)] = 1;
          m.uvs[size_t(ix.vertex_index)] = {attrib.texcoords[2 * size_t(ix.texcoord_index)],
                                            attrib.texcoords[2 * size_t(ix.texcoord_index) + 1]};
        }
      }
      // fan triangulation (tinyobj already triangulates; this keeps polygons safe)
      for (int k = 1; k + 1 < fv; ++k)
        m.tris.push_back({sh.mesh.indices[off].vertex_index, sh.mesh.indices[off + size_t(k)].vertex_index,
                          sh.mesh.indices[off + size_t(k) + 1].vertex_index});
      off += size_t(fv);
    }
  }
}

}  // namespace

TriMesh read_obj(const std::string& path, const ObjReadOptions& opts) {
  std::ifstream probe(path);
  if (!probe) throw Error(path + ": cannot open the file (missing or unreadable)");
  tinyobj::ObjReaderConfig cfg;
  cfg.triangulate = true;
  cfg.vertex_color = false;
  tinyobj::ObjReader reader;
  if (!reader.ParseFromFile(path, cfg)) {
    std::string e = reader.Error().empty() ? std::string("not a readable OBJ file") : first_line(reader.Error());
    throw Error(path + ": " + e);
  }
  const auto& attrib = reader.GetAttrib();
  TriMesh m;
  m.source = path;
  // positions through our own strict reader: tinyobjloader reads "nan" as 0
  m.positions = read_obj_positions(path);
  if (m.positions.size() != attrib.vertices.size() / 3)
    throw Error(path + ": unreadable vertex lines (" + std::to_string(m.positions.size()) + " of " +
                std::to_string(attrib.vertices.size() / 3) + " vertices read)");
  collect_faces(attrib, reader.GetShapes(), path, m, opts.want_uvs);
  if (m.tris.empty())
    throw Error(path + ": no faces found (" + std::to_string(m.positions.size()) + " vertices, 0 triangles)");
  if (opts.weld_distance > 0) weld_vertices(m, opts.weld_distance);
  return m;
}

std::vector<Vec3f> read_obj_positions(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open the file (missing or unreadable)");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<Vec3f> out;
  const char* p = text.c_str();
  const char* end = p + text.size();
  size_t line = 1;
  while (p < end) {
    if (p[0] == 'v' && (p[1] == ' ' || p[1] == '\t')) {
      char* q = nullptr;
      Vec3f v;
      v.x = std::strtof(p + 2, &q);
      v.y = std::strtof(q, &q);
      v.z = std::strtof(q, &q);
      // the message is built only for a bad vertex: this loop reads every vertex line
      auto fail = [&](const std::string& what) {
        throw Error(path + ": line " + std::to_string(line) + ": vertex " + std::to_string(out.size() + 1) + " " +
                    what);
      };
      if (q == p + 2 || !is_finite(v)) fail("has a non-finite or unreadable coordinate");
      if (const std::string problem = coordinate_problem(v); !problem.empty()) fail(problem);
      out.push_back(v);
    }
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', size_t(end - p)));
    p = nl ? nl + 1 : end;
    ++line;
  }
  if (out.empty()) throw Error(path + ": no vertices found");
  return out;
}

void write_obj(const std::string& path, const std::vector<Vec3f>& positions, const std::vector<Int3>& tris,
               const std::vector<Vec2f>* uvs) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw Error(path + ": cannot write the file");
  std::fprintf(f, "# clothbox export: %zu vertices, %zu triangles\n", positions.size(), tris.size());
  for (const Vec3f& p : positions) std::fprintf(f, "v %.7g %.7g %.7g\n", p.x, p.y, p.z);
  const bool with_uv = uvs && uvs->size() == positions.size();
  if (with_uv)
    for (const Vec2f& t : *uvs) std::fprintf(f, "vt %.7g %.7g\n", t.x, t.y);
  for (const Int3& t : tris) {
    if (with_uv)
      std::fprintf(f, "f %d/%d %d/%d %d/%d\n", t.a + 1, t.a + 1, t.b + 1, t.b + 1, t.c + 1, t.c + 1);
    else
      std::fprintf(f, "f %d %d %d\n", t.a + 1, t.b + 1, t.c + 1);
  }
  bool ok = std::ferror(f) == 0;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) throw Error(path + ": write failed (disk full?)");
}

size_t weld_vertices(TriMesh& m, float distance) {
  // each vertex merges into the first kept one within `distance`, else is kept
  NearPoints kept(distance);
  std::vector<int32_t> remap(m.positions.size());
  std::vector<Vec3f> pos;
  std::vector<Vec2f> uvs;
  for (uint32_t i = 0; i < m.positions.size(); ++i) {
    const Vec3f p = m.positions[i];
    int32_t found = kept.find(pos, p);
    if (found < 0) {
      found = int32_t(pos.size());
      pos.push_back(p);
      if (!m.uvs.empty()) uvs.push_back(m.uvs[i]);
      kept.add(p, uint32_t(found));
    }
    remap[i] = found;
  }
  std::vector<Int3> tris;
  tris.reserve(m.tris.size());
  for (const Int3& t : m.tris) {
    Int3 r{remap[size_t(t.a)], remap[size_t(t.b)], remap[size_t(t.c)]};
    if (r.a != r.b && r.b != r.c && r.a != r.c) tris.push_back(r);
  }
  size_t removed = m.positions.size() - pos.size();
  m.positions = std::move(pos);
  m.uvs = std::move(uvs);
  m.tris = std::move(tris);
  return removed;
}

}  // namespace cb
