# Verlet mass-spring + virtual spheres (issue 4).
list(APPEND CLOTHBOX_SIM_CXX
  solvers/verlet/params.cpp
  solvers/verlet/springs.cpp
  solvers/verlet/strain_rows.cpp
  solvers/verlet/solver.cpp
  solvers/verlet/sphere_contacts_cpu.cpp)
list(APPEND CLOTHBOX_SIM_CU
  solvers/verlet/verlet_kernels.cu
  solvers/verlet/sphere_kernels.cu
  solvers/verlet/dense_grid.cu)
# the particle hash lives in collision/ (shared with PBD); listed here until
# collision/sources.cmake lists it
if(NOT "collision/particle_hash.cu" IN_LIST CLOTHBOX_SIM_CU)
  list(APPEND CLOTHBOX_SIM_CU collision/particle_hash.cu)
endif()
