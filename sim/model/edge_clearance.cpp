#include "sim/model/edge_clearance.h"

#include <algorithm>

namespace cb {

std::vector<float> longest_rest_edges(const ClothModel& model) {
  std::vector<float> longest(model.num_vertices(), 0.f);
  for (size_t e = 0; e < model.topo.edges.size(); ++e) {
    const Int2 ab = model.topo.edges[e];
    const float l = model.rest_edge_length[e];
    longest[size_t(ab.a)] = std::max(longest[size_t(ab.a)], l);
    longest[size_t(ab.b)] = std::max(longest[size_t(ab.b)], l);
  }
  return longest;
}

float largest_edge_clearance(const ClothModel& model, const std::vector<float>& longest) {
  float worst = 0.f;
  for (size_t i = 0; i < longest.size(); ++i)
    worst = std::max(worst, edge_clearance(model.material_of_vertex(uint32_t(i)).thickness, longest[i],
                                           1.f / kSharpestClearedRadius));
  return worst;
}

}  // namespace cb
