#version 410 core
// Cloth and obstacle surfaces: world-space positions and normals.
layout(location = 0) in vec3 in_position;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;

uniform mat4 u_view_proj;
uniform mat4 u_model;   // identity for the cloth

out vec3 v_position;
out vec3 v_normal;
out vec2 v_uv;

void main() {
  vec4 p = u_model * vec4(in_position, 1.0);
  v_position = p.xyz;
  v_normal = mat3(u_model) * in_normal;
  v_uv = in_uv;
  gl_Position = u_view_proj * p;
}
