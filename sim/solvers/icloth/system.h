// The implicit system of the I-Cloth solver: rest data of the elements and the
// 3x3 block-sparse pattern whose rows are vertices and whose blocks come from the
// topology (a vertex, its edge neighbours and the opposite vertices of its
// bending hinges). Assembly is gather-only: every block and every vertex force
// sums a precomputed list of element contributions, so no atomics are needed and
// the CPU result does not depend on the thread count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/buffer.h"
#include "sim/model/cloth_model.h"
#include "sim/solvers/icloth/bending.h"
#include "sim/solvers/icloth/mat3.h"
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

/// Blocks split by component: the 32 blocks k with the same k >> 5 hold their 9
/// components as 9 runs of 32 floats, component c of block k at float
/// (k >> 5) * 288 + 32 c + (k & 31) (a warp's load of one component of 32
/// consecutive blocks reads 128 consecutive bytes). An array of n such blocks
/// takes split_blocks(n) blocks' memory.
CB_HD inline size_t split_float(uint32_t k) { return size_t(k >> 5) * 288u + (k & 31u); }
static_assert(sizeof(M3) == 9 * sizeof(float), "a block array is read as consecutive floats");
inline size_t split_blocks(size_t n) { return (n + 31) / 32 * 32; }

/// Block k of array a, whole blocks or split by component (split_float).
CB_HD inline M3 load_block(const M3* a, uint32_t k, bool split) {
  if (!split) return a[k];
  const float* f = &a[0].m[0][0] + split_float(k);
  M3 b;
  for (int c = 0; c < 9; ++c) b.m[c / 3][c % 3] = f[32 * c];
  return b;
}

/// Writes block b as block k of array a (load_block's layouts).
CB_HD inline void store_block(M3* a, uint32_t k, const M3& b, bool split) {
  if (!split) {
    a[k] = b;
    return;
  }
  float* f = &a[0].m[0][0] + split_float(k);
  for (int c = 0; c < 9; ++c) f[32 * c] = b.m[c / 3][c % 3];
}

/// Raw pointers to the backend copy of the pattern (kernel arguments).
///
/// Where the blocks of K live: on the CPU in CSR order (block k of the pattern
/// at K[k]); on CUDA in sliced ELL order (SELL-32): rows in slices of 32, a
/// slice's blocks stored column by column, so that the 32 threads of a warp, one
/// row each, read 32 consecutive blocks at each step of their rows (in CSR order
/// a warp's loads were a row length of blocks apart). row_start / row_stride /
/// stored give the positions; cols_stored holds the column of each position.
///
/// In SELL order the blocks' floats are also split by component (`split`,
/// split_float: the 32 positions of one slice step hold 9 runs of 32 floats), so
/// each of a warp's 9 component loads reads 128 consecutive bytes, where whole
/// 36-byte blocks spread each load over 9 cache lines. K is only read and
/// written through load / store.
struct PatternView {
  int nverts = 0, nnz = 0;
  const uint32_t *row_offsets = nullptr, *cols = nullptr, *diag = nullptr;
  const uint32_t *tri_src_off = nullptr, *tri_src = nullptr, *bend_src_off = nullptr, *bend_src = nullptr;
  const uint32_t *vtri_off = nullptr, *vtri = nullptr, *vbend_off = nullptr, *vbend = nullptr;
  const uint32_t* slice_off = nullptr;    ///< (nslices + 1) SELL-32 slice starts; nullptr: CSR
  const uint32_t* block_row = nullptr;    ///< (nnz) row of each CSR block (SELL only)
  const uint32_t* cols_stored = nullptr;  ///< column of each stored position
  bool split = false;                     ///< K's blocks split by component (SELL only)
  CB_HD uint32_t row_len(int i) const { return row_offsets[i + 1] - row_offsets[i]; }
  CB_HD uint32_t row_start(int i) const { return slice_off ? slice_off[i >> 5] + uint32_t(i & 31) : row_offsets[i]; }
  CB_HD uint32_t row_stride() const { return slice_off ? 32u : 1u; }
  /// Stored position of CSR block k (of row i).
  CB_HD uint32_t stored(int i, uint32_t k) const { return row_start(i) + (k - row_offsets[i]) * row_stride(); }
  /// Stored position of CSR block k.
  CB_HD uint32_t stored(uint32_t k) const { return slice_off ? stored(int(block_row[k]), k) : k; }
  /// The block at stored position k of K (K: stored_blocks() blocks' floats).
  CB_HD M3 load(const M3* K, uint32_t k) const { return load_block(K, k, split); }
  /// Writes block b at stored position k of K.
  CB_HD void store(M3* K, uint32_t k, const M3& b) const { store_block(K, k, b, split); }
};

/// Where K's blocks live (PatternView): Auto = SELL-32 on CUDA, CSR on the CPU.
enum class BlockLayout { Auto, Csr, Sell32 };

/// Backend copy of a BlockPattern, in the layout of its backend (see PatternView).
struct DevicePattern {
  DeviceBuffer<uint32_t> row_offsets, cols, diag, tri_src_off, tri_src, bend_src_off, bend_src;
  DeviceBuffer<uint32_t> vtri_off, vtri, vbend_off, vbend;
  DeviceBuffer<uint32_t> slice_off, block_row, cols_sell;  ///< empty in CSR layout
  /// `split`: in SELL order, K's blocks split by component (PatternView; false:
  /// whole blocks, to measure one against the other). No effect in CSR order.
  void upload(const Context& ctx, const BlockPattern& p, BlockLayout layout = BlockLayout::Auto, bool split = true);
  PatternView view() const;
  size_t bytes() const;
  /// Number of stored block positions (the size of K): nnz, or the padded SELL size.
  size_t stored_blocks() const { return stored_blocks_; }
  /// K between CSR order and the stored order (host copies; tests and tools; in
  /// SELL order the stored copy's floats are split by component, PatternView).
  std::vector<M3> to_csr(const std::vector<M3>& stored) const;
  std::vector<M3> to_stored(const std::vector<M3>& csr) const;

 private:
  std::vector<uint32_t> h_position_;  ///< (nnz) stored position of each CSR block
  bool split_ = false;                ///< PatternView::split
  size_t stored_blocks_ = 0;
};

}  // namespace cb::icloth
