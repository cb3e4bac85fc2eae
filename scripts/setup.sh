#!/usr/bin/env bash
# Installs clothbox's build and test dependencies from Debian's packages.
# Idempotent: packages already present are skipped. The CUDA toolkit is not a
# Debian package here; when /usr/local/cuda/bin/nvcc exists the CUDA backend is
# built, otherwise the CPU backend alone (Thrust headers then come from libthrust-dev).
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config
  libglfw3-dev libglm-dev libimgui-dev libtinyobjloader-dev libstb-dev python3-glad
  nlohmann-json3-dev libgtest-dev libbenchmark-dev libomp-dev
  xvfb xauth libgl1-mesa-dri libegl-dev libgl-dev
)
if [ ! -x /usr/local/cuda/bin/nvcc ]; then packages+=(libthrust-dev); fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all packages present"
fi
