// Screenshots: read the framebuffer back and write a PNG with stb_image_write.
#pragma once

#include <string>

namespace cb::render {

/// Reads the current read buffer (width x height pixels, the default framebuffer's
/// back buffer before the swap) and writes an RGB PNG, top row first. Returns "" or why not.
std::string save_screenshot(const std::string& path, int width, int height);

}  // namespace cb::render
