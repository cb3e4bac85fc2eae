#include "render/texture.h"

#include <cmath>
#include <vector>

#include <stb_image.h>

namespace cb::render {

std::string load_texture(const std::string& path, GlTexture* out) {
  int w = 0, h = 0, comp = 0;
  unsigned char* px = stbi_load(path.c_str(), &w, &h, &comp, 4);
  if (!px) return "cannot read image " + path + ": " + (stbi_failure_reason() ? stbi_failure_reason() : "?");
  out->upload_rgba(w, h, px);
  stbi_image_free(px);
  return "";
}

void make_check_texture(GlTexture* out) {
  const int n = 256, cell = 32;
  std::vector<unsigned char> px(size_t(n) * n * 4);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      bool odd = ((x / cell) + (y / cell)) % 2 != 0;
      // a faint weave inside each cell
      float weave = 0.06f * std::sin(float(x) * 0.8f) * std::sin(float(y) * 0.8f);
      float v = (odd ? 0.78f : 1.0f) + weave;
      unsigned char c = (unsigned char)(255.f * std::fmin(std::fmax(v, 0.f), 1.f));
      unsigned char* p = &px[(size_t(y) * n + x) * 4];
      p[0] = p[1] = p[2] = c;
      p[3] = 255;
    }
  out->upload_rgba(n, n, px.data());
}

}  // namespace cb::render
