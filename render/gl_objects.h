// RAII owners of GL names (buffers, vertex arrays, textures). Move-only; a
// default-constructed owner holds name 0. Need a current GL context.
#pragma once

#include <cstddef>
#include <utility>

#include "render/gl.h"

namespace cb::render {

class GlBuffer {
 public:
  GlBuffer() = default;
  ~GlBuffer();
  GlBuffer(GlBuffer&& o) noexcept : id_(std::exchange(o.id_, 0)), bytes_(o.bytes_) {}
  GlBuffer& operator=(GlBuffer&& o) noexcept;
  GlBuffer(const GlBuffer&) = delete;
  GlBuffer& operator=(const GlBuffer&) = delete;

  /// (Re)allocates `bytes` with optional initial data; usage GL_STATIC_DRAW/GL_DYNAMIC_DRAW.
  void allocate(GLenum target, size_t bytes, const void* data, GLenum usage);
  /// glBufferSubData into the first `bytes` (must fit).
  void update(GLenum target, size_t bytes, const void* data);
  GLuint id() const { return id_; }
  size_t bytes() const { return bytes_; }

 private:
  GLuint id_ = 0;
  size_t bytes_ = 0;
};

class GlVertexArray {
 public:
  GlVertexArray() = default;
  ~GlVertexArray();
  GlVertexArray(GlVertexArray&& o) noexcept : id_(std::exchange(o.id_, 0)) {}
  GlVertexArray& operator=(GlVertexArray&& o) noexcept;
  GlVertexArray(const GlVertexArray&) = delete;
  GlVertexArray& operator=(const GlVertexArray&) = delete;

  void create();
  void bind() const { glBindVertexArray(id_); }
  /// Attribute `index` as `components` floats per vertex, tightly packed in `buffer`.
  void attribute(GLuint index, const GlBuffer& buffer, int components);
  GLuint id() const { return id_; }

 private:
  GLuint id_ = 0;
};

class GlTexture {
 public:
  GlTexture() = default;
  ~GlTexture();
  GlTexture(GlTexture&& o) noexcept : id_(std::exchange(o.id_, 0)) {}
  GlTexture& operator=(GlTexture&& o) noexcept;
  GlTexture(const GlTexture&) = delete;
  GlTexture& operator=(const GlTexture&) = delete;

  /// Uploads RGBA8 pixels (row 0 = top) with mipmaps and repeat wrapping.
  void upload_rgba(int width, int height, const unsigned char* pixels);
  GLuint id() const { return id_; }
  bool valid() const { return id_ != 0; }

 private:
  GLuint id_ = 0;
};

}  // namespace cb::render
