#!/usr/bin/env bash
# GPU time per merge (issue #15, part 2): what compute-sanitizer's own options save in the sanitizer phase and
# whether the findings stay. Each variant is one `gpu-sanitize run --phases sanitizer`; variants of one job
# alternate their order between the two repeats. From the repository root on the GPU machine, .device/ carried
# (jlink runtime and shaded jar, see src/test/resources/records/h200-2026-12-02.md); DEADLINE seconds at most:
#   [JOBS="triton-stride vendor-mix-memcheck vendor-mix-initcheck"] bash examples/h200/capture-sanitizer-options.sh OUTDIR
# Jobs and variants:
#   triton-stride (memcheck finds an out-of-bounds store in a Triton kernel; the user's line must stay named):
#     default | host backtrace cut to 8 frames (--num-callers-host 8) | device backtrace only (--show-backtrace device)
#     | vendor kernels excluded (their kernel names, see VENDOR below)
#   vendor-mix-memcheck (clean: cuBLAS, cuDNN conv/BN/LSTM, cuFFT; MIX_STEPS steps): default | vendor kernels excluded
#   vendor-mix-initcheck (the same job under initcheck, INIT_STEPS steps: initcheck is slow there): default |
#     vendor kernels excluded (initcheck's findings in vendor kernels are suppressed anyway)
# JOBS (default: all three) picks jobs; REPEATS (default 2) alternates the variants' order.
# Writes OUTDIR/JOB-VARIANT-N/ (run directories), summary.txt, options.txt (examples/h200/sanitizer-options.py);
# with $OUT set, OUTDIR is tarred to $OUT/sanitizer-options.tgz.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
out=${1:?usage: capture-sanitizer-options.sh OUTDIR}
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
mkdir -p "$out"
JAVA=${JAVA:-.device/jre/bin/java}
JAR=${JAR:-.device/gpu-sanitize.jar}
DEADLINE=${DEADLINE:-540}
REPEATS=${REPEATS:-2}
JOBS=" ${JOBS:-triton-stride vendor-mix-memcheck vendor-mix-initcheck} "
MIX_STEPS=${MIX_STEPS:-6}
INIT_STEPS=${INIT_STEPS:-2}
want() { case "$JOBS" in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
T0=$(date +%s)
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=2
now() { echo $(( $(date +%s) - T0 )); }
# kernel-name substrings of the vendor libraries the examples reach (cuBLAS/cuBLASLt: xmma, cutlass, gemm, gemv;
# cuDNN: cudnn, bn_, LSTM/RNN; cuFFT: fft); a user kernel whose name holds one of them would be skipped too
VENDOR="kns=xmma,kns=cutlass,kns=gemm,kns=gemv,kns=cudnn,kns=bn_fw,kns=bn_bw,kns=LSTM,kns=RNN,kns=fft,kns=nchwToNhwc,kns=nhwcToNchw"
{ date -u; nproc; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; compute-sanitizer --version | tail -1;
  "$JAVA" -version; git log -1 --format='%H %s' 2>/dev/null; echo "VENDOR=$VENDOR JOBS=$JOBS MIX_STEPS=$MIX_STEPS INIT_STEPS=$INIT_STEPS"; } > "$out/machine.txt" 2>&1
# gs NAME options...: one sanitizer-only gate run; its wall time, start to report, in summary.txt
gs() {
  local name=$1; shift
  if [ "$(now)" -ge $(( DEADLINE - 40 )) ]; then echo "$name skipped: deadline" >> "$out/summary.txt"; return; fi
  local a b; a=$(date +%s.%N)
  timeout -k 10 120 "$JAVA" -XX:+UseSerialGC -Xmx512m -jar "$JAR" run --out "$out/$name" --phases sanitizer \
    --print-limit 200 --progress-interval 15 --timeout sanitizer=100 "$@" > "$out/$name.console.txt" 2>&1
  local rc=$?; b=$(date +%s.%N)
  echo "$name exit=$rc seconds=$(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.2f", b-a}')" | tee -a "$out/summary.txt"
}
triton=(-- python3 examples/triton_stride.py --bug stride --steps 8)
for n in $(seq "$REPEATS"); do
  variants=(default callers8 device-only no-vendor)
  [ $((n % 2)) = 0 ] && variants=(no-vendor device-only callers8 default)
  want triton-stride || variants=()
  for v in "${variants[@]}"; do
    case $v in
      default) gs "triton-stride-$v-$n" "${triton[@]}" ;;
      callers8) gs "triton-stride-$v-$n" --sanitizer-arg=--num-callers-host=8 "${triton[@]}" ;;
      device-only) gs "triton-stride-$v-$n" --sanitizer-arg=--show-backtrace=device "${triton[@]}" ;;
      no-vendor) gs "triton-stride-$v-$n" "--sanitizer-arg=--kernel-name-exclude=$VENDOR" "${triton[@]}" ;;
    esac
  done
  pair=(default no-vendor)
  [ $((n % 2)) = 0 ] && pair=(no-vendor default)
  for tool in memcheck initcheck; do
    want "vendor-mix-$tool" || continue
    steps=$MIX_STEPS
    [ "$tool" = initcheck ] && steps=$INIT_STEPS
    mix=(-- python3 examples/vendor_mix.py --steps "$steps")
    for v in "${pair[@]}"; do
      if [ "$v" = default ]; then gs "vendor-mix-$tool-$v-$n" --tool "$tool" "${mix[@]}"
      else gs "vendor-mix-$tool-$v-$n" --tool "$tool" "--sanitizer-arg=--kernel-name-exclude=$VENDOR" "${mix[@]}"; fi
    done
  done
done
echo "done at +$(now)s" | tee -a "$out/summary.txt"
python3 examples/h200/sanitizer-options.py "$out" > "$out/options.txt" 2>&1
cat "$out/options.txt"
finish_record "$out"
