#version 410 core
uniform vec4 u_color;
out vec4 out_color;
void main() {
  vec2 d = gl_PointCoord * 2.0 - 1.0;
  float r2 = dot(d, d);
  if (r2 > 1.0) discard;
  float z = sqrt(1.0 - r2);
  float shade = 0.45 + 0.55 * max(dot(normalize(vec3(d.x, -d.y, z)), normalize(vec3(0.3, 0.6, 0.8))), 0.0);
  out_color = vec4(u_color.rgb * shade, u_color.a);
}
