# Collision core (issue 6). Primitives are header-only CB_HD (proximity.h, ccd.h,
# predicates.h, tri_tri.h, ray.h, ray_classify.h); kernels live in the .cu files.
# particle_hash.cu (the Verlet solver's) is added by solvers/verlet/sources.cmake.
list(APPEND CLOTHBOX_SIM_CXX
  collision/ccd_benchmark.cpp)
list(APPEND CLOTHBOX_SIM_CU
  collision/boxes.cu
  collision/lbvh.cu
  collision/mesh_curvature.cu
  collision/obstacle_proximity.cu
  collision/obstacle_sweep.cu
  collision/ccd_batch.cu
  collision/box_pairs.cu
  collision/penetration.cu
  collision/ccd_candidates.cu
  collision/ray_detector.cu)
