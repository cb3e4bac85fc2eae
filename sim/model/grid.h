// Rectangular cloth generators (Zheng 2021 thesis, Figs. 14-17).
//  Quad layout: a regular nx x ny lattice, each quad split into two triangles.
//  Equilateral layout: rows of nx vertices, odd rows shifted by half a spacing and
//  rows sqrt(3)/2 spacings apart, so every triangle is equilateral.
#pragma once

#include <string>

#include "sim/model/tri_mesh.h"

namespace cb {

enum class GridLayout { None, Quad, Equilateral };

/// Parses "quad" | "equilateral"; throws cb::Error otherwise.
GridLayout parse_grid_layout(const std::string& word);
const char* grid_layout_name(GridLayout l);

struct GridSpec {
  GridLayout layout = GridLayout::Quad;
  int nx = 32;          ///< vertices along the width (u)
  int ny = 32;          ///< vertices along the height (v)
  float width = 1.f;    ///< m, along local x
  float height = 1.f;   ///< m, along local y (equilateral: derived from width if <= 0)
  /// Returns "" when valid, else what is wrong (sizes, counts).
  std::string validate() const;
};

/// The grid lies in the local xy plane centred on the origin, normal +z; vertex
/// (i, j) has id j*nx + i. UVs span [0, 1]^2.
TriMesh make_grid(const GridSpec& spec);

/// Spacing of the lattice along x (m).
float grid_spacing(const GridSpec& spec);

}  // namespace cb
