# pbd solver (issue 5): XPBD with coloured Gauss-Seidel / Jacobi.
list(APPEND CLOTHBOX_SIM_CXX
  solvers/pbd/params.cpp
  solvers/pbd/constraint_set.cpp
  solvers/pbd/solver.cpp)
list(APPEND CLOTHBOX_SIM_CU
  solvers/pbd/kernels.cu)
