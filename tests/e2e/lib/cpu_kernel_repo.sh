# make_cpu_kernel_repo DIR: a fresh git repository at DIR holding a copy of kopt's bundled CPU GEMM
# (kernels/cpu) with build/ ignored, the way a user's kernel repository looks to kopt. Source it.
make_cpu_kernel_repo() {
  mkdir -p "$1"
  local f
  for f in gemm.cpp gemm.h gemm_config.h bench.cpp bench_util.h build.sh CMakeLists.txt README.md; do
    cp "$KOPT_SOURCE_DIR/kernels/cpu/$f" "$1/"
  done
  printf 'build/\n' >"$1/.gitignore"
  git -C "$1" init -q -b main && git -C "$1" add -A &&
    git -C "$1" -c user.name=e2e -c user.email=e2e@example.com commit -q -m "CPU GEMM"
}
