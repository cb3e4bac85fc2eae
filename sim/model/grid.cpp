#include "sim/model/grid.h"

#include <cmath>

#include "sim/core/error.h"

namespace cb {

GridLayout parse_grid_layout(const std::string& word) {
  if (word == "quad") return GridLayout::Quad;
  if (word == "equilateral") return GridLayout::Equilateral;
  throw Error("unknown grid layout '" + word + "' (expected quad or equilateral)");
}

const char* grid_layout_name(GridLayout l) {
  switch (l) {
    case GridLayout::Quad: return "quad";
    case GridLayout::Equilateral: return "equilateral";
    default: return "none";
  }
}

std::string GridSpec::validate() const {
  if (nx < 2 || ny < 2) return "a grid needs at least 2x2 vertices, got " + std::to_string(nx) + "x" + std::to_string(ny);
  if (double(nx) * double(ny) > 64e6) return "grid of " + std::to_string(nx) + "x" + std::to_string(ny) + " vertices is larger than the 64 million vertex limit";
  if (!(width > 0) || !std::isfinite(width)) return "grid width must be a positive number of metres";
  if (layout == GridLayout::Quad && (!(height > 0) || !std::isfinite(height)))
    return "grid height must be a positive number of metres";
  return "";
}

float grid_spacing(const GridSpec& spec) { return spec.width / float(spec.nx - 1); }

TriMesh make_grid(const GridSpec& spec) {
  std::string err = spec.validate();
  if (!err.empty()) throw Error("grid: " + err);
  TriMesh m;
  m.source = std::string("grid ") + grid_layout_name(spec.layout) + " " + std::to_string(spec.nx) + "x" +
             std::to_string(spec.ny);
  const int nx = spec.nx, ny = spec.ny;
  const float dx = grid_spacing(spec);
  const bool equi = spec.layout == GridLayout::Equilateral;
  const float dy = equi ? dx * std::sqrt(3.f) * 0.5f : spec.height / float(ny - 1);
  const float w = spec.width + (equi ? 0.5f * dx : 0.f), h = dy * float(ny - 1);
  m.positions.reserve(size_t(nx) * ny);
  m.uvs.reserve(size_t(nx) * ny);
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      float x = float(i) * dx + (equi && (j & 1) ? 0.5f * dx : 0.f);
      float y = float(j) * dy;
      m.positions.push_back({x - 0.5f * w, y - 0.5f * h, 0.f});
      m.uvs.push_back({x / w, y / h});
    }
  auto id = [nx](int i, int j) { return j * nx + i; };
  m.tris.reserve(size_t(nx - 1) * (ny - 1) * 2);
  for (int j = 0; j + 1 < ny; ++j)
    for (int i = 0; i + 1 < nx; ++i) {
      int a = id(i, j), b = id(i + 1, j), c = id(i, j + 1), d = id(i + 1, j + 1);
      // equilateral: even rows lie left of the odd rows above them, so the diagonal
      // runs from (i+1, j) to (i, j+1) there; quad: alternate diagonals (no bias)
      bool flip = equi ? (j & 1) == 0 : ((i + j) & 1) != 0;
      if (!flip) {
        m.tris.push_back({a, b, d});
        m.tris.push_back({a, d, c});
      } else {
        m.tris.push_back({a, b, c});
        m.tris.push_back({b, d, c});
      }
    }
  return m;
}

}  // namespace cb
