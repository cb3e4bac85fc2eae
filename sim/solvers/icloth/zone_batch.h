// The impact zones of one round, packed into flat arrays and solved together on
// the backend (Tang et al. 2018, Algorithm 3): on CUDA one thread block per zone,
// its threads sharing the zone's vertices and impacts (zone_solver.h with a block
// team), and a zone too large for one block (a fold squeezed in a funnel: tens of
// thousands of impacts) by the whole device in a cooperative launch with
// grid-wide barriers (on a device without cooperative launch, by one block like
// the rest); on the CPU one zone per OpenMP work item with the serial team.
#pragma once

#include <vector>

#include "sim/core/backend.h"
#include "sim/core/buffer.h"
#include "sim/solvers/icloth/zone_solver.h"

namespace cb::icloth {

/// Zones packed for one launch (host). Zone z owns the vertices
/// [vert_off[z], vert_off[z + 1]), the impacts [imp_off[z], imp_off[z + 1]) and
/// the membrane's edges [edge_off[z], edge_off[z + 1]) of the flat arrays; an
/// impact's and an edge's lv are local to its zone.
struct ZoneBatch {
  std::vector<int> vert_off{0}, imp_off{0}, edge_off{0};  ///< (nzones + 1)
  std::vector<Vec3f> x;          ///< m, in: start guesses, out: solutions
  std::vector<Vec3f> xt;         ///< m, unconstrained end positions
  std::vector<float> m;          ///< kg
  std::vector<ZoneImpact> imp;
  std::vector<ZoneEdge> edges;   ///< empty when the membrane is off
  size_t num_zones() const { return vert_off.size() - 1; }
  /// Closes the zone made of the vertices, impacts and edges appended since the last call.
  void end_zone() {
    vert_off.push_back(int(x.size()));
    imp_off.push_back(int(imp.size()));
    edge_off.push_back(int(edges.size()));
  }
};

/// Backend copies of a batch and the solver's scratch, reused between rounds.
struct ZoneBatchScratch {
  DeviceBuffer<int> vert_off, imp_off, edge_off, inc_off, inc;
  DeviceBuffer<Vec3f> x, xt, g, xprev, xtry;
  DeviceBuffer<float> m, lambda, ct, D;
  DeviceBuffer<ZoneImpact> imp;
  DeviceBuffer<ZoneEdge> edges;
  DeviceBuffer<ZoneResult> results;
  DeviceBuffer<double> part_d;  ///< large zones: per-block partial sums
  DeviceBuffer<float> part_f;
  /// CUDA: a zone of more vertices + impacts than this is solved by the whole
  /// device (one cooperative launch, GridTeam); the rest one block each. Tests
  /// raise it to solve a large zone with one block and compare the two teams.
  int whole_device_from = 8192;
};

/// Solves every zone of b; b.x holds the solutions afterwards. One result per zone.
std::vector<ZoneResult> solve_zones(const Context& ctx, ZoneBatch& b, const ZoneSettings& s, ZoneBatchScratch& scratch);

}  // namespace cb::icloth
