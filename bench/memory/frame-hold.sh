#!/usr/bin/env bash
# Issue #49: why memory rises under compute-sanitizer when launches go unchecked (word_language_model, nanoGPT).
# Runs bench/memory/frame_hold.py alone and under memcheck in several modes, and lists which CPython functions and
# environment variables compute-sanitizer's own libraries name (a tool that prints Python lines must walk frames).
#   [LIMIT=120] bash bench/memory/frame-hold.sh OUTDIR [CALLS]    (LIMIT: seconds a mode may take)
# Writes OUTDIR/frame-hold.txt (the HOLD lines per mode), OUTDIR/sanitizer-strings.txt, and each mode's logs.
set -u
out=${1:?usage: frame-hold.sh OUTDIR [CALLS]}
calls=${2:-200}
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
cs=$(command -v compute-sanitizer) || { echo "frame-hold.sh: no compute-sanitizer on PATH" >&2; exit 2; }
home=$(dirname "$(readlink -f "$cs")")
{
  echo "# $cs -> $home"; compute-sanitizer --version | tail -1
  for lib in "$home"/*.so* "$home"/compute-sanitizer; do
    [ -f "$lib" ] || continue
    echo "## $(basename "$lib")"
    strings -n 5 "$lib" | grep -E '^_?Py[A-Z][A-Za-z]*_[A-Za-z]+$|^Py_[A-Za-z]+$|PYTHON|[Pp]ython' | sort -u | head -80
    strings -n 8 "$lib" | grep -E '^[A-Z][A-Z0-9_]{6,}$' | grep -E 'SANITIZER|COMPUTE|NV_|CUDA_' | sort -u | head -60
  done
} > "$out/sanitizer-strings.txt" 2>&1
none='--kernel-name kns=gpu_sanitize_no_such_kernel'
run() {  # run NAME [tool options...]; "alone" runs without the tool
  local name=$1; shift
  echo "== $name: $*" >> "$out/frame-hold.txt"
  if [ "$name" = alone ]; then
    PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout "${LIMIT:-120}" python3 "$here/frame_hold.py" "$calls" > "$out/$name.log" 2>&1
  else
    PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout "${LIMIT:-120}" compute-sanitizer --tool memcheck "$@" --log-file "$out/$name.sanitizer.log" \
        python3 "$here/frame_hold.py" "$calls" > "$out/$name.log" 2>&1
  fi
  echo "exit $?" >> "$out/frame-hold.txt"
  grep -E '^(HOLD|PYTHON)' "$out/$name.log" >> "$out/frame-hold.txt"
}
run alone
run full
# shellcheck disable=SC2086
run nothing $none
run count5 --launch-count 5
# shellcheck disable=SC2086
run nothing-nobt $none --show-backtrace no
# shellcheck disable=SC2086
run nothing-callers1 $none --num-callers-host 1
run full-nobt --show-backtrace no
cat "$out/frame-hold.txt"
