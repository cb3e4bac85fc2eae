// Scene, Simulation, Solver and Collisions panels.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include <imgui.h>
#include <imgui_stdlib.h>

#include "app/gui/panels.h"

namespace cb::gui {

namespace fs = std::filesystem;

void send(App& app, nlohmann::json action) { app.pending.push_back(std::move(action)); }

namespace {

std::vector<std::string> list_scenes() {
  std::vector<std::string> out;
  for (std::string dir : {std::string("scenes"), std::string(CLOTHBOX_SOURCE_DIR) + "/scenes"}) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::recursive_directory_iterator(); ++it)
      if (it->path().extension() == ".json") out.push_back(it->path().string());
    break;
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string value_text(const ParamInfo& p, double v) {
  char buf[64];
  switch (p.kind) {
    case ParamKind::Bool: return v != 0 ? "true" : "false";
    case ParamKind::Choice: return p.choices.empty() ? "0" : p.choices[size_t(std::clamp(int(v), 0, int(p.choices.size()) - 1))];
    case ParamKind::Int: std::snprintf(buf, sizeof buf, "%lld", (long long)v); return buf;
    case ParamKind::Float: std::snprintf(buf, sizeof buf, "%.9g", v); return buf;
  }
  return "";
}

// one widget per parameter; true (and *out) when the user changed it
bool param_widget(const ParamInfo& p, double* out) {
  bool changed = false;
  const char* label = p.name.c_str();
  if (p.kind == ParamKind::Float) {
    float v = float(p.value);
    bool slider = std::isfinite(p.max - p.min) && p.max - p.min <= 1e7 && !(p.log_scale && p.min <= 0);
    ImGuiSliderFlags flags = p.log_scale ? ImGuiSliderFlags_Logarithmic : 0;
    changed = slider ? ImGui::SliderFloat(label, &v, float(p.min), float(p.max), "%.4g", flags)
                     : ImGui::InputFloat(label, &v, 0.f, 0.f, "%.4g", ImGuiInputTextFlags_EnterReturnsTrue);
    *out = v;
  } else if (p.kind == ParamKind::Int) {
    int v = int(p.value);
    changed = p.max - p.min <= 1000 ? ImGui::SliderInt(label, &v, int(p.min), int(p.max))
                                    : ImGui::InputInt(label, &v, 1, 10, ImGuiInputTextFlags_EnterReturnsTrue);
    *out = v;
  } else if (p.kind == ParamKind::Bool) {
    bool v = p.value != 0;
    changed = ImGui::Checkbox(label, &v);
    *out = v ? 1 : 0;
  } else {
    int v = int(p.value);
    std::vector<const char*> names;
    for (const std::string& c : p.choices) names.push_back(c.c_str());
    changed = ImGui::Combo(label, &v, names.data(), int(names.size()));
    *out = v;
  }
  if (ImGui::IsItemHovered() && !(p.help.empty() && p.unit.empty()))
    ImGui::SetTooltip("%s%s%s", p.help.c_str(), p.unit.empty() ? "" : "  unit: ", p.unit.c_str());
  return changed;
}

// the panel's parameters (the collision ones or the others), each section
// (ParamInfo::group) under a collapsible node, the first one open
void param_widgets(App& app, bool collision) {
  if (!app.world->solver()) return;
  ParamTable t = app.world->solver()->params();
  int shown = 0;
  std::string group;
  bool open = true, in_node = false, first_node = true;
  for (const ParamInfo& p : t.entries()) {
    if (is_collision_param(p.name) != collision) continue;
    ++shown;
    if (p.group != group) {
      if (in_node) ImGui::TreePop();
      group = p.group;
      open = true;
      in_node = false;
      if (!group.empty()) {
        open = in_node = ImGui::TreeNodeEx(group.c_str(), first_node ? ImGuiTreeNodeFlags_DefaultOpen : 0);
        first_node = false;
      }
    }
    double v = 0;
    if (open && param_widget(p, &v))
      send(app, {{"type", "set_param"}, {"name", p.name}, {"value", value_text(p, v)}});
  }
  if (in_node) ImGui::TreePop();
  if (shown == 0) ImGui::TextDisabled(collision ? "(this solver has no collision parameters)" : "(no parameters)");
}

}  // namespace

float label_column_width(const App& app) {
  float w = ImGui::CalcTextSize("brush radius px").x;
  if (!app.world || !app.world->solver()) return w + ImGui::GetStyle().ItemInnerSpacing.x;
  const ParamTable t = app.world->solver()->params();  // held: entries() refers into it
  for (const ParamInfo& p : t.entries()) w = std::max(w, ImGui::CalcTextSize(p.name.c_str()).x);
  return w + ImGui::GetStyle().ItemInnerSpacing.x;
}

bool is_collision_param(const std::string& name) {
  for (const char* k : {"collision", "thickness", "detector", "contact", "friction", "proximity", "ccd", "hash",
                        "sphere", "repulsion", "impact", "marble"})
    if (name.find(k) != std::string::npos) return true;
  return false;
}

// the loaded scene's warnings (unknown keys, suspect meshes, a start that
// already intersects), under its title where they are seen before play
static void draw_scene_warnings(const App& app) {
  const std::vector<std::string>& warnings = app.world->warnings();
  if (warnings.empty()) return;
  const std::string label = std::to_string(warnings.size()) + (warnings.size() == 1 ? " warning" : " warnings");
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.f, 0.75f, 0.3f, 1.f));
  if (ImGui::TreeNodeEx(label.c_str(), ImGuiTreeNodeFlags_DefaultOpen)) {
    for (const std::string& w : warnings) ImGui::TextWrapped("%s", w.c_str());
    ImGui::TreePop();
  }
  ImGui::PopStyleColor();
}

void draw_scene_panel(App& app) {
  if (!ImGui::CollapsingHeader("Scene", ImGuiTreeNodeFlags_DefaultOpen)) return;
  ImGui::TextWrapped("%s", app.world->scene().title.empty() ? app.scene_path.c_str() : app.world->scene().title.c_str());
  draw_scene_warnings(app);
  std::vector<std::string> scenes = list_scenes();
  if (ImGui::BeginCombo("scenes", "choose...")) {
    for (const std::string& s : scenes)
      if (ImGui::Selectable(s.c_str())) send(app, {{"type", "load_scene"}, {"path", s}});
    ImGui::EndCombo();
  }
  ImGui::InputText("path", &app.scene_field);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("a scene JSON, or a bare .obj dropped as a cloth over the ground");
  ImGui::SameLine();
  if (ImGui::Button("Load")) send(app, {{"type", "load_scene"}, {"path", app.scene_field}});
  if (ImGui::Button("Reload")) send(app, {{"type", "reload"}});
  ImGui::SameLine();
  if (ImGui::Button("Reset (R)")) send(app, {{"type", "reset"}});
  ImGui::SameLine();
  if (ImGui::Button("Clear pins (C)")) send(app, {{"type", "clear_pins"}});
  bool pin_mode = app.input.pin_mode;
  if (ImGui::Checkbox("pin mode (P)", &pin_mode)) send(app, {{"type", "pin_mode"}, {"on", pin_mode}});
  float r = app.input.brush_radius;
  if (ImGui::SliderFloat("brush radius px", &r, 4.f, 200.f, "%.0f")) send(app, {{"type", "brush_radius"}, {"value", r}});
}

void draw_simulation_panel(App& app) {
  if (!ImGui::CollapsingHeader("Simulation", ImGuiTreeNodeFlags_DefaultOpen)) return;
  World& w = *app.world;
  if (ImGui::Button(app.playing ? "Pause (Space)" : "Play (Space)")) send(app, {{"type", "play"}, {"on", !app.playing}});
  ImGui::SameLine();
  if (ImGui::Button("Step (N)")) send(app, {{"type", "step"}});
  ImGui::SameLine();
  ImGui::Text("t = %.2f s, frame %d", w.time(), w.frame());
  float dt_ms = w.settings().dt * 1000.f;
  if (ImGui::SliderFloat("dt (ms)", &dt_ms, 0.1f, 100.f, "%.2f", ImGuiSliderFlags_Logarithmic))
    send(app, {{"type", "set_dt"}, {"value", dt_ms / 1000.f}});
  int sub = w.settings().substeps;
  if (ImGui::SliderInt("substeps", &sub, 1, 200)) send(app, {{"type", "set_substeps"}, {"value", sub}});
  const auto& reg = solver_registry();
  if (reg.empty()) {
    ImGui::TextColored(ImVec4(1.f, 0.7f, 0.3f, 1.f), "no solver registered: the cloth stays static");
  } else {
    std::string current = w.solver_name();
    if (ImGui::BeginCombo("solver", current.empty() ? "(none)" : current.c_str())) {
      for (const SolverEntry& e : reg)
        if (ImGui::Selectable((std::string(e.name) + " - " + e.title).c_str(), current == e.name) &&
            current != e.name)  // picking the running solver again does not restart it
          send(app, {{"type", "set_solver"}, {"name", e.name}});
      ImGui::EndCombo();
    }
  }
  ImGui::Text("backend: %s", backend_name(app.ctx.backend));
  if (!app.backend_note.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", app.backend_note.c_str());
}

void draw_solver_panel(App& app) {
  if (!ImGui::CollapsingHeader("Solver", ImGuiTreeNodeFlags_DefaultOpen)) return;
  if (!app.world->solver()) {
    ImGui::TextDisabled("no solver active");
    return;
  }
  const SolverEntry* e = find_solver(app.world->solver_name());
  if (e) ImGui::TextWrapped("%s", e->title);
  param_widgets(app, false);
  if (!app.solver_message.empty()) ImGui::TextColored(ImVec4(1.f, 0.4f, 0.35f, 1.f), "refused: %s", app.solver_message.c_str());
}

void draw_collision_panel(App& app) {
  if (!ImGui::CollapsingHeader("Collisions")) return;
  bool self = app.world->settings().self_collision;
  if (ImGui::Checkbox("self-collision", &self)) send(app, {{"type", "self_collision"}, {"on", self}});
  param_widgets(app, true);
}

}  // namespace cb::gui
