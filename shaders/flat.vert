#version 410 core
// Lines and wireframes in one colour.
layout(location = 0) in vec3 in_position;
uniform mat4 u_view_proj;
uniform mat4 u_model;
void main() { gl_Position = u_view_proj * u_model * vec4(in_position, 1.0); }
