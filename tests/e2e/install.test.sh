#!/usr/bin/env bash
# Issue 14: `cmake --install` puts kopt and everything it serves under a prefix, and a kopt run from
# there (the source tree out of reach: KOPT_SOURCE_DIR unset) serves its skills as prompts and finds
# the demo's script and kernel under <prefix>/share/kopt. Then cpack makes the .deb with the same
# files and its library dependencies.
source "$(dirname "$0")/lib/common.sh"
: "${KOPT_BINARY_DIR:?ctest sets KOPT_BINARY_DIR (the build tree to install from)}"

prefix="$E2E_TMP/prefix"
cmake --install "$KOPT_BINARY_DIR" --prefix "$prefix" >"$E2E_TMP/install.log" ||
  { echo "FAIL: cmake --install"; cat "$E2E_TMP/install.log"; exit 1; }
for f in bin/kopt share/kopt/skills/SKILL.md share/kopt/harness/python/quick_test_bench.py \
         share/kopt/tools/demo/cpu_campaign.json share/kopt/kernels/cpu/build.sh share/kopt/manifests/cpu_gemm.yaml \
         share/kopt/include/hip_shim/hip/hip_runtime.h share/kopt/include/hip_portability.h; do
  [[ -e "$prefix/$f" ]] || { echo "FAIL: $f is not installed"; exit 1; }
done

# The installed binary, from another directory, with no hint where the sources are.
cd "$E2E_TMP"
unset KOPT_SOURCE_DIR KOPT_SKILLS_DIR
"$prefix/bin/kopt" doctor >"$E2E_TMP/doctor.txt" 2>&1 || true
grep -q "$prefix/share/kopt/skills" "$E2E_TMP/doctor.txt" ||
  { echo "FAIL: the installed kopt does not find its skills under share/kopt:"; grep -i skill "$E2E_TMP/doctor.txt"; exit 1; }
grep -q "kopt demo's script and kernel.*$prefix/share/kopt" "$E2E_TMP/doctor.txt" ||
  { echo "FAIL: the installed kopt's demo does not use share/kopt:"; grep -i demo "$E2E_TMP/doctor.txt"; exit 1; }
{
  echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"install","version":"1"}}}'
  echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  echo '{"jsonrpc":"2.0","id":2,"method":"prompts/list"}'
  echo '{"jsonrpc":"2.0","id":3,"method":"tools/list"}'
} | "$prefix/bin/kopt" serve >"$E2E_TMP/serve.out" 2>"$E2E_TMP/serve.err"
grep -q '"name":"kernel-optimize"' "$E2E_TMP/serve.out" ||
  { echo "FAIL: prompts/list of the installed kopt has no kernel-optimize"; cut -c1-400 "$E2E_TMP/serve.out"; exit 1; }
grep -q '"name":"define_target"' "$E2E_TMP/serve.out" || { echo "FAIL: tools/list has no define_target"; exit 1; }
# kopt init from the install writes the installed harness into a user's repository.
if command -v git >/dev/null; then
  mkdir -p "$E2E_TMP/user" && printf 'def forward(a, b):\n    return a @ b\n' >"$E2E_TMP/user/mm.py"
  git -C "$E2E_TMP/user" init -q && git -C "$E2E_TMP/user" add -A &&
    git -C "$E2E_TMP/user" -c user.name=e2e -c user.email=e2e@example.com commit -qm k
  (cd "$E2E_TMP/user" && "$prefix/bin/kopt" init --kernel mm.py --device cpu --shape g=1,8,8,8 --no-validate --no-commit) \
    >"$E2E_TMP/init.out" 2>&1 || { echo "FAIL: the installed kopt init:"; cat "$E2E_TMP/init.out"; exit 1; }
  cmp -s "$E2E_TMP/user/kopt/quick_test_bench.py" "$prefix/share/kopt/harness/python/quick_test_bench.py" ||
    { echo "FAIL: kopt init did not write the installed harness"; exit 1; }
fi

# The .deb: cpack from the same build tree (dpkg-shlibdeps comes with dpkg-dev).
if command -v dpkg-shlibdeps >/dev/null && command -v cpack >/dev/null; then
  (cd "$E2E_TMP" && cpack --config "$KOPT_BINARY_DIR/CPackConfig.cmake" -B "$E2E_TMP/deb" >"$E2E_TMP/cpack.log" 2>&1) ||
    { echo "FAIL: cpack"; tail -20 "$E2E_TMP/cpack.log"; exit 1; }
  deb=$(ls "$E2E_TMP"/deb/kopt_*.deb)
  dpkg-deb -c "$deb" >"$E2E_TMP/deb-files.txt"
  for f in ./usr/bin/kopt ./usr/share/kopt/skills/SKILL.md ./usr/share/kopt/tools/demo/cpu_campaign.json; do
    grep -q " $f\$" "$E2E_TMP/deb-files.txt" || { echo "FAIL: $f is not in $(basename "$deb")"; exit 1; }
  done
  depends=$(dpkg-deb -f "$deb" Depends)
  for lib in libyaml-cpp git python3; do
    [[ "$depends" == *"$lib"* ]] || { echo "FAIL: the .deb does not depend on $lib (Depends: $depends)"; exit 1; }
  done
  echo "PASS: installed under a prefix (skills served as prompts, demo sources found), and $(basename "$deb") (Depends: $depends)"
else
  echo "PASS: installed under a prefix (skills served as prompts); no dpkg-shlibdeps here, so no .deb was made"
fi
