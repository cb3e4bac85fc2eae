// The implicit system of the I-Cloth solver: rest data of the elements and the
// 3x3 block-sparse pattern whose rows are vertices and whose blocks come from the
// topology (a vertex, its edge neighbours and the opposite vertices of its
// bending hinges). Assembly is gather-only: every block and every vertex force
// sums a precomputed list of element contributions, so no atomics are needed and
// the CPU result does not depend on the thread count.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/buffer.h"
#include "sim/model/cloth_model.h"
#include "sim/solvers/icloth/bending.h"
#include "sim/solvers/icloth/membrane.h"

namespace cb::icloth {

/// Rest data of all elements of a model.
struct ElementRest {
  std::vector<TriRest> tris;    ///< (ntris)
  std::vector<BendRest> bends;  ///< (nbends)
};

/// Builds the material frames, stiffnesses and rest angles. weft_ratio scales the
/// stretch stiffness across the warp (k_v = k_u * weft_ratio).
ElementRest build_element_rest(const ClothModel& model, float weft_ratio);

/// Host description of the block pattern and the gather lists (CSR everywhere).
struct BlockPattern {
  std::vector<uint32_t> row_offsets;  ///< (nverts + 1) blocks of row i: [row_offsets[i], row_offsets[i+1])
  std::vector<uint32_t> cols;         ///< (nnz) column vertex of each block, sorted per row
  std::vector<uint32_t> diag;         ///< (nverts) index of block (i, i)
  std::vector<uint32_t> tri_src_off, tri_src;    ///< per block: entries t*9 + 3*li + lj
  std::vector<uint32_t> bend_src_off, bend_src;  ///< per block: entries b*16 + 4*li + lj
  std::vector<uint32_t> vtri_off, vtri;          ///< per vertex: entries t*3 + li
  std::vector<uint32_t> vbend_off, vbend;        ///< per vertex: entries b*4 + li
  size_t nnz() const { return cols.size(); }
};

BlockPattern build_block_pattern(size_t nverts, const std::vector<Int3>& tris, const std::vector<Int4>& bends);

/// Raw pointers to the backend copy of the pattern (kernel arguments).
struct PatternView {
  int nverts = 0, nnz = 0;
  const uint32_t *row_offsets = nullptr, *cols = nullptr, *diag = nullptr;
  const uint32_t *tri_src_off = nullptr, *tri_src = nullptr, *bend_src_off = nullptr, *bend_src = nullptr;
  const uint32_t *vtri_off = nullptr, *vtri = nullptr, *vbend_off = nullptr, *vbend = nullptr;
};

/// Backend copy of a BlockPattern.
struct DevicePattern {
  DeviceBuffer<uint32_t> row_offsets, cols, diag, tri_src_off, tri_src, bend_src_off, bend_src;
  DeviceBuffer<uint32_t> vtri_off, vtri, vbend_off, vbend;
  void upload(const Context& ctx, const BlockPattern& p);
  PatternView view() const;
  size_t bytes() const;
};

}  // namespace cb::icloth
