// The velocity a sub-step ends with, from where it ended and where it was
// predicted to end; shared by every solver.
#pragma once

#include "sim/core/hd.h"
#include "sim/core/math.h"

namespace cb {

/// The velocity (m/s) that carried x0 to x_end over h (s), where the step
/// predicted x_pred = x0 + h v_pred and constraints or collisions then moved
/// it to x_end (m): v_pred + (x_end - (x0 + h v_pred)) / h. That is
/// (x_end - x0) / h, but exact where nothing moved the prediction: from
/// x_end - x0 in float, a step h v below half an ulp of x (6e-8 m at 1 m) was
/// rounded away, and at 1,000 sub-steps of a 1/60 s frame (g h^2 = 3e-9 m) a
/// sheet at rest never started to fall; at 200 it fell 12 % short of g t^2 / 2
/// (RESULTS.md, thirty-first session). x0 + h v_pred must be computed as the
/// prediction computed it (the same float operations), so that x_end - x_pred
/// is the corrections alone.
CB_HD inline Vec3f step_velocity(Vec3f x0, Vec3f x_end, Vec3f v_pred, float h) {
  return v_pred + (x_end - (x0 + v_pred * h)) / h;
}

}  // namespace cb
