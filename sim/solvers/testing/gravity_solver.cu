#include "sim/solvers/testing/gravity_solver.h"

#include "sim/core/parallel.h"

namespace cb {
namespace {

void fall(const Context& ctx, Vec3f* x, Vec3f* v, const float* w, int n, Vec3f g, float h) {
  parallel_for(ctx, n, [=] CB_HD(int i) {
    if (w[i] == 0.f) return;  // pinned
    x[i] += v[i] * h + g * (0.5f * h * h);
    v[i] += g * h;
  });
}

class GravitySolver : public Solver {
 public:
  explicit GravitySolver(const Context& ctx) : ctx_(ctx) {}
  std::string name() const override { return "gravity-test"; }
  ParamTable params() const override { return ParamTable{}; }
  std::string set_params(const ParamTable&) override { return ""; }
  void step(const StepInputs& in, SimState& s) override {
    ScopedStage stage(in.timer, "fall");
    const float h = in.dt / float(in.substeps);
    for (int k = 0; k < in.substeps; ++k)
      fall(ctx_, s.x.data(), s.v.data(), s.inv_mass.data(), int(s.size()), in.env.gravity, h);
  }

 private:
  Context ctx_;
};

}  // namespace

std::unique_ptr<Solver> make_gravity_test_solver(const Context& ctx, const ClothModel&) {
  return std::make_unique<GravitySolver>(ctx);
}

}  // namespace cb
