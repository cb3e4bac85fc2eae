// Sorted spatial hash of particles (Green 2008 "Particle simulation using CUDA";
// the "future work" store of Zheng 2021): particles are sorted by the hash of
// their cell, and a cell start table indexed directly by the hash (no search)
// gives each bucket's particles as a contiguous range of the sorted copy. Memory grows with the particle count, not with the volume, and it
// works anywhere in space (cell coordinates are hashed, never bounded).
//
// Usage (any detector: Verlet virtual spheres, PBD particle self-collision):
//
//   ParticleHash hash;                          // keep it between steps (reuses memory)
//   hash.build(ctx, x, n, cell_size);           // x: (n) backend positions, cell side in m
//   ParticleHashView view = hash.view();        // POD: copy it into kernels by value
//   parallel_for(ctx, n, [=] CB_HD (int i) {
//     view.for_each_within(x[i], radius, [&](uint32_t j, Vec3f xj) {
//       if (j != i) { ... }                     // every particle j with |xj - x[i]| < radius
//     });
//   });
//
// for_each_within visits each particle at most once, in a fixed order (bucket
// runs in a fixed order, then sorted slots), so results do not depend on the
// backend's thread count. Positions are those passed to build() (a sorted copy is kept).
// Cost per query: (2 reach + 1)^2 hashes and contiguous scans (the x-neighbours
// of a cell are the next buckets), reach = ceil(radius / cell).
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/buffer.h"
#include "sim/core/hd.h"
#include "sim/core/math.h"

namespace cb {

/// Integer cell coordinates of a point for cells of side 1/inv_cell (m), clamped
/// to +-2^30 so that far-away points cannot overflow.
struct CellCoord {
  int32_t x = 0, y = 0, z = 0;
};

/// floor(p inv_cell) clamped to +-2^30, by truncation and a correction for
/// negative values (std::floor is a library call on the baseline x86-64 target,
/// and every key and query computes three).
CB_HD inline int32_t cell_axis(float p, float inv_cell) {
  float q = p * inv_cell;
  q = q < -1073741824.f ? -1073741824.f : (q > 1073741824.f ? 1073741824.f : q);
  const int32_t t = int32_t(q);  // rounds towards zero
  return t - (float(t) > q ? 1 : 0);
}

CB_HD inline CellCoord cell_of(Vec3f p, float inv_cell) {
  return {cell_axis(p.x, inv_cell), cell_axis(p.y, inv_cell), cell_axis(p.z, inv_cell)};
}

/// Multipliers of the row hash (Teschner et al. 2003's primes).
constexpr uint32_t kRowPrimeY = 19349663u, kRowPrimeZ = 83492791u;

/// Hash of a cell row (y, z) (any 32-bit value). Additive, not Teschner's XOR:
/// the rows of a block around any cell then sit at the same bucket offsets from
/// one another (dy kRowPrimeY + dz kRowPrimeZ), so whether two of them can ever
/// share a bucket depends on the table size alone and is checked once per
/// build (rows_never_share), not per query.
CB_HD inline uint32_t row_hash(int32_t y, int32_t z) { return uint32_t(y) * kRowPrimeY + uint32_t(z) * kRowPrimeZ; }

/// Bucket of a cell in [0, mask] (mask + 1 a power of two): the row hash plus x,
/// so that the cells of one x-row go to consecutive buckets and a block of
/// neighbour cells is (2 reach + 1)^2 runs of consecutive buckets (contiguous
/// sorted slots) instead of (2 reach + 1)^3 scattered ones.
CB_HD inline uint32_t cell_hash(int32_t x, int32_t y, int32_t z, uint32_t mask) {
  return (row_hash(y, z) + uint32_t(x)) & mask;
}

/// Kernel-side view of a built ParticleHash (plain pointers into backend memory).
struct ParticleHashView {
  /// (mask + 2) first sorted slot of each bucket: bucket b holds the slots
  /// [cell_start[b], cell_start[b + 1]) (empty when equal); cell_start[mask + 1] = n.
  const uint32_t* cell_start = nullptr;
  const uint32_t* sorted_id = nullptr;   ///< (n) particle id at each sorted slot
  const Vec3f* sorted_x = nullptr;       ///< (n) m, position of the particle at each sorted slot
  float cell = 1.f;                      ///< m, cell side
  float inv_cell = 1.f;                  ///< 1/m
  uint32_t mask = 0;                     ///< table size - 1
  int n = 0;
  /// Bit R set: the (2R + 1)^2 bucket runs of a reach-R block never share a
  /// bucket at this table size (rows_never_share), so queries skip that test.
  uint32_t disjoint_reach = 0;

  /// Largest reach of the bucket-run path of for_each_within (7 x 7 rows).
  static constexpr int kMaxRunReach = 3;

  /// Calls f(j, xj) for each particle j in cell c (a bucket may hold several cells:
  /// particles of other cells are filtered out).
  template <class F>
  CB_HD void for_each_in_cell(CellCoord c, F&& f) const {
    uint32_t h = cell_hash(c.x, c.y, c.z, mask);
    uint32_t end = cell_start[h + 1];
    for (uint32_t s = cell_start[h]; s < end; ++s) {
      Vec3f xj = sorted_x[s];
      CellCoord cj = cell_of(xj, inv_cell);
      if (cj.x == c.x && cj.y == c.y && cj.z == c.z) f(sorted_id[s], xj);
    }
  }

  /// Calls f(j, xj) for every particle in the (2 reach + 1)^3 block of cells
  /// around p's cell (reach = 2 gives the thesis's 5x5x5 neighbourhood).
  template <class F>
  CB_HD void for_each_neighbor(Vec3f p, int reach, F&& f) const {
    if (n == 0) return;
    CellCoord c = cell_of(p, inv_cell);
    for (int dz = -reach; dz <= reach; ++dz)
      for (int dy = -reach; dy <= reach; ++dy)
        for (int dx = -reach; dx <= reach; ++dx) for_each_in_cell({c.x + dx, c.y + dy, c.z + dz}, f);
  }

  /// Calls f(j, xj) for every particle with |xj - p| < radius (m), p itself included
  /// when it is a particle. Fast path: the block's (2 reach + 1)^2 x-rows are runs
  /// of consecutive buckets, made disjoint (so each bucket is scanned once), and
  /// each run is one contiguous range of sorted slots, tested by distance only.
  template <class F>
  CB_HD void for_each_within(Vec3f p, float radius, F&& f) const {
    if (n == 0) return;
    const int reach = int(std::ceil(radius * inv_cell));
    const float r2 = radius * radius;
    if (reach > kMaxRunReach) {  // huge radius: exact cell filtering
      for_each_neighbor(p, reach, [&](uint32_t j, Vec3f xj) {
        if (length2(xj - p) < r2) f(j, xj);
      });
      return;
    }
    switch (reach) {  // the block size as a constant: fixed loops, no data-dependent trip counts
      case 0: scan_block<0>(p, r2, f); break;
      case 1: scan_block<1>(p, r2, f); break;
      case 2: scan_block<2>(p, r2, f); break;
      default: scan_block<3>(p, r2, f); break;
    }
  }

  /// for_each_within for a block of reach R (<= kMaxRunReach).
  template <int R, class F>
  CB_HD void scan_block(Vec3f p, float r2, F&& f) const {
    constexpr int kRows = (2 * R + 1) * (2 * R + 1);
    uint32_t lo[2 * kRows], hi[2 * kRows];
    const int nruns = block_slot_runs<R>(cell_of(p, inv_cell), lo, hi);
    scan_runs(p, r2, lo, hi, nruns, f);
  }

  /// Queries around the particles of the sorted slots [s0, s1), in slot order:
  /// for each particle i, begin(i, xi), then hit(j, xj) for every particle within
  /// `radius` (the calls of for_each_within(xi, radius, hit), in its order), then
  /// end(i). The particles of one cell follow each other in slot order, so the
  /// block's runs are looked up once per cell, not once per particle (on the CPU
  /// a thread takes a chunk of slots; reading sorted_x in order helps too).
  template <class Begin, class Hit, class End>
  CB_HD void for_each_within_slots(uint32_t s0, uint32_t s1, float radius, Begin&& begin, Hit&& hit,
                                   End&& end) const {
    within_slots<false>(s0, s1, radius, begin, hit, end);
  }

  /// Each pair of particles closer than `radius` once: like for_each_within_slots,
  /// but particle i at slot s gets hit(j, xj) only for the particles j at later
  /// slots, so over all slots every pair {i, j} within `radius` is hit exactly
  /// once, from its earlier slot: half the distance tests of
  /// for_each_within_slots. (Huge radii, beyond the run path: from the smaller id.)
  template <class Begin, class Hit, class End>
  CB_HD void for_each_later_within_slots(uint32_t s0, uint32_t s1, float radius, Begin&& begin, Hit&& hit,
                                         End&& end) const {
    within_slots<true>(s0, s1, radius, begin, hit, end);
  }

  /// The sorted-slot ranges [lo, hi) holding the (2R + 1)^3 block of cells
  /// around c, pairwise disjoint, in (z, y) row order; returns their count.
  /// lo/hi need room for 2 (2R + 1)^2 ranges.
  template <int R>
  CB_HD int block_slot_runs(CellCoord c, uint32_t* lo, uint32_t* hi) const {
    int nruns = nonempty_slot_runs<R>(c, lo, hi);
    if (nruns < 0) {  // a run wraps or two share a non-empty bucket (rare): merged bucket runs
      nruns = block_runs(c, R, lo, hi);
      for (int r = 0; r < nruns; ++r) lo[r] = cell_start[lo[r]], hi[r] = cell_start[hi[r]];
    }
    return nruns;
  }

  /// Calls f(j, xj) for the particles of the slot ranges [lo, hi) closer to p
  /// than sqrt(r2), in slot order, skipping the slots before `first`.
  template <class F>
  CB_HD void scan_runs(Vec3f p, float r2, const uint32_t* lo, const uint32_t* hi, int nruns, F&& f,
                       uint32_t first = 0) const {
    // hits are compacted branch-free (the distance test is unpredictable), then
    // visited in slot order: the same calls in the same order as a plain loop
    constexpr int kHits = 32;
    uint32_t hit[kHits];
    int nh = 0;
    for (int r = 0; r < nruns; ++r) {
      const uint32_t end = hi[r];
      for (uint32_t s = lo[r] > first ? lo[r] : first; s < end; ++s) {
        hit[nh] = s;
        nh += length2(sorted_x[s] - p) < r2 ? 1 : 0;
        if (nh == kHits) nh = flush_hits(hit, nh, f);
      }
    }
    flush_hits(hit, nh, f);
  }

  /// Calls f(id, x) for the sorted slots hit[0, nh); returns 0.
  template <class F>
  CB_HD int flush_hits(const uint32_t* hit, int nh, F&& f) const {
    for (int k = 0; k < nh; ++k) f(sorted_id[hit[k]], sorted_x[hit[k]]);
    return 0;
  }

  /// The non-empty rows of the (2R + 1)^3 block around c as sorted-slot ranges
  /// [lo, hi), in (z, y) order; -1 when a row wraps past the table end or two
  /// non-empty ranges share slots (rows sharing only empty buckets are fine).
  /// Empty rows (most of them on a sheet) are dropped branch-free. The rows'
  /// buckets follow from the first one by additions (row_hash is additive), and
  /// the pairwise test runs only for table sizes where rows can share buckets.
  template <int R>
  CB_HD int nonempty_slot_runs(CellCoord c, uint32_t* lo, uint32_t* hi) const {
    constexpr uint32_t kLen = 2 * R + 1;
    int count = 0;
    bool wraps = false;
    uint32_t hz = row_hash(c.y - R, c.z - R) + uint32_t(c.x - R);  // unmasked bucket of row (-R, -R)
    for (int dz = -R; dz <= R; ++dz, hz += kRowPrimeZ) {
      uint32_t hy = hz;
      for (int dy = -R; dy <= R; ++dy, hy += kRowPrimeY) {
        const uint32_t b = hy & mask;
        wraps |= b + kLen > mask + 1;
        const uint32_t e = b + kLen <= mask + 1 ? b + kLen : b;  // a wrapping row is redone below
        lo[count] = cell_start[b], hi[count] = cell_start[e];
        count += lo[count] < hi[count] ? 1 : 0;
      }
    }
    bool shared = wraps;
    if (!((disjoint_reach >> R) & 1u))
      for (int a = 1; a < count; ++a)
        for (int k = 0; k < a; ++k) shared |= (lo[a] < hi[k]) & (lo[k] < hi[a]);
    return shared ? -1 : count;
  }

  /// The bucket runs [lo, hi) covering the (2 reach + 1)^3 cells around c,
  /// pairwise disjoint; returns their count. lo/hi need room for
  /// 2 (2 reach + 1)^2 runs (a run that wraps past the table end is split).
  /// Rows are listed in (z, y) order; only when two rows share buckets (rare in
  /// a sparse table) are the runs sorted and merged.
  CB_HD int block_runs(CellCoord c, int reach, uint32_t* lo, uint32_t* hi) const {
    const uint32_t table = mask + 1, len = uint32_t(2 * reach + 1);
    int count = 0;
    bool overlap = false;
    for (int dz = -reach; dz <= reach; ++dz)
      for (int dy = -reach; dy <= reach; ++dy) {
        const uint32_t b = cell_hash(c.x - reach, c.y + dy, c.z + dz, mask);
        if (b + len <= table) {
          overlap |= add_run(lo, hi, count, b, b + len);
        } else {
          overlap |= add_run(lo, hi, count, b, table);
          overlap |= add_run(lo, hi, count, 0, b + len - table);
        }
      }
    return overlap ? sort_and_merge(lo, hi, count) : count;
  }

 private:
  // for_each_within_slots (kLater false) and for_each_later_within_slots (true)
  template <bool kLater, class Begin, class Hit, class End>
  CB_HD void within_slots(uint32_t s0, uint32_t s1, float radius, Begin&& begin, Hit&& hit, End&& end) const {
    switch (int(std::ceil(radius * inv_cell))) {
      case 0: scan_slots<0, kLater>(s0, s1, radius, begin, hit, end); break;
      case 1: scan_slots<1, kLater>(s0, s1, radius, begin, hit, end); break;
      case 2: scan_slots<2, kLater>(s0, s1, radius, begin, hit, end); break;
      case 3: scan_slots<3, kLater>(s0, s1, radius, begin, hit, end); break;
      default:  // huge radius: one query per particle (exact cell filtering)
        for (uint32_t s = s0; s < s1; ++s) {
          const uint32_t i = sorted_id[s];
          begin(i, sorted_x[s]);
          for_each_within(sorted_x[s], radius, [&](uint32_t j, Vec3f xj) {
            if (!kLater || j > i) hit(j, xj);
          });
          end(i);
        }
    }
  }

  // within_slots for a block of reach R (<= kMaxRunReach); kLater: each run
  // cut to the slots after the query's own
  template <int R, bool kLater, class Begin, class Hit, class End>
  CB_HD void scan_slots(uint32_t s0, uint32_t s1, float radius, Begin&& begin, Hit&& hit, End&& end) const {
    constexpr int kRows = (2 * R + 1) * (2 * R + 1);
    uint32_t lo[2 * kRows], hi[2 * kRows];
    int nruns = 0;
    CellCoord cached{INT32_MIN, 0, 0};  // no cell: cell_axis clamps to +-2^30
    const float r2 = radius * radius;
    for (uint32_t s = s0; s < s1; ++s) {
      const Vec3f p = sorted_x[s];
      const CellCoord c = cell_of(p, inv_cell);
      if (c.x != cached.x || c.y != cached.y || c.z != cached.z) {
        nruns = block_slot_runs<R>(c, lo, hi);
        cached = c;
      }
      begin(sorted_id[s], p);
      scan_runs(p, r2, lo, hi, nruns, hit, kLater ? s + 1 : 0u);
      end(sorted_id[s]);
    }
  }

  // appends [a, b); true when it shares a bucket with an earlier run (branch-free test)
  CB_HD static bool add_run(uint32_t* lo, uint32_t* hi, int& count, uint32_t a, uint32_t b) {
    bool shared = false;
    for (int k = 0; k < count; ++k) shared |= (a < hi[k]) & (lo[k] < b);
    lo[count] = a, hi[count] = b;
    ++count;
    return shared;
  }

  // sorts runs by lo (insertion sort) and merges overlapping ones; returns the new count
  CB_HD static int sort_and_merge(uint32_t* lo, uint32_t* hi, int count) {
    for (int r = 1; r < count; ++r) {
      const uint32_t a = lo[r], b = hi[r];
      int k = r;
      for (; k > 0 && lo[k - 1] > a; --k) lo[k] = lo[k - 1], hi[k] = hi[k - 1];
      lo[k] = a, hi[k] = b;
    }
    int m = 0;
    for (int r = 1; r < count; ++r) {
      if (lo[r] <= hi[m]) {
        hi[m] = hi[r] > hi[m] ? hi[r] : hi[m];
      } else {
        ++m;
        lo[m] = lo[r], hi[m] = hi[r];
      }
    }
    return count ? m + 1 : 0;
  }
};

/// True when, in a table of mask + 1 buckets, the (2 reach + 1)^2 bucket runs
/// of length 2 reach + 1 of any reach-sized block are pairwise disjoint: every
/// row offset difference (dy kRowPrimeY + dz kRowPrimeZ, |dy|, |dz| <= 2 reach)
/// is at least a run length away from 0 modulo the table size.
bool rows_never_share(uint32_t mask, int reach);

/// The sorted hash grid. Rebuild it whenever positions change.
class ParticleHash {
 public:
  /// Sorts the n positions x (backend memory) into cells of side `cell` m.
  /// `table_load` = table entries per particle (rounded up to a power of two).
  /// CPU backend: a serial counting sort (O(n + table), stable); CUDA: radix sort
  /// and a binary search per bucket. No allocation once the sizes are stable.
  void build(const Context& ctx, const Vec3f* x, int n, float cell, float table_load = 1.f);
  /// The view for kernels (valid until the next build).
  ParticleHashView view() const;
  /// Number of non-empty hash buckets (about the number of occupied cells).
  size_t occupied_buckets(const Context& ctx) const;
  /// Backend bytes held (keys, ids, sorted positions, start table).
  size_t device_bytes() const;
  int size() const { return n_; }
  uint32_t table_size() const { return start_.empty() ? 0u : uint32_t(start_.size() - 1); }

 private:
  DeviceBuffer<uint32_t> key_;       ///< (n) bucket of each particle, then sorted
  DeviceBuffer<uint32_t> sorted_id_; ///< (n)
  DeviceBuffer<Vec3f> sorted_x_;     ///< (n)
  DeviceBuffer<uint32_t> start_;     ///< (table + 1)
  mutable DeviceBuffer<uint32_t> partial_;     ///< (table / 4096) occupied_buckets scratch
  mutable std::vector<uint32_t> partial_host_;
  float cell_ = 1.f;
  int n_ = 0;
  uint32_t disjoint_reach_ = 0;  ///< ParticleHashView::disjoint_reach for this table size
};

}  // namespace cb
