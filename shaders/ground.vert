#version 410 core
// Plane obstacles: a large square in the plane's local xz, shaded with a grid.
layout(location = 0) in vec3 in_position;
uniform mat4 u_view_proj;
uniform mat4 u_model;
out vec3 v_local;
out vec3 v_world;
void main() {
  v_local = in_position;
  vec4 p = u_model * vec4(in_position, 1.0);
  v_world = p.xyz;
  gl_Position = u_view_proj * p;
}
