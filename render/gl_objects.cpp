#include "render/gl_objects.h"

namespace cb::render {

GlBuffer::~GlBuffer() {
  if (id_) glDeleteBuffers(1, &id_);
}

GlBuffer& GlBuffer::operator=(GlBuffer&& o) noexcept {
  if (this != &o) {
    if (id_) glDeleteBuffers(1, &id_);
    id_ = std::exchange(o.id_, 0);
    bytes_ = o.bytes_;
  }
  return *this;
}

void GlBuffer::allocate(GLenum target, size_t bytes, const void* data, GLenum usage) {
  if (!id_) glGenBuffers(1, &id_);
  glBindBuffer(target, id_);
  glBufferData(target, GLsizeiptr(bytes), data, usage);
  bytes_ = bytes;
}

void GlBuffer::update(GLenum target, size_t bytes, const void* data) {
  if (!id_ || bytes == 0) return;
  glBindBuffer(target, id_);
  glBufferSubData(target, 0, GLsizeiptr(bytes < bytes_ ? bytes : bytes_), data);
}

GlVertexArray::~GlVertexArray() {
  if (id_) glDeleteVertexArrays(1, &id_);
}

GlVertexArray& GlVertexArray::operator=(GlVertexArray&& o) noexcept {
  if (this != &o) {
    if (id_) glDeleteVertexArrays(1, &id_);
    id_ = std::exchange(o.id_, 0);
  }
  return *this;
}

void GlVertexArray::create() {
  if (!id_) glGenVertexArrays(1, &id_);
}

void GlVertexArray::attribute(GLuint index, const GlBuffer& buffer, int components) {
  glBindVertexArray(id_);
  glBindBuffer(GL_ARRAY_BUFFER, buffer.id());
  glEnableVertexAttribArray(index);
  glVertexAttribPointer(index, components, GL_FLOAT, GL_FALSE, 0, nullptr);
}

GlTexture::~GlTexture() {
  if (id_) glDeleteTextures(1, &id_);
}

GlTexture& GlTexture::operator=(GlTexture&& o) noexcept {
  if (this != &o) {
    if (id_) glDeleteTextures(1, &id_);
    id_ = std::exchange(o.id_, 0);
  }
  return *this;
}

void GlTexture::upload_rgba(int width, int height, const unsigned char* pixels) {
  if (!id_) glGenTextures(1, &id_);
  glBindTexture(GL_TEXTURE_2D, id_);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
  glGenerateMipmap(GL_TEXTURE_2D);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_REPEAT);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_REPEAT);
}

}  // namespace cb::render
