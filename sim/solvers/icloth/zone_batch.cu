// Batched impact-zone solve (see zone_batch.h).
#include "sim/solvers/icloth/zone_batch.h"

#include <algorithm>
#include <climits>

#include "sim/core/error.h"

#if defined(__CUDACC__)
#include <cooperative_groups.h>
#endif

namespace cb::icloth {
namespace {

/// Calls visit(flat vertex, entry) for every incidence of the batch, in the
/// order the lists keep: each zone's impacts (entry 4 j + k: local impact j,
/// corner k), then its membrane's edges (entry -(2 e + k) - 1: local edge e, end k).
template <class Visit>
void for_each_incidence(const ZoneBatch& b, Visit visit) {
  for (size_t z = 0; z < b.num_zones(); ++z) {
    for (int j = b.imp_off[z]; j < b.imp_off[z + 1]; ++j)
      for (int k = 0; k < 4; ++k)
        if (b.imp[size_t(j)].lv[k] >= 0) visit(b.vert_off[z] + b.imp[size_t(j)].lv[k], 4 * (j - b.imp_off[z]) + k);
    for (int e = b.edge_off[z]; e < b.edge_off[z + 1]; ++e)
      for (int k = 0; k < 2; ++k)
        if (b.edges[size_t(e)].lv[k] >= 0) visit(b.vert_off[z] + b.edges[size_t(e)].lv[k], -(2 * (e - b.edge_off[z]) + k) - 1);
  }
}

/// The incidence lists of a batch: flat vertex v's entries are
/// inc[inc_off[v] .. inc_off[v + 1]) in for_each_incidence's order (a counting sort).
void build_incidence(const ZoneBatch& b, std::vector<int>& inc_off, std::vector<int>& inc) {
  inc_off.assign(b.x.size() + 1, 0);
  for_each_incidence(b, [&](int v, int) { inc_off[size_t(v) + 1]++; });
  for (size_t v = 0; v < b.x.size(); ++v) inc_off[v + 1] += inc_off[v];
  inc.assign(size_t(inc_off.back()), 0);
  std::vector<int> fill(inc_off.begin(), inc_off.end() - 1);
  for_each_incidence(b, [&](int v, int entry) { inc[size_t(fill[size_t(v)]++)] = entry; });
}

/// The batch's input arrays (backend or host memory).
struct ZoneArrays {
  const int *vert_off, *imp_off, *edge_off;
  Vec3f* x;
  const Vec3f* xt;
  const float* m;
  const ZoneImpact* imp;
  const ZoneEdge* edges;
};

/// Flat scratch arrays of a batch (backend or host memory).
struct FlatScratch {
  int* inc_off;
  int* inc;
  float *lambda, *ct, *D;
  Vec3f *g, *xprev, *xtry;
};

/// Zone z's view into the flat arrays.
CB_HD inline ZoneView zone_view(int z, const ZoneArrays& a, const FlatScratch& f) {
  const int v0 = a.vert_off[z], j0 = a.imp_off[z], e0 = a.edge_off[z];
  ZoneView v;
  v.nv = a.vert_off[z + 1] - v0;
  v.ni = a.imp_off[z + 1] - j0;
  v.ne = a.edge_off[z + 1] - e0;
  v.x = a.x + v0;
  v.xt = a.xt + v0;
  v.m = a.m + v0;
  v.imp = a.imp + j0;
  v.edges = a.edges + e0;
  v.inc_off = f.inc_off + v0;
  v.inc = f.inc + f.inc_off[v0];
  v.lambda = f.lambda + j0;
  v.ct = f.ct + j0;
  v.g = f.g + v0;
  v.xprev = f.xprev + v0;
  v.xtry = f.xtry + v0;
  v.D = f.D + v0;
  return v;
}

#if defined(__CUDACC__)
// Threads per zone: a fold squeezed in the funnel makes one zone of thousands of
// impacts, solved by one block while the small zones are long done; its loops
// and reductions are what the block's size divides.
constexpr int kZoneThreads = 1024;

/// op over the block's v (fixed order: warps by shuffles, then the warps'
/// results in warp order); valid in thread 0. sh: shared, 32 entries at least.
template <class T, class Op>
__device__ T block_fold(T v, T* sh, Op op) {
  for (int off = 16; off > 0; off >>= 1) v = op(v, __shfl_down_sync(0xffffffffu, v, off));
  __syncthreads();  // the caller's last use of sh is over
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
  __syncthreads();
  T t = sh[0];
  if (threadIdx.x == 0)
    for (unsigned w = 1; w < blockDim.x / 32; ++w) t = op(t, sh[w]);
  return t;
}

/// The threads of one block as a zone_solver team: strided loops, block-wide
/// reductions (results broadcast to every thread).
struct BlockTeam {
  double* sd;  ///< shared, 33 entries
  float* sf;   ///< shared, 33 entries
  CB_HD int rank() const {
#if defined(__CUDA_ARCH__)
    return int(threadIdx.x);
#else
    return 0;
#endif
  }
  CB_HD int size() const {
#if defined(__CUDA_ARCH__)
    return int(blockDim.x);
#else
    return 1;
#endif
  }
  CB_HD void sync() const {
#if defined(__CUDA_ARCH__)
    __syncthreads();
#endif
  }
  template <class T, class Op>
  CB_HD T reduce(T v, T* sh, Op op) const {
#if defined(__CUDA_ARCH__)
    const T t = block_fold(v, sh, op);
    if (threadIdx.x == 0) sh[32] = t;
    __syncthreads();
    return sh[32];
#else
    (void)sh;
    (void)op;
    return v;
#endif
  }
  CB_HD double sum(double v) const {
    return reduce(v, sd, [] CB_HD(double a, double b) { return a + b; });
  }
  CB_HD float max(float v) const {
    return reduce(v, sf, [] CB_HD(float a, float b) { return a > b ? a : b; });
  }
  CB_HD float min(float v) const {
    return reduce(v, sf, [] CB_HD(float a, float b) { return a < b ? a : b; });
  }
};

/// The whole grid of a cooperative launch as one team, for a zone too large for
/// a block: strided loops over every thread, grid-wide barriers, and sums as
/// per-block partials (in global memory, two buffers used in turn) added by each
/// block in block order after a barrier, so every thread gets the same value.
struct GridTeam {
  double* sd;       ///< shared, 33 entries
  float* sf;        ///< shared, 33 entries
  double* part_d;   ///< global, 2 gridDim entries
  float* part_f;    ///< global, 2 gridDim entries
  mutable int flip = 0;
  CB_HD int rank() const {
#if defined(__CUDA_ARCH__)
    return int(blockIdx.x * blockDim.x + threadIdx.x);
#else
    return 0;
#endif
  }
  CB_HD int size() const {
#if defined(__CUDA_ARCH__)
    return int(gridDim.x * blockDim.x);
#else
    return 1;
#endif
  }
  CB_HD void sync() const {
#if defined(__CUDA_ARCH__)
    cooperative_groups::this_grid().sync();
#endif
  }
  template <class T, class Op>
  CB_HD T reduce(T v, T* sh, T* part, Op op) const {
#if defined(__CUDA_ARCH__)
    const T mine = block_fold(v, sh, op);
    T* buf = part + size_t(flip) * gridDim.x;
    flip ^= 1;
    if (threadIdx.x == 0) buf[blockIdx.x] = mine;
    sync();
    if (threadIdx.x == 0) {
      T t = __ldcg(buf);
      for (unsigned b = 1; b < gridDim.x; ++b) t = op(t, __ldcg(buf + b));
      sh[32] = t;
    }
    __syncthreads();
    return sh[32];
#else
    (void)sh;
    (void)part;
    (void)op;
    return v;
#endif
  }
  CB_HD double sum(double v) const {
    return reduce(v, sd, part_d, [] CB_HD(double a, double b) { return a + b; });
  }
  CB_HD float max(float v) const {
    return reduce(v, sf, part_f, [] CB_HD(float a, float b) { return a > b ? a : b; });
  }
  CB_HD float min(float v) const {
    return reduce(v, sf, part_f, [] CB_HD(float a, float b) { return a < b ? a : b; });
  }
};

/// Zones with more vertices + impacts than ZoneBatchScratch::whole_device_from are
/// solved by the whole device (GridTeam), one cooperative launch each; the rest
/// one block each.
constexpr int kGridThreads = 256;

// large_from: whole_device_from, or INT_MAX where the device has no cooperative launch
CB_HD inline bool is_large(const int* vert_off, const int* imp_off, int z, int large_from) {
  return (vert_off[z + 1] - vert_off[z]) + (imp_off[z + 1] - imp_off[z]) > large_from;
}

__global__ void __launch_bounds__(kZoneThreads) solve_zones_kernel(ZoneArrays a, FlatScratch f, ZoneSettings s,
                                                                   ZoneResult* results, int large_from) {
  __shared__ double sd[33];
  __shared__ float sf[33];
  if (is_large(a.vert_off, a.imp_off, int(blockIdx.x), large_from)) return;  // solve_large_zone_kernel's
  const BlockTeam team{sd, sf};
  const ZoneView z = zone_view(int(blockIdx.x), a, f);
  const ZoneResult r = solve_zone(z, s, team);
  if (threadIdx.x == 0) results[blockIdx.x] = r;
}

__global__ void __launch_bounds__(kGridThreads) solve_large_zone_kernel(int zone, ZoneArrays a, FlatScratch f,
                                                                        ZoneSettings s, double* part_d,
                                                                        float* part_f, ZoneResult* results) {
  __shared__ double sd[33];
  __shared__ float sf[33];
  const GridTeam team{sd, sf, part_d, part_f};
  const ZoneView z = zone_view(zone, a, f);
  const ZoneResult r = solve_zone(z, s, team);
  if (blockIdx.x == 0 && threadIdx.x == 0) results[zone] = r;
}

// every large zone of the batch, one cooperative launch each (the device's
// co-resident blocks, fewer for a zone that needs fewer)
void solve_large_zones(const Context& ctx, const ZoneBatch& b, const ZoneArrays& a, const FlatScratch& f,
                       const ZoneSettings& s, int large_from, ZoneBatchScratch& sc) {
  int per_sm = 0, sms = 0;
  CB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, solve_large_zone_kernel, kGridThreads, 0));
  CB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ctx.device));
  const int most = per_sm * sms;
  if (sc.part_d.size() < size_t(2 * most)) {
    sc.part_d.resize(ctx, size_t(2 * most));
    sc.part_f.resize(ctx, size_t(2 * most));
  }
  ZoneArrays as = a;
  FlatScratch fs = f;
  ZoneSettings st = s;
  double* pd = sc.part_d.data();
  float* pf = sc.part_f.data();
  ZoneResult* res = sc.results.data();
  for (int z = 0; z < int(b.num_zones()); ++z) {
    if (!is_large(b.vert_off.data(), b.imp_off.data(), z, large_from)) continue;
    const int work = (b.vert_off[size_t(z) + 1] - b.vert_off[size_t(z)]) + (b.imp_off[size_t(z) + 1] - b.imp_off[size_t(z)]);
    const int blocks = std::max(1, std::min(most, (work + kGridThreads - 1) / kGridThreads));
    void* args[] = {&z, &as, &fs, &st, &pd, &pf, &res};
    CB_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(solve_large_zone_kernel), dim3(unsigned(blocks)),
                                              dim3(kGridThreads), args, 0, nullptr));
  }
}
#endif

std::vector<ZoneResult> solve_on_cpu(ZoneBatch& b, const ZoneSettings& s, std::vector<int>& inc_off,
                                     std::vector<int>& inc) {
  const size_t nv = b.x.size(), ni = b.imp.size();
  std::vector<float> lambda(ni), ct(ni), D(nv);
  std::vector<Vec3f> g(nv), xprev(nv), xtry(nv);
  const FlatScratch f{inc_off.data(), inc.data(), lambda.data(), ct.data(), D.data(), g.data(), xprev.data(),
                      xtry.data()};
  std::vector<ZoneResult> res(b.num_zones());
  const ZoneArrays a{b.vert_off.data(), b.imp_off.data(), b.edge_off.data(), b.x.data(),
                     b.xt.data(),       b.m.data(),       b.imp.data(),      b.edges.data()};
#pragma omp parallel for schedule(dynamic)
  for (long long z = 0; z < (long long)res.size(); ++z)
    res[size_t(z)] = solve_zone(zone_view(int(z), a, f), s, SerialTeam{});
  return res;
}

}  // namespace

std::vector<ZoneResult> solve_zones(const Context& ctx, ZoneBatch& b, const ZoneSettings& s, ZoneBatchScratch& sc) {
  if (b.num_zones() == 0) return {};
  std::vector<int> inc_off, inc;
  build_incidence(b, inc_off, inc);
  if (!ctx.is_cuda()) return solve_on_cpu(b, s, inc_off, inc);
#if defined(__CUDACC__)
  const size_t nv = b.x.size(), ni = b.imp.size();
  sc.vert_off.upload(ctx, b.vert_off);
  sc.imp_off.upload(ctx, b.imp_off);
  sc.inc_off.upload(ctx, inc_off);
  sc.inc.upload(ctx, inc);  // inc and edges may be empty (no entry, membrane off): nothing reads them then
  sc.x.upload(ctx, b.x);
  sc.xt.upload(ctx, b.xt);
  sc.m.upload(ctx, b.m);
  sc.imp.upload(ctx, b.imp);
  sc.edge_off.upload(ctx, b.edge_off);
  sc.edges.upload(ctx, b.edges);
  for (auto* v : {&sc.g, &sc.xprev, &sc.xtry})
    if (v->size() < nv) v->resize(ctx, nv);
  for (auto* v : {&sc.lambda, &sc.ct})
    if (v->size() < ni) v->resize(ctx, ni);
  if (sc.D.size() < nv) sc.D.resize(ctx, nv);
  if (sc.results.size() < b.num_zones()) sc.results.resize(ctx, b.num_zones());
  const FlatScratch f{sc.inc_off.data(), sc.inc.data(), sc.lambda.data(), sc.ct.data(), sc.D.data(),
                      sc.g.data(), sc.xprev.data(), sc.xtry.data()};
  int coop = 0;
  CB_CUDA_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, ctx.device));
  const int large_from = coop ? sc.whole_device_from : INT_MAX;  // without it, every zone gets one block
  const ZoneArrays a{sc.vert_off.data(), sc.imp_off.data(), sc.edge_off.data(), sc.x.data(),
                     sc.xt.data(),       sc.m.data(),       sc.imp.data(),      sc.edges.data()};
  solve_zones_kernel<<<unsigned(b.num_zones()), kZoneThreads>>>(a, f, s, sc.results.data(), large_from);
  CB_CUDA_CHECK(cudaGetLastError());
  if (coop) solve_large_zones(ctx, b, a, f, s, large_from, sc);
  sc.x.download(b.x);
  std::vector<ZoneResult> res = sc.results.to_host();
  res.resize(b.num_zones());
  return res;
#else
  (void)sc;
  throw Error("solve_zones: cuda backend requested in a build without CUDA");
#endif
}

}  // namespace cb::icloth
