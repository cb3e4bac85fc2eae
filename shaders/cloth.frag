#version 410 core
// Two-sided lighting: the front face (counter-clockwise triangles) and the back
// face get their own colour; the normal is flipped for the back so both sides light.
in vec3 v_position;
in vec3 v_normal;
in vec2 v_uv;

uniform vec3 u_eye;
uniform vec3 u_front_color;
uniform vec3 u_back_color;
uniform int u_use_texture;
uniform float u_texture_scale;
uniform sampler2D u_texture;

out vec4 out_color;

void main() {
  vec3 n = normalize(v_normal);
  if (dot(n, n) < 0.5) n = vec3(0.0, 1.0, 0.0);
  vec3 base = gl_FrontFacing ? u_front_color : u_back_color;
  if (!gl_FrontFacing) n = -n;
  if (u_use_texture != 0) base *= texture(u_texture, v_uv * u_texture_scale).rgb;
  vec3 to_eye = normalize(u_eye - v_position);
  // key light above and behind the viewer, a cool fill from the other side, ambient
  vec3 key = normalize(vec3(0.35, 0.9, 0.45));
  vec3 fill = normalize(vec3(-0.6, 0.3, -0.5));
  float diffuse = max(dot(n, key), 0.0) * 0.75 + max(dot(n, fill), 0.0) * 0.25;
  float headlight = max(dot(n, to_eye), 0.0) * 0.2;
  vec3 h = normalize(key + to_eye);
  float spec = pow(max(dot(n, h), 0.0), 48.0) * 0.12;
  vec3 c = base * (0.22 + diffuse + headlight) + vec3(spec);
  out_color = vec4(pow(c, vec3(1.0 / 1.1)), 1.0);
}
