#!/usr/bin/env bash
# Installs the Debian packages stepflow builds against, only those missing.
# Idempotent; needs root (or sudo) the first time. Everything else the build
# needs lives in this repository (see third_party/).
set -euo pipefail

PACKAGES=(
  bazel-bootstrap          # Bazel 4.2.3, works offline with third_party/ shims
  g++ clang-14 libfuzzer-14-dev libclang-rt-14-dev
  clang-format-14           # the format test (tools/format)
  libabsl-dev
  libprotobuf-dev protobuf-compiler
  libgrpc++-dev protobuf-compiler-grpc
  libgtest-dev libgmock-dev
  libbenchmark-dev
  libtbb-dev                # oneTBB flow graph: executor benchmark peer
  libeigen3-dev
  libleveldb-dev            # table format of checkpoint .index files
  libre2-dev                # the Regex ops' engine
  libfarmhash-dev           # Fingerprint64 (StringToHashBucketFast)
  libicu-dev                # Unicode case mapping (StringLower/StringUpper)
  libopenblas-dev           # GEMM for the MatMul kernels (runtime CPU dispatch)
  librapidcheck-dev
  chromium python3          # timeline screenshots (tools/timeline_viewer)
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install_deps: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
