// The CUDA-GL interop path without a window, for the GPU machine (no display, no
// GLFW): an OpenGL 4.5 core context from EGL on the GPU, a CUDA world stepped a
// few frames, the renderer's vertex kernel writing positions and normals straight
// into GL buffers registered with CUDA (render/cuda_gl_bridge.h), the buffers read
// back through GL and compared with the same kernel on the CPU backend; then the
// renderer's own ClothMesh must report the interop path.
//   clothbox-egl-check [scene.json]   (tests/gpu/run_on_device.sh egl)
// Prints one result line; exit 0 = ok, 1 = a check failed, 2 = no EGL/GL/CUDA here.
#include <EGL/egl.h>
#include <EGL/eglext.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "render/cloth_mesh.h"
#include "render/cloth_vertices.h"
#include "render/cuda_gl_bridge.h"
#include "render/gl.h"
#include "sim/core/error.h"
#include "sim/scene/scene.h"
#include "sim/world.h"

namespace {

using namespace cb;

int unavailable(const std::string& why) {
  std::printf("egl interop: unavailable (%s)\n", why.c_str());
  return 2;
}

// The first EGL device's display (headless, EGL_EXT_platform_device), else the default one.
EGLDisplay gpu_display() {
  auto query = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
  auto platform = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
  EGLDeviceEXT devices[8];
  EGLint n = 0;
  if (query && platform && query(8, devices, &n) && n > 0)
    return platform(EGL_PLATFORM_DEVICE_EXT, devices[0], nullptr);
  return eglGetDisplay(EGL_DEFAULT_DISPLAY);
}

// Makes an OpenGL 4.5 core context current on a 16x16 pbuffer; "" or why not.
std::string make_gl_context() {
  EGLDisplay dpy = gpu_display();
  EGLint major = 0, minor = 0;
  if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, &major, &minor)) return "no EGL display";
  if (!eglBindAPI(EGL_OPENGL_API)) return "EGL has no desktop OpenGL";
  const EGLint cfg_attr[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
  EGLConfig cfg;
  EGLint ncfg = 0;
  if (!eglChooseConfig(dpy, cfg_attr, &cfg, 1, &ncfg) || ncfg < 1) return "no EGL config for an OpenGL pbuffer";
  const EGLint pb_attr[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
  EGLSurface surf = eglCreatePbufferSurface(dpy, cfg, pb_attr);
  const EGLint ctx_attr[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5,
                             EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
  EGLContext ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, ctx_attr);
  if (surf == EGL_NO_SURFACE || ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, surf, surf, ctx))
    return "no OpenGL 4.5 core context (EGL error " + std::to_string(eglGetError()) + ")";
  if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(eglGetProcAddress))) return "glad could not load OpenGL 4.5";
  return "";
}

std::vector<Vec3f> read_buffer(GLuint vbo, size_t n) {
  std::vector<Vec3f> v(n);
  glGetNamedBufferSubData(vbo, 0, GLsizeiptr(n * sizeof(Vec3f)), v.data());
  return v;
}

float max_diff(const std::vector<Vec3f>& a, const std::vector<Vec3f>& b) {
  float m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, length(a[i] - b[i]));
  return m;
}

int run(const std::string& scene_path) {
  const std::string why = make_gl_context();
  if (!why.empty()) return unavailable(why);
  std::printf("egl: %s, %s\n", reinterpret_cast<const char*>(glGetString(GL_RENDERER)),
              reinterpret_cast<const char*>(glGetString(GL_VERSION)));
  if (!render::CudaGlBridge::compiled()) return unavailable("built without CUDA");
  const Context gpu = make_context(BackendRequest::Cuda);  // throws without a device
  World w(gpu, load_scene(scene_path));
  for (int f = 0; f < 10; ++f) w.step();
  const size_t n = w.model().num_vertices();

  // the interop path by hand: register, map, the renderer's kernel, unmap
  GLuint vbo[2];
  glCreateBuffers(2, vbo);
  for (GLuint b : vbo) glNamedBufferData(b, GLsizeiptr(n * sizeof(Vec3f)), nullptr, GL_DYNAMIC_DRAW);
  render::ClothTopologyBuffers topo;
  topo.upload(gpu, w.model());
  render::CudaGlBridge bridge;
  std::string err = bridge.register_buffers(vbo[0], vbo[1]);
  if (!err.empty()) return std::printf("egl interop: FAIL register: %s\n", err.c_str()), 1;
  Vec3f *px = nullptr, *pn = nullptr;
  err = bridge.map(&px, &pn);
  if (!err.empty()) return std::printf("egl interop: FAIL map: %s\n", err.c_str()), 1;
  render::write_cloth_vertices(gpu, topo, w.state().x.data(), px, pn);
  bridge.unmap();
  const std::vector<Vec3f> gl_x = read_buffer(vbo[0], n), gl_n = read_buffer(vbo[1], n);

  // the same kernel on the CPU from the downloaded positions
  const Context cpu;
  const std::vector<Vec3f> x = w.state().x.to_host();
  render::ClothTopologyBuffers topo_cpu;
  topo_cpu.upload(cpu, w.model());
  std::vector<Vec3f> ref_x(n), ref_n(n);
  render::write_cloth_vertices(cpu, topo_cpu, x.data(), ref_x.data(), ref_n.data());
  const float dx = max_diff(gl_x, ref_x), dn = max_diff(gl_n, ref_n);

  // the renderer's own buffers take the same path
  render::ClothMesh mesh;
  mesh.build(gpu, w.model());
  mesh.publish(gpu, w.state());
  const bool mesh_interop = mesh.path() == render::PublishPath::CudaInterop;
  bridge.unregister();
  glDeleteBuffers(2, vbo);

  const bool ok = dx == 0.f && dn < 1e-5f && mesh_interop && glGetError() == GL_NO_ERROR;
  std::printf("egl interop: %s, %zu vertices, positions max diff %g m, normals max diff %g, ClothMesh path: %s%s%s\n",
              ok ? "ok" : "FAIL", n, double(dx), double(dn), render::publish_path_name(mesh.path()),
              mesh.interop_note().empty() ? "" : " — ", mesh.interop_note().c_str());
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string scene = argc > 1 ? argv[1] : std::string(CLOTHBOX_SOURCE_DIR) + "/scenes/hanging_sheet.json";
  try {
    return run(scene);
  } catch (const cb::Error& e) {
    return unavailable(e.what());
  }
}
