// Cloth textures: an image file through stb_image, or a procedural fabric check.
#pragma once

#include <string>

#include "render/gl_objects.h"

namespace cb::render {

/// Loads a PNG/JPEG/... file into a texture; returns "" or why not (the texture is left as it was).
std::string load_texture(const std::string& path, GlTexture* out);
/// A 256x256 woven check (two tones of grey so the cloth colour tints it).
void make_check_texture(GlTexture* out);

}  // namespace cb::render
