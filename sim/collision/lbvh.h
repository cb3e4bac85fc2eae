// Linear BVH over axis-aligned boxes (Karras, "Maximizing Parallelism in the
// Construction of BVHs, Octrees, and k-d Trees", HPG 2012).
//
// Build: primitives sorted by the 63-bit Morton code of their box centre (ties
// broken by sorted index, Karras §4 "duplicate keys"); every internal node i of the
// n-1 is built independently (Karras Fig. 4: direction, range end by exponential +
// binary search, split by binary search); boxes are then refitted bottom-up, the
// second thread to reach a node computing its box (atomic counter per node).
// Refit keeps the tree and recomputes the boxes (for moving primitives).
//
// Node numbering: internal nodes [0, n-1), leaves [n-1, 2n-1) in Morton order; the
// root is node 0 (a leaf when n == 1). Traversal helpers for box, nearest-point
// and ray queries are CB_HD functions of LbvhView.
#pragma once

#include <cstdint>

#include "sim/core/backend.h"
#include "sim/core/buffer.h"
#include "sim/core/hd.h"
#include "sim/collision/ray.h"
#include "sim/core/math.h"

namespace cb {

/// What kernels read (all backend memory).
struct LbvhView {
  const Aabb* boxes = nullptr;       ///< (2n-1) node boxes
  const Int2* children = nullptr;    ///< (n-1) children of each internal node (node ids)
  const uint32_t* leaf_prim = nullptr;  ///< (n) primitive id of each leaf, in Morton order
  int num_leaves = 0;

  CB_HD bool is_leaf(int node) const { return node >= num_leaves - 1; }
  CB_HD uint32_t prim(int node) const { return leaf_prim[node - (num_leaves - 1)]; }
};

/// Traversal stack size. A depth-first stack holds at most depth + 1 entries and
/// the depth is at most 97 (each level raises the common-prefix length, which is
/// <= 63 bits of code + 32 bits of index tie-break).
constexpr int kLbvhStack = 128;

class Lbvh {
 public:
  /// Builds the tree over n primitive boxes (backend memory).
  void build(const Context& ctx, const Aabb* prim_boxes, int n);
  /// Recomputes the node boxes from new primitive boxes (same n, same order of primitives).
  void refit(const Context& ctx, const Aabb* prim_boxes);
  LbvhView view() const;
  int size() const { return n_; }
  size_t device_bytes() const;

 private:
  Context ctx_{};
  int n_ = 0;
  DeviceBuffer<uint64_t> codes_;
  DeviceBuffer<uint32_t> order_;
  DeviceBuffer<Int2> children_;
  DeviceBuffer<int32_t> parent_;
  DeviceBuffer<Aabb> boxes_;
  DeviceBuffer<int32_t> flags_;
  DeviceBuffer<float> scratch_;
};

/// Calls visit(prim) for every primitive whose leaf box overlaps `q`.
template <class Visit>
CB_HD inline void lbvh_query_box(const LbvhView& v, const Aabb& q, Visit visit) {
  if (v.num_leaves <= 0) return;
  int stack[kLbvhStack];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    int node = stack[--top];
    if (!overlaps(v.boxes[node], q)) continue;
    if (v.is_leaf(node)) {
      visit(v.prim(node));
      continue;
    }
    Int2 c = v.children[node];
    if (top + 2 <= kLbvhStack) {
      stack[top++] = c.a;
      stack[top++] = c.b;
    }
  }
}

/// Nearest-primitive search: `leaf(prim, best2)` returns the squared distance of
/// primitive prim (it may record it); nodes farther than the current best are
/// skipped. `best2` starts at the squared search radius; returns the final best.
template <class Leaf>
CB_HD inline float lbvh_nearest(const LbvhView& v, Vec3f p, float best2, Leaf leaf) {
  if (v.num_leaves <= 0) return best2;
  int stack[kLbvhStack];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    int node = stack[--top];
    const Aabb& b = v.boxes[node];
    float dx = p.x < b.lo.x ? b.lo.x - p.x : (p.x > b.hi.x ? p.x - b.hi.x : 0.f);
    float dy = p.y < b.lo.y ? b.lo.y - p.y : (p.y > b.hi.y ? p.y - b.hi.y : 0.f);
    float dz = p.z < b.lo.z ? b.lo.z - p.z : (p.z > b.hi.z ? p.z - b.hi.z : 0.f);
    if (dx * dx + dy * dy + dz * dz > best2) continue;
    if (v.is_leaf(node)) {
      float d2 = leaf(v.prim(node), best2);
      if (d2 < best2) best2 = d2;
      continue;
    }
    Int2 c = v.children[node];
    if (top + 2 <= kLbvhStack) {
      // push the farther child first so the nearer one is visited first
      Vec3f ca = v.boxes[c.a].center() - p, cb = v.boxes[c.b].center() - p;
      bool a_first = dot(ca, ca) <= dot(cb, cb);
      stack[top++] = a_first ? c.b : c.a;
      stack[top++] = a_first ? c.a : c.b;
    }
  }
  return best2;
}

/// Closest hit along the ray o + t d, t in [tmin, tmax]: `leaf(prim, tmax)` returns
/// the primitive's hit distance (or < 0 / > tmax for none) and may record it;
/// subtrees entered beyond the current closest hit are skipped. Returns the
/// closest distance, or -1 when nothing was hit.
template <class Leaf>
CB_HD inline float lbvh_ray_closest(const LbvhView& v, Vec3f o, Vec3f d, float tmin, float tmax, Leaf leaf) {
  if (v.num_leaves <= 0) return -1.f;
  // a zero component gives an infinite inverse: the slab test then keeps or rejects the whole axis
  Vec3f inv(1.f / d.x, 1.f / d.y, 1.f / d.z);
  float best = -1.f;
  int stack[kLbvhStack];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    int node = stack[--top];
    float limit = best >= 0.f ? best : tmax;
    if (ray_box(o, inv, v.boxes[node], tmin, limit) < 0.f) continue;
    if (v.is_leaf(node)) {
      float t = leaf(v.prim(node), limit);
      if (t >= tmin && t <= limit) best = t;
      continue;
    }
    Int2 c = v.children[node];
    if (top + 2 <= kLbvhStack) {
      stack[top++] = c.b;
      stack[top++] = c.a;
    }
  }
  return best;
}

}  // namespace cb
