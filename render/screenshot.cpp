#include "render/screenshot.h"

#include <vector>

#include <stb_image_write.h>

#include "render/gl.h"

namespace cb::render {

std::string save_screenshot(const std::string& path, int width, int height) {
  if (width <= 0 || height <= 0) return "empty framebuffer";
  std::vector<unsigned char> px(size_t(width) * height * 3);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, px.data());
  // GL rows go bottom-up, PNG rows top-down
  stbi_flip_vertically_on_write(1);
  int ok = stbi_write_png(path.c_str(), width, height, 3, px.data(), width * 3);
  stbi_flip_vertically_on_write(0);
  return ok ? "" : "cannot write " + path;
}

}  // namespace cb::render
