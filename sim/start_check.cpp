#include "sim/start_check.h"

#include <map>
#include <utility>

namespace cb {
namespace {

// piece of cloth triangle t
uint32_t piece_of(const ClothModel& m, int t) { return m.vert_piece[size_t(m.tris[size_t(t)].a)]; }

// triangle t's number within its piece
uint32_t local(const ClothModel& m, int t) { return uint32_t(t) - m.pieces[piece_of(m, t)].first_tri; }

std::string quoted(const ClothModel& m, uint32_t piece) { return "cloth '" + m.pieces[piece].name + "'"; }

}  // namespace

std::vector<std::string> start_intersection_warnings(const ClothModel& model, const std::vector<Int2>& pairs) {
  // (piece, other piece or -1 for the obstacles) -> count and first pair
  struct Group {
    size_t count = 0;
    Int2 first;
  };
  std::map<std::pair<uint32_t, int64_t>, Group> groups;
  const int ntris = int(model.num_tris());
  for (const Int2& p : pairs) {
    const uint32_t a = piece_of(model, p.a);
    const int64_t b = p.b < ntris ? int64_t(piece_of(model, p.b)) : -1;
    Group& g = groups[{a, b}];
    if (g.count++ == 0) g.first = p;
  }
  const std::string keep =
      "; Verlet and pbd keep crossings they start with; I-Cloth first tries to untangle them "
      "(untangle_iterations), and its promise of no intersecting pair after a step holds once a frame starts clean";
  std::vector<std::string> out;
  for (const auto& kv : groups) {
    const uint32_t a = kv.first.first;
    const int64_t b = kv.first.second;
    const Group& g = kv.second;
    const std::string n = std::to_string(g.count) + " triangle pair" + (g.count == 1 ? "" : "s");
    std::string what;
    if (b == -1)
      what = quoted(model, a) + " intersects an obstacle at the start (" + n + ", first: its triangle " +
             std::to_string(local(model, g.first.a)) + " and obstacle triangle " + std::to_string(g.first.b - ntris) +
             ")";
    else if (b == int64_t(a))
      what = quoted(model, a) + " intersects itself at the start (" + n + ", first: triangles " +
             std::to_string(local(model, g.first.a)) + " and " + std::to_string(local(model, g.first.b)) + ")";
    else
      what = quoted(model, a) + " and " + quoted(model, uint32_t(b)) + " intersect at the start (" + n +
             ", first: triangle " + std::to_string(local(model, g.first.a)) + " of the first and " +
             std::to_string(local(model, g.first.b)) + " of the second)";
    out.push_back(what + keep);
  }
  return out;
}

}  // namespace cb
