#include "render/shader.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include <glm/gtc/type_ptr.hpp>

#include "sim/core/error.h"

namespace cb::render {

namespace {

bool file_exists(const std::string& p) { return std::ifstream(p).good(); }

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw Error("cannot open shader " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

GLuint compile(GLenum kind, const std::string& path) {
  std::string src = read_text(path);
  const char* p = src.c_str();
  GLuint s = glCreateShader(kind);
  glShaderSource(s, 1, &p, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    std::vector<char> log(4096);
    glGetShaderInfoLog(s, GLsizei(log.size()), nullptr, log.data());
    glDeleteShader(s);
    throw Error(path + ": " + log.data());
  }
  return s;
}

}  // namespace

std::string find_shader_dir() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("CLOTHBOX_SHADERS")) dirs.push_back(env);
  dirs.push_back("shaders");
  dirs.push_back(std::string(CLOTHBOX_SOURCE_DIR) + "/shaders");
  for (const std::string& d : dirs)
    if (file_exists(d + "/cloth.vert")) return d;
  throw Error("shaders not found (looked in $CLOTHBOX_SHADERS, ./shaders, " + std::string(CLOTHBOX_SOURCE_DIR) +
              "/shaders)");
}

Shader::~Shader() {
  if (id_) glDeleteProgram(id_);
}

Shader::Shader(Shader&& o) noexcept : id_(std::exchange(o.id_, 0)) {}

Shader& Shader::operator=(Shader&& o) noexcept {
  if (this != &o) {
    if (id_) glDeleteProgram(id_);
    id_ = std::exchange(o.id_, 0);
  }
  return *this;
}

Shader Shader::load(const std::string& dir, const std::string& name) {
  GLuint vs = compile(GL_VERTEX_SHADER, dir + "/" + name + ".vert");
  GLuint fs = 0;
  try {
    fs = compile(GL_FRAGMENT_SHADER, dir + "/" + name + ".frag");
  } catch (...) {
    glDeleteShader(vs);
    throw;
  }
  Shader sh;
  sh.id_ = glCreateProgram();
  glAttachShader(sh.id_, vs);
  glAttachShader(sh.id_, fs);
  glLinkProgram(sh.id_);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(sh.id_, GL_LINK_STATUS, &ok);
  if (!ok) {
    std::vector<char> log(4096);
    glGetProgramInfoLog(sh.id_, GLsizei(log.size()), nullptr, log.data());
    throw Error("linking shader " + name + ": " + log.data());
  }
  return sh;
}

void Shader::set(const char* name, const glm::mat4& m) const {
  glUniformMatrix4fv(glGetUniformLocation(id_, name), 1, GL_FALSE, glm::value_ptr(m));
}
void Shader::set(const char* name, const glm::vec3& v) const { glUniform3fv(glGetUniformLocation(id_, name), 1, glm::value_ptr(v)); }
void Shader::set(const char* name, const glm::vec4& v) const { glUniform4fv(glGetUniformLocation(id_, name), 1, glm::value_ptr(v)); }
void Shader::set(const char* name, float f) const { glUniform1f(glGetUniformLocation(id_, name), f); }
void Shader::set(const char* name, int i) const { glUniform1i(glGetUniformLocation(id_, name), i); }

}  // namespace cb::render
