#include "sim/model/hoops.h"

#include <algorithm>

namespace cb {

Hoops find_hoops(const Topology& topo, const std::vector<Vec3f>& rest) {
  const size_t n = rest.size();
  // each boundary vertex's boundary neighbours; a third one marks it as a junction
  constexpr uint32_t kNone = ~0u;
  std::vector<uint32_t> nb0(n, kNone), nb1(n, kNone);
  std::vector<uint8_t> junction(n, 0);
  for (uint32_t e : topo.boundary_edges) {
    const uint32_t a = uint32_t(topo.edges[e].a), b = uint32_t(topo.edges[e].b);
    for (auto [v, u] : {std::pair{a, b}, std::pair{b, a}}) {
      if (nb0[v] == kNone) nb0[v] = u;
      else if (nb1[v] == kNone) nb1[v] = u;
      else junction[v] = 1;
    }
  }
  Hoops h;
  h.offsets.push_back(0);
  h.loop_chunks.push_back(0);
  std::vector<uint8_t> seen(n, 0);
  std::vector<uint32_t> walk;
  for (uint32_t s = 0; s < n; ++s) {
    if (seen[s] || nb1[s] == kNone || junction[s]) continue;
    walk.clear();
    uint32_t prev = nb1[s], v = s;  // walk towards nb0 first
    bool closed = false;
    while (true) {
      if (seen[v] || junction[v] || nb1[v] == kNone) break;
      seen[v] = 1;
      walk.push_back(v);
      const uint32_t next = nb0[v] != prev ? nb0[v] : nb1[v];
      prev = v;
      v = next;
      if (v == s) {
        closed = true;
        break;
      }
    }
    if (!closed || walk.size() < 3) continue;
    float len = 0.f;
    for (size_t k = 0; k < walk.size(); ++k) len += length(rest[walk[(k + 1) % walk.size()]] - rest[walk[k]]);
    const uint32_t begin = uint32_t(h.ids.size());
    h.ids.insert(h.ids.end(), walk.begin(), walk.end());
    h.loop_of.insert(h.loop_of.end(), walk.size(), uint32_t(h.rest_length.size()));
    h.offsets.push_back(uint32_t(h.ids.size()));
    h.rest_length.push_back(len);
    h.span.push_back(std::max(1, std::min(kHoopSpan, int(walk.size()) / 6)));
    for (uint32_t b = begin; b < h.offsets.back(); b += kHoopChunk) h.chunk_offsets.push_back(b);
    h.loop_chunks.push_back(uint32_t(h.chunk_offsets.size()));
  }
  h.chunk_offsets.push_back(uint32_t(h.ids.size()));
  return h;
}

void DeviceHoops::upload(const Context& ctx, const Hoops& hoops) {
  nloops_ = int(hoops.size());
  off_.upload(ctx, hoops.offsets);
  ids_.upload(ctx, hoops.ids);
  loop_of_.upload(ctx, hoops.loop_of);
  rest_.upload(ctx, hoops.rest_length);
  span_.upload(ctx, hoops.span);
  chunk_off_.upload(ctx, hoops.chunk_offsets);
  loop_chunks_.upload(ctx, hoops.loop_chunks);
  length_.resize(ctx, hoops.ids.size());
  tangent_.resize(ctx, hoops.ids.size());
  terms_.resize(ctx, hoops.ids.size());
  chunk_sums_.resize(ctx, hoops.chunk_offsets.size() - 1);
  lambda_.resize(ctx, hoops.size());
}

HoopView DeviceHoops::view() {
  HoopView v;
  v.off = off_.data();
  v.ids = ids_.data();
  v.loop_of = loop_of_.data();
  v.rest = rest_.data();
  v.span = span_.data();
  v.chunk_off = chunk_off_.data();
  v.loop_chunks = loop_chunks_.data();
  v.tangent = tangent_.data();
  v.length = length_.data();
  v.terms = terms_.data();
  v.chunk_sums = chunk_sums_.data();
  v.lambda = lambda_.data();
  v.nloops = nloops_;
  v.nentries = int(ids_.size());
  v.nchunks = int(chunk_sums_.size());
  return v;
}

size_t DeviceHoops::bytes() const {
  return off_.bytes() + ids_.bytes() + loop_of_.bytes() + chunk_off_.bytes() + loop_chunks_.bytes() + rest_.bytes() +
         length_.bytes() + lambda_.bytes() + span_.bytes() + tangent_.bytes() + terms_.bytes() + chunk_sums_.bytes();
}

}  // namespace cb
