// GLSL programs loaded at run time from the shaders/ folder.
#pragma once

#include <string>

#include <glm/glm.hpp>

#include "render/gl.h"

namespace cb::render {

/// The shaders/ folder: $CLOTHBOX_SHADERS, else ./shaders, else the source tree's.
/// Throws cb::Error when none holds cloth.vert.
std::string find_shader_dir();

class Shader {
 public:
  Shader() = default;
  ~Shader();
  Shader(Shader&& o) noexcept;
  Shader& operator=(Shader&& o) noexcept;
  Shader(const Shader&) = delete;
  Shader& operator=(const Shader&) = delete;

  /// Compiles `dir`/`name`.vert and `dir`/`name`.frag; throws cb::Error with the
  /// file name and the driver's log on failure.
  static Shader load(const std::string& dir, const std::string& name);

  void use() const { glUseProgram(id_); }
  GLuint id() const { return id_; }
  void set(const char* name, const glm::mat4& m) const;
  void set(const char* name, const glm::vec3& v) const;
  void set(const char* name, const glm::vec4& v) const;
  void set(const char* name, float f) const;
  void set(const char* name, int i) const;

 private:
  GLuint id_ = 0;
};

}  // namespace cb::render
