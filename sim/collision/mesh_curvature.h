// How sharply a triangle-mesh obstacle bends away at each of its triangles, seen
// from either side: over the triangle's edges, the angle between its face normal
// and its neighbour's across the edge divided by the distance between their
// centroids (1/m; a discrete normal curvature across the edge), the largest of
// the edges where the neighbour turns away from that side (its centroid behind
// the triangle's plane, seen from there). On a UV sphere of radius R it is
// close to 1/R outside and 0 inside; on a flat mesh 0; across a sharp crease it
// grows as the triangles shrink (edge_clearance.h caps what it asks of it).
// Only a surface that turns away lets a straight cloth edge between two points
// outside it dip in; inside a crease (between the legs, an armpit) the edge
// stays out, and a larger clearance there would only squeeze the cloth.
//
// Used for the clearance that keeps a cloth's edges, not only its vertices,
// outside a curved body (sim/model/edge_clearance.h).
#pragma once


#include "sim/core/backend.h"
#include "sim/core/hd.h"
#include "sim/core/math.h"
#include "sim/model/topology.h"  // triangle_neighbours

namespace cb {

/// How sharply the mesh bends away at a triangle (1/m): seen from the side its
/// face normal (b - a) x (c - a) points to, and from the other.
struct TriangleBend {
  float front = 0.f, back = 0.f;
  /// seen from the side of `normal`, a unit vector (the face normal either way)
  CB_HD float seen_along(Vec3f normal, Vec3f face_normal) const { return dot(normal, face_normal) >= 0.f ? front : back; }
};

/// out[t] (backend memory) for the n triangles `tris` with neighbours
/// `nbrs` (triangle_neighbours, topology.h) at positions x (backend memory). A triangle of
/// no area, or whose neighbour has none, takes 0 from that edge. The angle
/// between the normals is taken below 90 degrees (either winding of the
/// neighbour gives the same).
void triangle_curvature(const Context& ctx, const Vec3f* x, const Int3* tris, const Int3* nbrs, int n,
                        TriangleBend* out);

}  // namespace cb
