# Dependency lookup. Everything comes from Debian's packages (see scripts/setup.sh).
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(nlohmann_json 3 REQUIRED)
find_package(tinyobjloader REQUIRED)
find_package(Threads REQUIRED)

# Thrust/CUB: the CCCL headers that ship with the CUDA toolkit. Without nvcc they
# compile with the host compiler and OpenMP as Thrust's device system.
find_path(CLOTHBOX_CCCL_DIR thrust/sort.h
  HINTS /usr/local/cuda/include/cccl /usr/local/cuda/include /usr/include
  DOC "Folder that holds thrust/ (CUDA toolkit CCCL headers)")
if(NOT CLOTHBOX_CCCL_DIR)
  message(FATAL_ERROR "Thrust headers not found: install the CUDA toolkit (/usr/local/cuda) or libthrust-dev")
endif()

if(CLOTHBOX_TESTS)
  find_package(GTest REQUIRED)
endif()
if(CLOTHBOX_BENCH)
  find_package(benchmark QUIET)
  if(NOT benchmark_FOUND)
    message(STATUS "Google Benchmark not found: benchmarks are not built")
    set(CLOTHBOX_BENCH OFF)
  endif()
endif()

# the render library (GL loader, GLM, stb): for the window, or for the EGL check
if(CLOTHBOX_GUI OR CLOTHBOX_EGL_CHECK)
  find_package(OpenGL REQUIRED COMPONENTS OpenGL OPTIONAL_COMPONENTS EGL)
  find_package(glm REQUIRED)
  find_path(CLOTHBOX_STB_DIR stb_image.h HINTS /usr/include/stb REQUIRED)
  find_program(CLOTHBOX_GLAD glad HINTS /usr/bin REQUIRED)
endif()
if(CLOTHBOX_GUI)
  find_package(glfw3 3.3 REQUIRED)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(IMGUI REQUIRED IMPORTED_TARGET imgui)
  find_path(CLOTHBOX_IMGUI_BACKENDS imgui_impl_glfw.cpp
    HINTS /usr/share/doc/libimgui-dev/examples/backends REQUIRED)
endif()
