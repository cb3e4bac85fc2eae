#include "sim/collision/boxes.h"

#include "sim/core/parallel.h"

namespace cb {

void triangle_boxes(const Context& ctx, const Vec3f* x, const Int3* tris, int n, Aabb* boxes) {
  parallel_for(ctx, n, [=] CB_HD(int i) { boxes[i] = triangle_box(x, tris[i]); });
}

}  // namespace cb
