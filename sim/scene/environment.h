// Forces from the world: gravity, wind and air drag.
#pragma once

#include <string>

#include "sim/core/hd.h"
#include "sim/core/math.h"

namespace cb {

/// Wind as a travelling wave (Zheng 2021): the air velocity at point p and time t is
/// velocity * (1 + gust * sin(2 pi (frequency t - dot(direction, p) / wavelength))).
struct Wind {
  Vec3f velocity{0, 0, 0};  ///< m/s, mean air velocity
  float gust = 0.f;         ///< relative amplitude of the wave, >= 0
  float frequency = 0.5f;   ///< Hz
  float wavelength = 2.f;   ///< m
};

struct Environment {
  Vec3f gravity{0, -9.81f, 0};  ///< m/s^2
  Wind wind;
  float air_drag = 0.f;  ///< kg/m^2 per (m/s): quadratic drag force = -air_drag * area * |v_rel| v_rel
  std::string validate() const;
};

CB_HD inline Vec3f wind_velocity(const Wind& w, Vec3f p, float t) {
  float speed = length(w.velocity);
  if (speed == 0.f) return w.velocity;
  Vec3f dir = w.velocity / speed;
  float phase = 6.2831853f * (w.frequency * t - dot(dir, p) / w.wavelength);
  return w.velocity * (1.f + w.gust * std::sin(phase));
}

}  // namespace cb
