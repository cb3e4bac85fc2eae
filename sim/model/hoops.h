// Hoops: closed boundary loops of the cloth (a waistband, a cuff, a hem, a
// sheet's edge) with one constraint each on their length, for the solvers
// whose passes are local (Verlet's strain limit, pbd's constraints).
//
// A loop stretched evenly all round is nearly a fixed point of local passes
// (Verlet's Jacobi strain passes, say). Each spring's correction runs along the
// loop, and the two at a vertex cancel but for a radial part 2 sin(pi / N) of
// it, so a pass takes back about (pi / N)^2 of the stretch: ~10^-4 for the
// 256-vertex waistband of ../shared's skirt4K. That skirt, switched to Verlet
// on the kicking mannequin, dropped onto the hips, whose girth is 14 % more than its
// waistband's: the obstacle pushed the waistband out, the passes could not
// pull it back, and it passed the hips at 18 % stretch and fell to the floor
// (RESULTS.md, forty-third session). The path-length long constraints
// (strain_rows.h) cannot see it either: round a loop the chord is shorter than
// the path. pbd's Gauss-Seidel membrane, meant to be stiff, let the same
// waistband stretch 17 % and slide to the hips' widest girth (RESULTS.md,
// thirty-second and forty-third sessions). Each solver gives the limit s:
// Verlet its strain limit, pbd its hoop_stretch.
//
// The constraint is on the loop's coarse length: C = (1/m) sum_k |x_{k+m} -
// x_k| - (1 + s) L0 <= 0, chords of m edges (the span, up to kHoopSpan) and L0
// the rest length along the loop. Each chord is at most (1 + s) times the m
// rest edges it spans whenever the edges are within (1 + s), so C <= 0 never
// holds back a shape the edges allow. Chords, not edges: a band
// crinkled where it is pressed onto the body has its length in crinkles the
// springs straighten locally; the gradient of the edge sum pointed into them,
// and a step along it could not shorten the loop (it stayed at 19 % stretch),
// while a chord's gradient is the hoop's contraction. It is projected as one
// constraint, mass-weighted: x_k += a w_k (T_k - T_{k-m}), T_k the unit chord
// from x_k to x_{k+m}, with the step a from C's second-order model along that
// direction (hoops.cu). On a circle that is the whole contraction in one step.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/backend.h"
#include "sim/core/buffer.h"
#include "sim/core/math.h"
#include "sim/model/topology.h"

namespace cb {

/// Closed boundary loops, each vertex in order round its loop.
struct Hoops {
  std::vector<uint32_t> offsets;   ///< (nloops + 1) into ids
  std::vector<uint32_t> ids;       ///< loop vertices, loop by loop, consecutive ones joined by a boundary edge
  std::vector<uint32_t> loop_of;   ///< (nentries) the loop each entry is in
  std::vector<float> rest_length;  ///< (nloops) m, sum of the loop's rest edge lengths
  std::vector<int32_t> span;       ///< (nloops) edges per chord of the coarse length
  /// The entries in chunks of at most kHoopChunk, none across two loops: a
  /// loop's sums are summed chunk by chunk in parallel, then over its chunks
  /// (a 1 M-vertex sheet's edge is one loop of 4,000 entries).
  std::vector<uint32_t> chunk_offsets;  ///< (nchunks + 1) into ids
  std::vector<uint32_t> loop_chunks;    ///< (nloops + 1) into the chunks
  size_t size() const { return rest_length.size(); }
};

/// Entries per chunk (Hoops::chunk_offsets).
constexpr int kHoopChunk = 64;

/// Edges per chord: kHoopSpan, or a sixth of a loop with fewer than 6 kHoopSpan vertices (at least 1).
constexpr int kHoopSpan = 8;

/// The closed loops of `topo`'s boundary edges with at least 3 vertices. A
/// boundary vertex with other than two boundary edges (two sheets touching at
/// a corner) ends the walk, and an open walk is not a loop. rest: (nverts) m.
Hoops find_hoops(const Topology& topo, const std::vector<Vec3f>& rest);

/// Backend copy of Hoops, with per-entry scratch.
struct HoopView {
  const uint32_t* off = nullptr;   ///< (nloops + 1)
  const uint32_t* ids = nullptr;   ///< (nentries)
  const uint32_t* loop_of = nullptr;  ///< (nentries)
  const float* rest = nullptr;     ///< (nloops) m
  const int32_t* span = nullptr;   ///< (nloops)
  const uint32_t* chunk_off = nullptr;    ///< (nchunks + 1)
  const uint32_t* loop_chunks = nullptr;  ///< (nloops + 1)
  Vec3f* tangent = nullptr;        ///< (nentries) scratch: unit chord from entry k's vertex to entry k + span's
  float* length = nullptr;         ///< (nentries) scratch: m, that chord's length
  Vec3f* terms = nullptr;          ///< (nentries) scratch: entry k's share of the loop's (length, slope, curvature)
  Vec3f* chunk_sums = nullptr;     ///< (nchunks) scratch: those summed over each chunk
  float* lambda = nullptr;         ///< (nloops) scratch: m kg, the projection's step a (0 = within the limit)
  int nloops = 0;
  int nentries = 0;
  int nchunks = 0;
};

/// Projects every loop whose coarse length exceeds (1 + max_stretch) rest onto
/// that length (the header's step), in place; moved (optional, (n)): set to 1
/// where a vertex moved. w: (n) inverse masses (0 = held).
void limit_hoops(const Context& ctx, const HoopView& h, float max_stretch, const float* w, Vec3f* x,
                 uint8_t* moved);

/// The hoops in backend memory, with the projection's scratch.
class DeviceHoops {
 public:
  void upload(const Context& ctx, const Hoops& hoops);
  HoopView view();
  int size() const { return nloops_; }
  size_t bytes() const;

 private:
  DeviceBuffer<uint32_t> off_, ids_, loop_of_, chunk_off_, loop_chunks_;
  DeviceBuffer<float> rest_, length_, lambda_;
  DeviceBuffer<int32_t> span_;
  DeviceBuffer<Vec3f> tangent_, terms_, chunk_sums_;
  int nloops_ = 0;
};

}  // namespace cb
