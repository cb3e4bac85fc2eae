# I-Cloth solver (issue 7): Tang et al. 2018.
list(APPEND CLOTHBOX_SIM_CXX
  solvers/icloth/params.cpp
  solvers/icloth/system.cpp
  solvers/icloth/multigrid_setup.cpp
  solvers/icloth/collision_handler.cpp
  solvers/icloth/rigid_zones.cpp
  solvers/icloth/untangle.cpp
  solvers/icloth/contour_untangle.cpp
  solvers/icloth/obstacle_pushout.cpp
  solvers/icloth/zone_followers.cpp
  solvers/icloth/solver.cpp
  solvers/icloth/takeover.cpp)
list(APPEND CLOTHBOX_SIM_CU
  solvers/icloth/system_kernels.cu
  solvers/icloth/cg.cu
  solvers/icloth/coarse_start.cu
  solvers/icloth/multigrid.cu
  solvers/icloth/obstacle_kernels.cu
  solvers/icloth/resting_contacts.cu
  solvers/icloth/step_kernels.cu
  solvers/icloth/collision_kernels.cu
  solvers/icloth/narrow_phase.cu
  solvers/icloth/zone_batch.cu)
list(APPEND CLOTHBOX_SIM_CU solvers/icloth/repulsion.cu solvers/icloth/pair_springs.cu)
