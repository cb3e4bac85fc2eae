#version 410 core
// Anti-aliased grid lines every u_cell metres, stronger every 10 cells,
// fading with distance from the viewer.
in vec3 v_local;
in vec3 v_world;
uniform vec3 u_eye;
uniform float u_cell;
uniform vec3 u_color;
out vec4 out_color;

float grid_line(vec2 p, float cell) {
  vec2 q = p / cell;
  vec2 w = fwidth(q);
  vec2 l = abs(fract(q - 0.5) - 0.5) / max(w, vec2(1e-6));
  return 1.0 - min(min(l.x, l.y), 1.0);
}

void main() {
  float minor = grid_line(v_local.xz, u_cell);
  float major = grid_line(v_local.xz, u_cell * 10.0);
  float fade = exp(-0.04 * length(v_world - u_eye));
  vec3 c = u_color;
  c = mix(c, vec3(0.48), minor * 0.45 * fade);
  c = mix(c, vec3(0.62), major * 0.7 * fade);
  out_color = vec4(c, 1.0);
}
