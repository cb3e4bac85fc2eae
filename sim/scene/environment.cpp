#include "sim/scene/environment.h"

namespace cb {

std::string Environment::validate() const {
  if (!is_finite(gravity)) return "gravity must be three finite numbers (m/s^2)";
  if (!is_finite(wind.velocity)) return "wind velocity must be three finite numbers (m/s)";
  if (!(wind.gust >= 0) || !(wind.gust <= 100)) return "wind gust must be in [0, 100]";
  if (!(wind.frequency >= 0) || !(wind.frequency < 1e3f)) return "wind frequency must be in [0, 1000) Hz";
  if (!(wind.wavelength > 0) || !(wind.wavelength < 1e6f)) return "wind wavelength must be a positive length (m)";
  if (!(air_drag >= 0) || !(air_drag < 1e6f)) return "air_drag must be >= 0";
  return "";
}

}  // namespace cb
