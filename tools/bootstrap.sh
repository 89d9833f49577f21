#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine:
#   tools/bootstrap.sh demo   install what is missing, build kopt alone, run `kopt demo`
#   tools/bootstrap.sh test   install what is missing (incl. the npm test clients), build, run every test
#   tools/bootstrap.sh build  install the build dependencies and build only
# It installs only what is missing, so a second run costs a build check and nothing else.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mode=${1:-demo}
build_dir=${KOPT_BUILD_DIR:-$root/build}
jobs=$(nproc 2>/dev/null || echo 2)

log() { printf '\033[1mbootstrap:\033[0m %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else log "need root to run: $*  (re-run as root or install sudo)"; exit 1
  fi
}

apt_updated=0
install_missing() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing: ${missing[*]}"
  if [ $apt_updated -eq 0 ]; then as_root apt-get update -qq; apt_updated=1; fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

build_deps=(ca-certificates cmake ninja-build g++ pkg-config git
            libcpp-httplib-dev libssl-dev nlohmann-json3-dev libyaml-cpp-dev libboost-dev libboost-filesystem-dev
            doctest-dev python3)
# python3-torch: the Python quick harness's tests (tests/e2e/*quick_harness*, the timer attacks of
# tests/exploits) run it on torch's CPU device; without torch they skip.
# clang and its runtime libraries (libFuzzer, ASan, UBSan; only recommended by clang): the fuzz
# targets (tests/fuzz, ctest fuzz.short).
test_deps=(librsvg2-bin procps slurm-wlm munge dpkg-dev python3-torch clang libclang-rt-14-dev)

install_node_clients() {
  if ! command -v npm >/dev/null; then install_missing nodejs npm; fi
  log "installing the pinned MCP test clients (npm ci in tests/e2e)"
  # npm ci refuses this lock file because vite (pulled in by the Inspector) names a Windows-only
  # optional dependency that the registry cannot resolve, so the lock can never list it. npm install
  # with --no-save installs exactly the versions the committed lock pins and leaves it unchanged.
  (cd "$root/tests/e2e" &&
     { npm ci --no-audit --no-fund --loglevel=error >/dev/null 2>&1 ||
       npm install --no-save --no-audit --no-fund --loglevel=error >/dev/null; })
}

# build [TARGET...]: everything, or only the named targets (and what they need).
build() {
  install_missing "${build_deps[@]}"
  # A kopt binary needs git identity only to commit accepted rounds; the campaign sets its own
  # fallback committer, so nothing to configure here.
  cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  local started=$SECONDS
  if [ $# -gt 0 ]; then
    log "building $* (ninja prints [done/total] per step)"
    cmake --build "$build_dir" -j"$jobs" --target "$@"
  else
    log "building everything, tests included (ninja prints [done/total] per step)"
    cmake --build "$build_dir" -j"$jobs"
  fi
  log "built in $((SECONDS - started)) s"
}

case "$mode" in
  build)
    build ;;
  demo)
    # The demo needs the kopt binary only: it builds the CPU kernel itself, in the campaign's
    # own copy of it, with the kernel's build.sh.
    build kopt
    exec "$build_dir/kopt" demo ;;
  test)
    install_missing "${build_deps[@]}" "${test_deps[@]}"
    install_node_clients
    build
    cd "$build_dir"
    exec ctest --output-on-failure --timeout 900 -j"${KOPT_TEST_JOBS:-2}" ;;
  *)
    echo "usage: tools/bootstrap.sh demo|test|build" >&2; exit 2 ;;
esac
