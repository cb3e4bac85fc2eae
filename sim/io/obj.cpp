#include "sim/io/obj.h"

#include <tiny_obj_loader.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

// the whole file as text
std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open the file (missing or unreadable)");
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// f(line number from 1, first char, one past the last) for each line of text
template <class F>
void for_each_line(const std::string& text, F f) {
  const char* p = text.c_str();
  const char* end = p + text.size();
  for (size_t line = 1; p < end; ++line) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', size_t(end - p)));
    const char* stop = nl ? nl : end;
    f(line, p, stop);
    p = nl ? nl + 1 : end;
  }
}

bool starts_with_tag(const char* p, const char* end, char tag) {
  return end - p >= 2 && p[0] == tag && (p[1] == ' ' || p[1] == '\t');
}

// The positions, read strictly: tinyobjloader reads "nan" as 0.
std::vector<Vec3f> positions_from_text(const std::string& path, const std::string& text) {
  std::vector<Vec3f> out;
  for_each_line(text, [&](size_t line, const char* p, const char* end) {
    if (!starts_with_tag(p, end, 'v')) return;
    char* q = nullptr;
    Vec3f v;
    v.x = std::strtof(p + 2, &q);
    v.y = std::strtof(q, &q);
    v.z = std::strtof(q, &q);
    // the message is built only for a bad vertex: this loop reads every vertex line
    auto fail = [&](const std::string& what) {
      throw Error(path + ": line " + std::to_string(line) + ": vertex " + std::to_string(out.size() + 1) + " " + what);
    };
    if (q == p + 2 || !is_finite(v)) fail("has a non-finite or unreadable coordinate");
    if (const std::string problem = coordinate_problem(v); !problem.empty()) fail(problem);
    out.push_back(v);
  });
  if (out.empty()) throw Error(path + ": no vertices found");
  return out;
}

// Every face line's vertex indices, checked before tinyobjloader reads them: it
// reports a zero or unreadable index as "Failed parse `f' line", wraps an index
// beyond 32 bits around to a valid vertex, and drops a polygon whose index is
// beyond the vertices without a word. An index is 1 ... nv, or -1 ... -(the
// vertices defined so far) counted back from the last; 3 or more a face.
void check_face_indices(const std::string& path, const std::string& text, size_t nv) {
  size_t face = 0, seen = 0;
  for_each_line(text, [&](size_t line, const char* p, const char* end) {
    if (starts_with_tag(p, end, 'v')) ++seen;
    if (!starts_with_tag(p, end, 'f')) return;
    ++face;
    const std::string where = path + ": line " + std::to_string(line) + ": face " + std::to_string(face);
    std::istringstream tokens(std::string(p + 2, end));
    std::string tok;
    int corners = 0;
    while (tokens >> tok) {
      ++corners;
      const std::string index = tok.substr(0, tok.find('/'));
      errno = 0;
      char* q = nullptr;
      const long long i = std::strtoll(index.c_str(), &q, 10);
      if (index.empty() || *q != '\0') throw Error(where + " has an unreadable vertex index '" + tok + "'");
      if (i == 0) throw Error(where + " has vertex index 0 (OBJ counts vertices from 1)");
      const bool beyond = errno == ERANGE || (i > 0 ? size_t(i) > nv : size_t(-(i + 1)) >= seen);
      if (beyond)
        throw Error(where + " refers to vertex " + index + " but " +
                    (i > 0 ? "the file has " + std::to_string(nv) + " vertices"
                           : "only " + std::to_string(seen) + " vertices come before it"));
    }
    if (corners < 3)
      throw Error(where + " has " + (corners == 1 ? std::string("1 vertex") : std::to_string(corners) + " vertices") +
                  " (a face needs 3 or more)");
  });
}

}  // namespace

TriMesh read_obj(const std::string& path, const ObjReadOptions& opts) {
  const std::string text = read_text(path);
  // positions and face indices through our own strict readers first (above);
  // tinyobjloader then parses the same text (its mtllib lines ignored: the
  // materials are not used)
  std::vector<Vec3f> positions = positions_from_text(path, text);
  check_face_indices(path, text, positions.size());
  tinyobj::ObjReaderConfig cfg;
  cfg.triangulate = true;
  cfg.vertex_color = false;
  tinyobj::ObjReader reader;
  if (!reader.ParseFromString(text, "", cfg)) {
    std::string e = reader.Error().empty() ? std::string("not a readable OBJ file") : first_line(reader.Error());
    throw Error(path + ": " + e);
  }
  const auto& attrib = reader.GetAttrib();
  TriMesh m;
  m.source = path;
  m.positions = std::move(positions);
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
  return positions_from_text(path, read_text(path));
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
