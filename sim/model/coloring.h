// Greedy graph colouring of constraints (edges, bending pairs, ...): no two
// elements of one colour share a vertex, so one colour can be solved in parallel
// without write conflicts (Fratarcangeli & Pellacini's parallel Gauss-Seidel).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cb {

struct Coloring {
  std::vector<uint32_t> order;        ///< (nelems) element ids grouped by colour
  std::vector<uint32_t> color_start;  ///< (ncolors + 1) offsets into `order`
  int num_colors() const { return color_start.empty() ? 0 : int(color_start.size()) - 1; }
};

/// Colours elements given their vertex lists: elem_verts[e*arity + k], k < arity
/// (negative ids are ignored). Greedy, elements in order, smallest free colour.
Coloring greedy_coloring(const std::vector<int32_t>& elem_verts, int arity, size_t nverts);

/// True when no two elements of one colour share a vertex.
bool coloring_is_valid(const Coloring& c, const std::vector<int32_t>& elem_verts, int arity, size_t nverts);

}  // namespace cb
