#!/usr/bin/env bash
# scripts/setup.sh -- install what Tessera needs on a fresh Debian/Ubuntu machine.
# Idempotent: installs only what is missing.  Needs root (or sudo) when it installs.
set -euo pipefail

export PATH="/usr/local/cuda/bin:${PATH}"
if ! command -v nvcc >/dev/null 2>&1; then
  echo "setup: nvcc not found: building without CUDA (the layout algebra, analysis, the host \`tessera\`" >&2
  echo "setup: command and their tests).  Kernels, benchmarks and GPU tests need the CUDA toolkit 12.4+" >&2
  echo "setup: (13.x tested) at /usr/local/cuda." >&2
fi

need=()
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v ninja >/dev/null 2>&1 || need+=(ninja-build)
command -v g++   >/dev/null 2>&1 || need+=(g++)
[ -f /usr/include/gtest/gtest.h ] || need+=(libgtest-dev)
[ -f /usr/include/gmock/gmock.h ] || need+=(libgmock-dev)
# The Python package (scripts/test.sh builds it with `pip install .` in a virtual environment):
# python3 with venv/ensurepip and the headers of the interpreter.
command -v python3 >/dev/null 2>&1 || need+=(python3)
if command -v python3 >/dev/null 2>&1; then
  python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need+=(python3-venv)
  python3 -c 'import os, sysconfig; raise SystemExit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
    || need+=(python3-dev)
else
  need+=(python3-venv python3-dev)
fi
if [ "${#need[@]}" -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}"
fi
