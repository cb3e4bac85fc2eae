// The hoops' length constraint (hoops.h): five passes, one thread per loop
// entry, per chunk of a loop's entries, or per loop.
#include "sim/core/parallel.h"
#include "sim/model/hoops.h"

namespace cb {

namespace {

// Entry k + shift of the loop [b, e) (shift in (-(e - b), e - b)), wrapping round.
CB_HD inline uint32_t round_loop(uint32_t k, int shift, uint32_t b, uint32_t e) {
  const int n = int(e - b);
  return b + uint32_t((int(k - b) + shift + n) % n);
}

}  // namespace

void limit_hoops(const Context& ctx, const HoopView& h, float max_stretch, const float* w, Vec3f* x,
                 uint8_t* moved) {
  if (h.nloops == 0) return;
  const HoopView v = h;
  // each chord k -> k + span: unit vector and length
  parallel_for(ctx, v.nentries, [=] CB_HD(int k) {
    const uint32_t loop = v.loop_of[k];
    const uint32_t b = v.off[loop], e = v.off[loop + 1];
    const Vec3f d = x[v.ids[round_loop(uint32_t(k), v.span[loop], b, e)]] - x[v.ids[k]];
    const float l = length(d);
    v.length[k] = l;
    v.tangent[k] = l > 1e-12f ? d / l : Vec3f{0, 0, 0};
  });
  // each loop's step along d_k = w_k (T_k - T_{k-m}) (= -m w_k dC/dx_k): C is
  // convex along it, C(a) ~ C + g a + c a^2 / 2, with g = -sum_k w_k |T_k -
  // T_{k-m}|^2 / m and c = sum_k |(d_{k+m} - d_k) across T_k|^2 / (m l_k); the
  // smallest a with C(a) = 0, or the model's minimum if it stays above. The
  // linear step alone overshot many-fold where a vertex between two held ones
  // moves farther than the sag of its chords (then the loop got longer).
  // Entry k's terms of (L, -g, c) first, summed by chunks, then by loops.
  parallel_for(ctx, v.nentries, [=] CB_HD(int k) {
    const uint32_t loop = v.loop_of[k];
    const uint32_t b = v.off[loop], e = v.off[loop + 1];
    const int m = v.span[loop];
    const uint32_t back = round_loop(uint32_t(k), -m, b, e), fwd = round_loop(uint32_t(k), m, b, e);
    const Vec3f grad = v.tangent[k] - v.tangent[back];
    const Vec3f d_k = grad * w[v.ids[k]];
    const Vec3f d_fwd = (v.tangent[fwd] - v.tangent[k]) * w[v.ids[fwd]];
    const Vec3f rel = d_fwd - d_k, t = v.tangent[k];
    const float l = v.length[k];
    const float curv = l > 1e-12f ? (length2(rel) - dot(rel, t) * dot(rel, t)) / l : 0.f;
    v.terms[k] = Vec3f{l, dot(d_k, grad), curv} / float(m);
  });
  parallel_for(ctx, v.nchunks, [=] CB_HD(int c) {
    Vec3f sum{0, 0, 0};
    for (uint32_t k = v.chunk_off[c]; k < v.chunk_off[c + 1]; ++k) sum += v.terms[k];
    v.chunk_sums[c] = sum;
  });
  const float grow = 1.f + max_stretch;
  parallel_for(ctx, v.nloops, [=] CB_HD(int loop) {
    Vec3f sum{0, 0, 0};
    for (uint32_t c = v.loop_chunks[loop]; c < v.loop_chunks[loop + 1]; ++c) sum += v.chunk_sums[c];
    const float excess = sum.x - grow * v.rest[loop], g = -sum.y, c = sum.z;
    v.lambda[loop] = 0.f;
    if (!(excess > 0.f) || !(g < -1e-12f)) return;
    // the smaller root of c a^2 / 2 + g a + excess = 0, in the form without cancellation
    const float disc = g * g - 2.f * c * excess;
    v.lambda[loop] = disc >= 0.f ? 2.f * excess / (-g + std::sqrt(disc)) : -g / c;
  });
  // x_k += a w_k (T_k - T_{k-m})
  parallel_for(ctx, v.nentries, [=] CB_HD(int k) {
    const uint32_t loop = v.loop_of[k];
    const float a = v.lambda[loop];
    const uint32_t i = v.ids[k];
    if (a <= 0.f || w[i] <= 0.f) return;
    const uint32_t back = round_loop(uint32_t(k), -v.span[loop], v.off[loop], v.off[loop + 1]);
    x[i] += (v.tangent[k] - v.tangent[back]) * (a * w[i]);
    if (moved) moved[i] = 1;
  });
}

}  // namespace cb
