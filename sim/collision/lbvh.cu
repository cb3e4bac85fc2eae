// LBVH build and refit (Karras 2012); see lbvh.h.
#include "sim/collision/lbvh.h"

#include "sim/collision/atomics.h"
#include "sim/core/algorithms.h"
#include "sim/core/parallel.h"

namespace cb {
namespace {

// spreads the low 21 bits of v so that two zero bits separate consecutive ones
CB_HD CB_INLINE uint64_t spread_bits21(uint64_t v) {
  v &= 0x1fffffull;
  v = (v | (v << 32)) & 0x1f00000000ffffull;
  v = (v | (v << 16)) & 0x1f0000ff0000ffull;
  v = (v | (v << 8)) & 0x100f00f00f00f00full;
  v = (v | (v << 4)) & 0x10c30c30c30c30c3ull;
  v = (v | (v << 2)) & 0x1249249249249249ull;
  return v;
}

CB_HD CB_INLINE int clz64(uint64_t v) {
#if defined(__CUDA_ARCH__)
  return __clzll(static_cast<long long>(v));
#else
  return v == 0 ? 64 : __builtin_clzll(v);
#endif
}

CB_HD CB_INLINE int clz32(uint32_t v) {
#if defined(__CUDA_ARCH__)
  return __clz(static_cast<int>(v));
#else
  return v == 0 ? 32 : __builtin_clz(v);
#endif
}

// Karras' delta: common prefix length of keys i and j, -1 outside [0, n);
// equal codes are told apart by their index (+64 so they rank deeper)
CB_HD CB_INLINE int lbvh_delta(const uint64_t* codes, int n, int i, int j) {
  if (j < 0 || j >= n) return -1;
  uint64_t a = codes[i], b = codes[j];
  if (a == b) return 64 + clz32(uint32_t(i) ^ uint32_t(j));
  return clz64(a ^ b);
}

void compute_codes(const Context& ctx, const Aabb* boxes, int n, float* scratch, uint64_t* codes,
                   uint32_t* order) {
  // centre bounds through six reductions over a component-major copy of the centres
  float* cx = scratch;
  float* cy = scratch + n;
  float* cz = scratch + 2 * n;
  parallel_for(ctx, n, [=] CB_HD(int i) {
    Vec3f c = boxes[i].center();
    cx[i] = c.x;
    cy[i] = c.y;
    cz[i] = c.z;
  });
  Vec3f lo(reduce_min(ctx, cx, n), reduce_min(ctx, cy, n), reduce_min(ctx, cz, n));
  Vec3f hi(reduce_max(ctx, cx, n), reduce_max(ctx, cy, n), reduce_max(ctx, cz, n));
  Vec3f ext = hi - lo;
  float e = ext.x > ext.y ? ext.x : ext.y;
  e = e > ext.z ? e : ext.z;
  const float inv = e > 0.f ? 2097151.f / e : 0.f;
  parallel_for(ctx, n, [=] CB_HD(int i) {
    auto q = [&](float v, float l) {
      float s = (v - l) * inv;
      s = s < 0.f ? 0.f : (s > 2097151.f ? 2097151.f : s);
      return uint64_t(s);
    };
    codes[i] = (spread_bits21(q(cx[i], lo.x)) << 2) | (spread_bits21(q(cy[i], lo.y)) << 1) |
               spread_bits21(q(cz[i], lo.z));
    order[i] = uint32_t(i);
  });
}

void build_hierarchy(const Context& ctx, const uint64_t* codes, int n, Int2* children, int32_t* parent) {
  parallel_for(ctx, n - 1, [=] CB_HD(int i) {
    // direction of the node's range and its other end (exponential then binary search)
    int d = lbvh_delta(codes, n, i, i + 1) - lbvh_delta(codes, n, i, i - 1) > 0 ? 1 : -1;
    int dmin = lbvh_delta(codes, n, i, i - d);
    int lmax = 2;
    while (lbvh_delta(codes, n, i, i + lmax * d) > dmin) lmax *= 2;
    int l = 0;
    for (int t = lmax / 2; t >= 1; t /= 2)
      if (lbvh_delta(codes, n, i, i + (l + t) * d) > dmin) l += t;
    int j = i + l * d;
    // split position: the last key sharing more than the range's common prefix
    int dnode = lbvh_delta(codes, n, i, j);
    int s = 0, step = l;
    do {
      step = (step + 1) >> 1;
      if (lbvh_delta(codes, n, i, i + (s + step) * d) > dnode) s += step;
    } while (step > 1);
    int gamma = i + s * d + (d < 0 ? d : 0);
    int lo = i < j ? i : j, hi = i < j ? j : i;
    int left = lo == gamma ? (n - 1) + gamma : gamma;
    int right = hi == gamma + 1 ? (n - 1) + gamma + 1 : gamma + 1;
    children[i] = Int2{left, right};
    parent[left] = i;
    parent[right] = i;
  });
}

// reads a box written by another thread: on the device past L1 (which other SMs'
// writes do not invalidate), so a line cached earlier cannot serve a stale box
CB_HD CB_INLINE Aabb load_box_coherent(const Aabb* p) {
#if defined(__CUDA_ARCH__)
  const float* f = reinterpret_cast<const float*>(p);
  Aabb b;
  b.lo = Vec3f(__ldcg(f + 0), __ldcg(f + 1), __ldcg(f + 2));
  b.hi = Vec3f(__ldcg(f + 3), __ldcg(f + 4), __ldcg(f + 5));
  return b;
#else
  return *p;
#endif
}

void refit_boxes(const Context& ctx, const Aabb* prim_boxes, const uint32_t* order, const Int2* children,
                 const int32_t* parent, int n, Aabb* boxes, int32_t* flags) {
  parallel_for(ctx, n, [=] CB_HD(int i) {
    boxes[(n - 1) + i] = prim_boxes[order[i]];
    memory_fence();
    int node = parent[(n - 1) + i];
    while (node >= 0) {
      // the first child to arrive stops; the second computes the box
      if (atomic_add_i32(&flags[node], 1) == 0) return;
      Int2 c = children[node];
      Aabb b = load_box_coherent(boxes + c.a);
      b.grow(load_box_coherent(boxes + c.b));
      boxes[node] = b;
      memory_fence();
      node = parent[node];
    }
  });
}

}  // namespace

void Lbvh::build(const Context& ctx, const Aabb* prim_boxes, int n) {
  ctx_ = ctx;
  n_ = n;
  if (n <= 0) return;
  codes_.resize(ctx, n);
  order_.resize(ctx, n);
  scratch_.resize(ctx, size_t(3) * n);
  compute_codes(ctx, prim_boxes, n, scratch_.data(), codes_.data(), order_.data());
  sort_by_key(ctx, codes_.data(), order_.data(), size_t(n));
  children_.resize(ctx, n > 1 ? n - 1 : 1);
  parent_.resize(ctx, size_t(2) * n - 1);
  int32_t* parent = parent_.data();
  parallel_for(ctx, 1, [=] CB_HD(int) { parent[0] = -1; });
  build_hierarchy(ctx, codes_.data(), n, children_.data(), parent);
  boxes_.resize(ctx, size_t(2) * n - 1);
  flags_.resize(ctx, n > 1 ? n - 1 : 1);
  refit(ctx, prim_boxes);
}

void Lbvh::refit(const Context& ctx, const Aabb* prim_boxes) {
  if (n_ <= 0) return;
  flags_.fill_zero();
  refit_boxes(ctx, prim_boxes, order_.data(), children_.data(), parent_.data(), n_, boxes_.data(),
              flags_.data());
}

LbvhView Lbvh::view() const {
  LbvhView v;
  v.boxes = boxes_.data();
  v.children = children_.data();
  v.leaf_prim = order_.data();
  v.num_leaves = n_;
  return v;
}

size_t Lbvh::device_bytes() const {
  return codes_.bytes() + order_.bytes() + children_.bytes() + parent_.bytes() + boxes_.bytes() +
         flags_.bytes() + scratch_.bytes();
}

}  // namespace cb
