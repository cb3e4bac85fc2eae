#include "app/gui/frame_loop.h"

#include <cstdio>
#include <string>

#include "render/gl.h"  // glad before GLFW
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include "app/gui/actions.h"
#include "app/gui/input.h"
#include "app/gui/panels.h"
#include "app/gui/state_dump.h"
#include "render/screenshot.h"

namespace cb::gui {

using nlohmann::json;

void App::window_size(int* w, int* h) const { glfwGetWindowSize(window, w, h); }

void App::notify(const std::string& text, bool error) {
  message = text;
  message_is_error = error;
  if (error) std::fprintf(stderr, "clothbox: %s\n", text.c_str());
}

namespace {

App* app_of(GLFWwindow* w) { return static_cast<App*>(glfwGetWindowUserPointer(w)); }

// GLFW callbacks queue events for the next frame start; ImGui's own callbacks
// (installed after these, chaining to them) keep the panels working.
void on_button(GLFWwindow* w, int button, int action, int mods) {
  App& app = *app_of(w);
  if (app.replayer.active()) return;
  if (action == GLFW_PRESS && ImGui::GetIO().WantCaptureMouse) return;
  double x, y;
  glfwGetCursorPos(w, &x, &y);
  app.pending.push_back({{"type", action == GLFW_PRESS ? "mouse_down" : "mouse_up"}, {"button", button},
                         {"mods", mods}, {"x", float(x)}, {"y", float(y)}});
}

void on_cursor(GLFWwindow* w, double x, double y) {
  App& app = *app_of(w);
  app.input.hover_x = float(x);
  app.input.hover_y = float(y);
  if (app.replayer.active() || app.input.mode == DragMode::None) return;
  app.pending.push_back({{"type", "mouse_move"}, {"x", float(x)}, {"y", float(y)}});
}

void on_scroll(GLFWwindow* w, double, double dy) {
  App& app = *app_of(w);
  if (app.replayer.active() || ImGui::GetIO().WantCaptureMouse) return;
  app.pending.push_back({{"type", "scroll"}, {"dy", float(dy)}});
}

void on_key(GLFWwindow* w, int key, int, int action, int mods) {
  App& app = *app_of(w);
  if (app.replayer.active() || action != GLFW_PRESS || ImGui::GetIO().WantCaptureKeyboard) return;
  std::string name = key_name(key);
  if (!name.empty()) app.pending.push_back({{"type", "key"}, {"key", name}, {"mods", mods}});
}

// applies one event and records it
void apply_event(App& app, const json& ev) {
  const std::string type = ev.value("type", std::string());
  if (is_input_event(type)) {
    if (handle_input(app, ev)) app.recorder.add(app.frame, ev);
    return;
  }
  std::string err = apply_action(app, ev);
  app.recorder.add(app.frame, ev);
  if (!err.empty()) app.notify(type + ": " + err, true);
}

void apply_events(App& app) {
  // panel actions queued last frame (and live input when not replaying)
  std::deque<json> queue;
  queue.swap(app.pending);
  for (const json& ev : queue) apply_event(app, ev);
  if (app.replayer.active())
    for (const json& ev : app.replayer.take(app.frame)) apply_event(app, ev);
}

// A takeover's notice of crossings (actions.cpp) stands until a frame's check
// counts none; then the window says they are gone, instead of warning about a
// cloth that no longer crosses. A notice given since replaces the watch.
void follow_crossing_notice(App& app) {
  if (app.crossing_notice.empty()) return;
  if (app.message != app.crossing_notice) {
    app.crossing_notice.clear();
    return;
  }
  const FrameStats& st = app.world->stats();
  if (st.get("intersecting pairs", -1) != 0) return;  // still crossed, or not counted
  app.notify(app.world->solver_name() + ": the " + std::to_string(app.crossing_pairs) +
                 " crossed triangle pairs it took over are cleared; nothing crosses since frame " +
                 std::to_string(st.frame) + ".",
             false);
  app.crossing_notice.clear();
}

void simulate(App& app) {
  if (!app.playing && !app.step_once) return;
  app.step_once = false;
  app.world->step();
  follow_crossing_notice(app);
  app.history.push(app.world->stats());
  if (app.track_steps) record_step(app);
}

void draw_frame(App& app) {
  int fw, fh;
  glfwGetFramebufferSize(app.window, &fw, &fh);
  app.renderer->publish(*app.world);
  app.renderer->draw(*app.world, app.camera, fw, fh, app.view);
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
  draw_panels(app);
  ImGui::Render();
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  if (!app.screenshot_pending.empty()) {
    std::string err = render::save_screenshot(app.screenshot_pending, fw, fh);
    app.notify(err.empty() ? "saved " + app.screenshot_pending : err, !err.empty());
    app.screenshot_pending.clear();
  }
}

bool last_frame(const App& app) { return app.opt.frames > 0 && app.frame + 1 >= app.opt.frames; }

void run_frames(App& app) {
  while (!glfwWindowShouldClose(app.window)) {
    glfwPollEvents();
    apply_events(app);
    simulate(app);
    if (last_frame(app) && !app.opt.screenshot.empty()) app.screenshot_pending = app.opt.screenshot;
    draw_frame(app);
    glfwSwapBuffers(app.window);
    bool done = last_frame(app) && app.opt.exit_after;
    app.frame++;
    if (done) break;
  }
}

std::string glfw_error;
void on_glfw_error(int, const char* text) { glfw_error = text ? text : "?"; }

GLFWwindow* open_window(int width, int height, bool hidden_swap) {
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 1);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_SAMPLES, 4);
  GLFWwindow* w = glfwCreateWindow(width, height, "clothbox", nullptr, nullptr);
  if (!w) return nullptr;
  glfwMakeContextCurrent(w);
  glfwSwapInterval(hidden_swap ? 0 : 1);
  return w;
}

int setup_and_run(App& app) {
  GuiOptions& opt = app.opt;
  if (!opt.replay.empty()) app.replayer.load(opt.replay);
  int width = opt.width, height = opt.height;
  if (app.replayer.width() > 0 && !opt.size_given) {
    width = app.replayer.width();
    height = app.replayer.height();
  }
  app.window = open_window(width, height, opt.exit_after);
  if (!app.window) {
    std::fprintf(stderr, "clothbox: cannot create an OpenGL 4.1 core window (%s).\n%s", glfw_error.c_str(),
                 "For headless runs use clothbox-cli (clothbox-cli run --scene FILE ...).\n");
    return kExitNoDisplay;
  }
  if (!gladLoadGL(glfwGetProcAddress)) {
    std::fprintf(stderr, "clothbox: cannot load OpenGL functions\n");
    return kExitNoDisplay;
  }
  glfwSetWindowUserPointer(app.window, &app);
  glfwSetMouseButtonCallback(app.window, on_button);
  glfwSetCursorPosCallback(app.window, on_cursor);
  glfwSetScrollCallback(app.window, on_scroll);
  glfwSetKeyCallback(app.window, on_key);
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini beside the user's files
  ImGui::StyleColorsDark();
  ImGui_ImplGlfw_InitForOpenGL(app.window, true);
  ImGui_ImplOpenGL3_Init("#version 410 core");
  app.renderer = std::make_unique<render::Renderer>();
  app.renderer->init();
  if (!opt.texture.empty()) {
    std::string err = app.renderer->load_texture_file(opt.texture);
    if (!err.empty()) std::fprintf(stderr, "clothbox: %s\n", err.c_str());
    else app.view.texture = true;
  }
  std::string err = load_world(app, opt.scene, opt.solver);
  if (!err.empty()) {
    std::fprintf(stderr, "clothbox: %s\n", err.c_str());
    return 2;
  }
  app.scene_field = app.scene_path;
  if (!opt.record.empty()) app.recorder.start(opt.record, width, height, opt.scene);
  app.track_steps = !opt.dump_state.empty();
  app.show_ui = !opt.hide_ui;
  run_frames(app);
  int status = 0;
  if (!opt.dump_state.empty()) {
    std::string derr = write_state_dump(app, opt.dump_state);
    if (!derr.empty()) std::fprintf(stderr, "clothbox: %s\n", derr.c_str()), status = 1;
  }
  std::string rerr = app.recorder.save();
  if (!rerr.empty()) std::fprintf(stderr, "clothbox: %s\n", rerr.c_str()), status = 1;
  return status;
}

}  // namespace

int run_app(const GuiOptions& opt) {
  glfwSetErrorCallback(on_glfw_error);
  if (!glfwInit()) {
    std::fprintf(stderr,
                 "clothbox: no display (%s).\n"
                 "The window needs an X11 display. For headless runs use clothbox-cli:\n"
                 "  clothbox-cli run --scene %s\n"
                 "or run the window on a virtual display: xvfb-run -a clothbox ...\n",
                 glfw_error.c_str(), opt.scene.c_str());
    return kExitNoDisplay;
  }
  int status = 0;
  {
    App app;
    app.opt = opt;
    std::string note;
    try {
      app.ctx = make_context(parse_backend(opt.backend), &note);
      app.backend_note = note;
      if (!note.empty()) std::fprintf(stderr, "clothbox: %s\n", note.c_str());
      status = setup_and_run(app);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "clothbox: error: %s\n", e.what());
      status = 2;
    }
    if (ImGui::GetCurrentContext()) {
      ImGui_ImplOpenGL3_Shutdown();
      ImGui_ImplGlfw_Shutdown();
      ImGui::DestroyContext();
    }
    app.world.reset();
    app.renderer.reset();  // GL objects go before the context
    if (app.window) glfwDestroyWindow(app.window);
  }
  glfwTerminate();
  return status;
}

}  // namespace cb::gui
