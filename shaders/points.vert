#version 410 core
// Points drawn as shaded sphere impostors: pin markers, contacts, virtual spheres.
layout(location = 0) in vec3 in_position;
layout(location = 3) in float in_radius;  // m; 0 = use u_pixel_size

uniform mat4 u_view_proj;
uniform float u_viewport_height;  // px
uniform float u_proj_scale;       // projection[1][1]
uniform float u_pixel_size;       // px, for points without a radius
uniform int u_use_radius;

void main() {
  gl_Position = u_view_proj * vec4(in_position, 1.0);
  float size = u_pixel_size;
  if (u_use_radius != 0 && in_radius > 0.0)
    size = 2.0 * in_radius * u_proj_scale * 0.5 * u_viewport_height / max(gl_Position.w, 1e-6);
  gl_PointSize = clamp(size, 1.0, 256.0);
}
