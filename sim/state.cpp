#include "sim/state.h"

namespace cb {

HostState download(const SimState& s) {
  HostState h;
  s.x.download(h.x);
  s.v.download(h.v);
  s.x_prev.download(h.x_prev);
  s.inv_mass.download(h.inv_mass);
  return h;
}

void upload(const Context& ctx, const HostState& h, SimState& s) {
  s.x.upload(ctx, h.x);
  s.v.upload(ctx, h.v);
  s.x_prev.upload(ctx, h.x_prev);
  s.inv_mass.upload(ctx, h.inv_mass);
}

}  // namespace cb
