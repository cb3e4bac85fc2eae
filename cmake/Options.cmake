# Build options. Every option has a default that works on a fresh Debian machine.
option(CLOTHBOX_GUI     "Build the GLFW/ImGui window and the render library" ON)
option(CLOTHBOX_TESTS   "Build the unit, integration and GUI tests" ON)
option(CLOTHBOX_BENCH   "Build the Google Benchmark programs" ON)
option(CLOTHBOX_EGL_CHECK "Build the render library without the window and the headless CUDA-GL interop check (EGL; GPU machine)" OFF)
set(CLOTHBOX_CUDA "AUTO" CACHE STRING "Build the CUDA backend: AUTO (when nvcc is found), ON, OFF")
set_property(CACHE CLOTHBOX_CUDA PROPERTY STRINGS AUTO ON OFF)
set(CLOTHBOX_SHARED_DIR "${CMAKE_SOURCE_DIR}/../shared" CACHE PATH
    "Folder with the shared test data (data/ccd, data/meshes); tests that need it skip without it")

# Use ccache for C++ and CUDA when present: nvcc on two cores is slow.
find_program(CLOTHBOX_CCACHE ccache)
if(CLOTHBOX_CCACHE)
  set(CMAKE_CXX_COMPILER_LAUNCHER "${CLOTHBOX_CCACHE}")
  set(CMAKE_CUDA_COMPILER_LAUNCHER "${CLOTHBOX_CCACHE}")
endif()

# CUDA: on when nvcc is found (AUTO). Architectures are fixed so that a machine
# without a GPU can build (90 = H100/H200; 75 is the oldest CUDA 13 accepts).
if(NOT CLOTHBOX_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90)
    endif()
    enable_language(CUDA)
    set(CLOTHBOX_WITH_CUDA ON)
  elseif(CLOTHBOX_CUDA STREQUAL "ON")
    message(FATAL_ERROR "CLOTHBOX_CUDA=ON but no nvcc was found (looked in PATH and /usr/local/cuda/bin)")
  endif()
endif()
if(NOT CLOTHBOX_WITH_CUDA)
  set(CLOTHBOX_WITH_CUDA OFF)
endif()
message(STATUS "clothbox: CUDA backend ${CLOTHBOX_WITH_CUDA}, GUI ${CLOTHBOX_GUI}, tests ${CLOTHBOX_TESTS}")
