// Stats, View and Help panels, and the overlay on the 3D view.
#include <algorithm>
#include <cstdio>

#include <imgui.h>

#include "app/gui/panels.h"
#include "render/cloth_mesh.h"

namespace cb::gui {

namespace {

const ImU32 kStageColors[] = {IM_COL32(240, 120, 60, 255), IM_COL32(90, 170, 250, 255), IM_COL32(120, 220, 110, 255),
                              IM_COL32(230, 200, 70, 255), IM_COL32(200, 110, 230, 255), IM_COL32(90, 220, 210, 255),
                              IM_COL32(250, 120, 160, 255), IM_COL32(180, 180, 180, 255)};

// step time split by stage: one line per stage over the last frames. The
// scale is the largest value of any line: the intersection check runs after the
// step (World::finish_stats), outside the white line, and can exceed it (a
// process descheduled during the check drew its line far above the plot, over
// the Solver panel); the lines are clipped to the plot all the same.
void stage_plot(const StatsHistory& h) {
  ImVec2 size(ImGui::GetContentRegionAvail().x, 110.f);
  ImVec2 p0 = ImGui::GetCursorScreenPos();
  const ImVec2 p1(p0.x + size.x, p0.y + size.y);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(p0, p1, IM_COL32(25, 25, 28, 255));
  float top = 0.1f;
  for (float v : h.step_ms) top = std::max(top, v);
  for (const std::vector<float>& s : h.samples)
    for (float v : s) top = std::max(top, v);
  const size_t n = h.step_ms.size();
  auto line = [&](const std::vector<float>& s, ImU32 col) {
    for (size_t i = 1; i < s.size(); ++i) {
      float x0 = p0.x + size.x * float(i - 1) / float(h.capacity - 1), x1 = p0.x + size.x * float(i) / float(h.capacity - 1);
      dl->AddLine(ImVec2(x0, p0.y + size.y * (1.f - s[i - 1] / top)), ImVec2(x1, p0.y + size.y * (1.f - s[i] / top)), col);
    }
  };
  dl->PushClipRect(p0, p1, true);
  line(h.step_ms, IM_COL32(255, 255, 255, 200));
  for (size_t k = 0; k < h.samples.size(); ++k) line(h.samples[k], kStageColors[k % 8]);
  dl->PopClipRect();
  ImGui::Dummy(size);
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("max %.2f ms over %zu frames; white = the step (the intersection check is after it)", top, n);
  ImGui::PopStyleColor();
  for (size_t k = 0; k < h.stages.size(); ++k) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kStageColors[k % 8]), "%-18s %7.3f ms", h.stages[k].c_str(),
                       h.samples[k].empty() ? 0.f : h.samples[k].back());
  }
}

}  // namespace

void StatsHistory::push(const FrameStats& s) {
  for (const auto& st : s.stages)
    if (std::find(stages.begin(), stages.end(), st.first) == stages.end()) {
      stages.push_back(st.first);
      samples.emplace_back(step_ms.size(), 0.f);
    }
  step_ms.push_back(float(s.step_ms));
  for (size_t k = 0; k < stages.size(); ++k) {
    float v = 0;
    for (const auto& st : s.stages)
      if (st.first == stages[k]) v = float(st.second);
    samples[k].push_back(v);
  }
  if (step_ms.size() > capacity) {
    step_ms.erase(step_ms.begin());
    for (auto& v : samples) v.erase(v.begin());
  }
}

void StatsHistory::clear() {
  stages.clear();
  samples.clear();
  step_ms.clear();
}

void draw_stats_panel(App& app) {
  if (!ImGui::CollapsingHeader("Stats", ImGuiTreeNodeFlags_DefaultOpen)) return;
  const World& w = *app.world;
  const FrameStats& s = w.stats();
  ImGui::Text("%.1f fps, step %.2f ms", ImGui::GetIO().Framerate, s.step_ms);
  ImGui::Text("%zu vertices, %zu triangles, %zu edges", w.model().num_vertices(), w.model().num_tris(), w.model().num_edges());
  ImGui::Text("strain %.3f .. %.3f%s", s.min_strain, s.max_strain, s.has_nan ? "   NaN!" : "");
  size_t used = 0, total = 0;
  device_memory(w.context(), &used, &total);
  if (total) ImGui::Text("GPU memory %.0f / %.0f MiB", used / 1048576.0, total / 1048576.0);
  ImGui::Text("world+solver buffers %.2f MiB", s.device_bytes / 1048576.0);
  ImGui::TextWrapped("draw path: %s", render::publish_path_name(app.renderer->path()));
  if (!app.renderer->interop_note().empty()) ImGui::TextWrapped("interop: %s", app.renderer->interop_note().c_str());
  for (const auto& c : s.counters) ImGui::Text("%-22s %g", c.first.c_str(), c.second);
  stage_plot(app.history);
}

void draw_view_panel(App& app) {
  if (!ImGui::CollapsingHeader("View")) return;
  int mode = int(app.view.surface);
  const char* modes[] = {"shaded", "wireframe", "shaded + wireframe"};
  if (ImGui::Combo("surface (W)", &mode, modes, 3)) send(app, {{"type", "surface"}, {"mode", mode}});
  bool tex = app.view.texture;
  if (ImGui::Checkbox("texture", &tex)) send(app, {{"type", "texture"}, {"on", tex}});
  bool ov = app.view.debug_overlays;
  if (ImGui::Checkbox("debug overlays (solver contacts, spheres)", &ov)) send(app, {{"type", "overlays"}, {"on", ov}});
  bool crossed = app.view.intersections;
  if (ImGui::Checkbox("intersecting triangles (magenta)", &crossed)) send(app, {{"type", "intersections"}, {"on", crossed}});
  ImGui::Checkbox("obstacles", &app.view.obstacles);
  ImGui::SameLine();
  ImGui::Checkbox("ground", &app.view.ground);
  ImGui::SameLine();
  ImGui::Checkbox("pins", &app.view.pins);
  ImGui::ColorEdit3("front", &app.view.front_color.x, ImGuiColorEditFlags_NoInputs);
  ImGui::SameLine();
  ImGui::ColorEdit3("back", &app.view.back_color.x, ImGuiColorEditFlags_NoInputs);
  if (ImGui::Button("Frame all (F)")) send(app, {{"type", "frame_all"}});
}

void draw_help_panel(App& app) {
  if (!app.show_help) return;
  ImGui::SetNextWindowPos(ImVec2(380, 20), ImGuiCond_FirstUseEver);
  ImGui::Begin("Help", &app.show_help, ImGuiWindowFlags_AlwaysAutoResize);
  ImGui::TextUnformatted(
      "Camera\n"
      "  right-drag            orbit (also left-drag on empty space)\n"
      "  middle-drag           pan (also shift + right-drag)\n"
      "  wheel                 zoom\n"
      "  F                     frame everything\n"
      "Cloth\n"
      "  left-drag on cloth    grab the point under the cursor\n"
      "  left-drag on a pin    move the pin\n"
      "  ctrl + click          pin / unpin the nearest vertex\n"
      "  P                     pin mode: click pins / unpins\n"
      "  shift + drag          brush: pin every vertex under the circle\n"
      "  ctrl + shift + drag   brush: unpin\n"
      "  C                     clear pins (back to the scene's)\n"
      "Simulation\n"
      "  Space play/pause   N step   R reset   W wireframe modes\n"
      "  Tab hide panels    H this help");
  ImGui::End();
}

void draw_view_overlay(App& app) {
  ImDrawList* dl = ImGui::GetForegroundDrawList();
  bool brush = app.input.mode == DragMode::Brush || ImGui::GetIO().KeyShift;
  if (brush && app.input.hover_x >= 0 && !ImGui::GetIO().WantCaptureMouse)
    dl->AddCircle(ImVec2(app.input.hover_x, app.input.hover_y), app.input.brush_radius, IM_COL32(255, 80, 90, 200), 48, 1.5f);
  if (app.world && solver_registry().empty())
    dl->AddText(ImVec2(12, ImGui::GetIO().DisplaySize.y - 24), IM_COL32(255, 190, 90, 255),
                "no solver registered: the cloth stays static");
  if (app.input.pin_mode)
    dl->AddText(ImVec2(12, ImGui::GetIO().DisplaySize.y - 44), IM_COL32(255, 110, 110, 255), "PIN MODE (P to leave)");
}

void draw_panels(App& app) {
  draw_view_overlay(app);
  if (!app.show_ui) return;
  ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(420, 0), ImGuiCond_FirstUseEver);
  ImGui::Begin("clothbox");
  ImGui::PushItemWidth(-label_column_width(app));  // widgets take what the labels leave
  // the last notice first, where it is seen without scrolling past the stats;
  // wrapped: an error names a file, a JSON path and the problem
  if (!app.message.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text,
                          app.message_is_error ? ImVec4(1.f, 0.4f, 0.35f, 1.f) : ImVec4(0.6f, 0.8f, 0.6f, 1.f));
    ImGui::TextWrapped("%s", app.message.c_str());
    ImGui::PopStyleColor();
  }
  draw_scene_panel(app);
  draw_simulation_panel(app);
  draw_solver_panel(app);
  draw_collision_panel(app);
  draw_view_panel(app);
  draw_stats_panel(app);
  if (ImGui::Button("Help (H)")) app.show_help = !app.show_help;
  ImGui::PopItemWidth();
  ImGui::End();
  draw_help_panel(app);
}

}  // namespace cb::gui
