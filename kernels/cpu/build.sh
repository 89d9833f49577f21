#!/bin/sh
# Builds the CPU GEMM bench harness into build/cpu_gemm_bench (no cmake).
# Usage: ./build.sh                 (from any directory; CXX, CXXFLAGS, NM and READELF override the defaults)
#        ./build.sh --audit OBJ...  (only the symbol audit below; CMakeLists.txt runs it this way)
#
# The kernel is linked into the harness's process, so the kernel TU is compiled to an object
# first and its symbols audited with nm before anything is linked (docs/integrity.md, gap G5):
#  - it may DEFINE only cpu_gemm:: symbols, the personality reference and weak instantiations of
#    a few std containers/algorithms: a definition of clock_gettime, steady_clock::now, write...
#    in the executable would replace the harness's own;
#    The std instantiations must be WEAK (implicit instantiations, COMDAT): a strong definition is
#    an explicit specialisation that would replace the harness's own copy of that template (say
#    the copy of the timing vector its median takes), and the harness is linked first, so on a
#    tie between weak copies the harness's wins;
#  - it may not REFERENCE clocks, files, exit handlers, threads, processes, signals, dlsym or
#    mprotect: a GEMM needs none of them, and each is a way to bend the timing or the result files;
#  - it may have no static initialisers or finalisers (.init_array, .ctors, .fini_array...): code
#    that runs before main or after it, outside any timed call, is how a kernel with raw system
#    calls (which no symbol shows) starts a daemon or a thread before the harness looks.
# A refused object names the symbol or section and the build exits 1 without linking.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
NM=${NM:-nm}
READELF=${READELF:-readelf}

# Mangled-name patterns (grep -E, anchored) a kernel object may define as global symbols: its own,
# any binding; the personality reference and std instantiations, weak only.
own_defined='^(_ZN8cpu_gemm|_ZNK8cpu_gemm|_ZZN8cpu_gemm|_ZT[VISIT]N8cpu_gemm)'
allowed_defined='^(_ZN8cpu_gemm|_ZNK8cpu_gemm|_ZZN8cpu_gemm|_ZT[VISIT]N8cpu_gemm|DW\.ref\.__gxx_personality_v0$|_ZNSt6vectorI|_ZNKSt6vectorI|_ZNSt12_Vector_baseI|_ZNSaI|_ZNSt15__new_allocatorI|_ZN9__gnu_cxx13new_allocatorI|_ZNSt5arrayI|_ZNKSt5arrayI|_ZSt4fillI|_ZSt6fill_nI|_ZSt6__fill|_ZSt4copyI|_ZSt6__copy|_ZSt3minI|_ZSt3maxI|_ZSt8_Destroy|_ZSt18__uninitialized|_ZSt20__uninitialized|_ZSt22__uninitialized|_ZSt24__uninitialized|_ZSt25__uninitialized|_ZSt27__uninitialized)'
# Raw (unmangled C) or mangled-prefix names a kernel object may not reference.
forbidden_c='^(clock_gettime|clock_settime|clock_getres|clock|gettimeofday|settimeofday|time|timespec_get|ftime|times|getrusage|syscall|fopen|fopen64|freopen|freopen64|fdopen|open|open64|openat|openat64|creat|creat64|write|pwrite|pwrite64|writev|fwrite|fputs|rename|renameat|renameat2|unlink|unlinkat|remove|truncate|ftruncate|atexit|at_quick_exit|on_exit|__cxa_atexit|__cxa_thread_atexit|__cxa_thread_atexit_impl|pthread_create|pthread_detach|dlopen|dlsym|dlvsym|mprotect|pkey_mprotect|mmap|mmap64|fork|vfork|clone|clone3|execl|execlp|execle|execv|execvp|execvpe|execve|execveat|fexecve|posix_spawn|posix_spawnp|system|popen|kill|signal|sigaction|ptrace|_exit|_Exit|exit|quick_exit)(@.*)?$'
forbidden_mangled='^(_ZNSt6chrono|_ZNSt3_V26chrono|_ZNSt6thread|_ZNSt3_V26thread|_ZNSt14basic_ofstream|_ZNSt14basic_ifstream|_ZNSt13basic_fstream|_ZNSt13basic_filebuf|_ZNSt7__cxx1114basic_ofstream|_ZSt5async|_ZNSt10filesystem|_ZNSt7__cxx1110filesystem)'

audit() {
  status=0
  for obj in "$@"; do
    if ! "$NM" "$obj" >/dev/null 2>&1; then
      echo "build.sh: cannot read symbols of $obj with '$NM' (set NM to a working nm)" >&2
      return 1
    fi
    # Global definitions: every type letter except U (undefined) and lower-case (local).
    defs=$("$NM" --defined-only --extern-only "$obj" | awk 'NF >= 3 { print $2, $3 }')
    bad_def=$(echo "$defs" | awk 'NF == 2 { print $2 }' | grep -Ev "$allowed_defined" || true)
    for sym in $bad_def; do
      echo "build.sh: REFUSED: the kernel object $(basename "$obj") defines '$sym' ($(echo "$sym" | c++filt 2>/dev/null || echo "$sym")); only cpu_gemm:: symbols may be defined (a definition here would replace the harness's own)" >&2
      status=1
    done
    # W/V: weak; anything else outside cpu_gemm:: is a strong definition of a library symbol.
    strong_std=$(echo "$defs" | awk 'NF == 2 && $1 != "W" && $1 != "V" { print $2 }' \
      | grep -E "$allowed_defined" | grep -Ev "$own_defined" || true)
    for sym in $strong_std; do
      echo "build.sh: REFUSED: the kernel object $(basename "$obj") defines '$sym' ($(echo "$sym" | c++filt 2>/dev/null || echo "$sym")) as a strong symbol: an explicit specialisation of a library template replaces the harness's own copy; use the template as it is" >&2
      status=1
    done
    if ! sections=$("$READELF" -S -W "$obj" 2>/dev/null); then
      echo "build.sh: cannot read the sections of $obj with '$READELF' (set READELF to a working readelf)" >&2
      return 1
    fi
    bad_sections=$(echo "$sections" | grep -oE '\.(init_array|fini_array|preinit_array|ctors|dtors|init|fini)(\.[0-9]+)?( |$)' \
      | sort -u || true)
    for sec in $bad_sections; do
      echo "build.sh: REFUSED: the kernel object $(basename "$obj") has a '$sec' section: code that runs before main or after it (a static initialiser or finaliser, __attribute__((constructor))); a GEMM's state must be set up inside its calls" >&2
      status=1
    done
    bad_ref=$("$NM" --undefined-only "$obj" | awk '{ print $NF }' \
      | grep -E "$forbidden_c|$forbidden_mangled" || true)
    for sym in $bad_ref; do
      echo "build.sh: REFUSED: the kernel object $(basename "$obj") references '$sym' ($(echo "$sym" | c++filt 2>/dev/null || echo "$sym")); a GEMM needs no clock, file, exit handler, thread, process or signal call" >&2
      status=1
    done
  done
  [ "$status" -eq 0 ] || echo "build.sh: kernel refused by the symbol audit; nothing was linked" >&2
  return "$status"
}

if [ "${1:-}" = "--audit" ]; then
  shift
  audit "$@"
  exit $?
fi

mkdir -p "$here/build"
flags="-std=c++17 ${CXXFLAGS:--O2} -Wall -Wextra"
# shellcheck disable=SC2086
${CXX:-c++} $flags -c -o "$here/build/gemm.o" "$here/gemm.cpp"
audit "$here/build/gemm.o" || { rm -f "$here/build/cpu_gemm_bench"; exit 1; }
# The harness first: where both hold a weak copy of a template, the first one linked is kept.
# shellcheck disable=SC2086
${CXX:-c++} $flags -o "$here/build/cpu_gemm_bench.tmp" "$here/bench.cpp" "$here/build/gemm.o"
mv -f "$here/build/cpu_gemm_bench.tmp" "$here/build/cpu_gemm_bench"
