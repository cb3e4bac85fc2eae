// The one include for OpenGL in render/ and app/gui/: the glad loader generated
// at build time (OpenGL 4.5 core). Load it once with gladLoadGL(glfwGetProcAddress).
#pragma once

#include <glad/gl.h>
