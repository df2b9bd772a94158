#!/usr/bin/env bash
# What memcheck costs on a transformer-sized job, with and without vendor kernels excluded (issue #28):
# examples/transformer_job.py (bf16 autocast, SDPA attention, AdamW) at SIZE, run plain, under
# `compute-sanitizer --tool memcheck` as the gate's sanitizer phase runs it (uncached allocator, padding),
# and the same with the vendor kernels excluded by compute-sanitizer's kernel-name filters.
# On the GPU machine, from the repository root:
#   bash bench/memcheck-vendor.sh OUTDIR
# Writes OUTDIR/memcheck-vendor.csv (variant,wall_s,steady_s_per_step,errors,exit) and each run's output;
# OUTDIR/kernels.txt lists the kernels of one step (name and launches) and which filter excludes each.
set -u
out=${1:?usage: memcheck-vendor.sh OUTDIR}
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
mkdir -p "$out"
SIZE=${SIZE:---layers 12 --dim 1536 --seq 512 --batch 8 --vocab 32000}
STEPS=${STEPS:-4}
LIMIT=${LIMIT:-240}
# the filters of `gpu-sanitize run --exclude-vendor-kernels` (keep in step with the CLI's list)
VENDOR=${VENDOR:-kns=gemm,kns=nvjet,kns=cutlass,kns=xmma,kns=cublas,kns=cudnn,kns=nccl,kns=flash,kns=fmha}
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=2
job=(python3 examples/transformer_job.py $SIZE --steps "$STEPS")
exclude=()  # one --kernel-name-exclude per filter: compute-sanitizer adds them up
IFS=, read -r -a filters <<< "$VENDOR"
for f in "${filters[@]}"; do exclude+=(--kernel-name-exclude "$f"); done
echo "variant,wall_s,steady_s_per_step,errors,exit" > "$out/memcheck-vendor.csv"
row() { # VARIANT LOG RC A B
  local steady errors
  steady=$(grep -o 'steady seconds/step [0-9.]*' "$2" | awk '{print $3}')
  errors=$(grep -o 'ERROR SUMMARY: [0-9]* error' "$2" | awk '{print $3}')
  echo "$1,$(awk -v a="$4" -v b="$5" 'BEGIN{printf "%.1f", b-a}'),${steady:-},${errors:-},$3" >> "$out/memcheck-vendor.csv"
}
LIST_KERNELS=1 "${job[@]}" --steps 2 > "$out/kernels.log" 2>&1
python3 - "$out/kernels.log" "$VENDOR" > "$out/kernels.txt" <<'PY'
import sys
log, vendor = sys.argv[1:]
subs = [f.split("=", 1)[1].lower() for f in vendor.split(",")]
total = excluded = 0
for line in open(log):
    if line.startswith("kernel "):
        _, count, name = line.rstrip("\n").split(" ", 2)
        hit = next((s for s in subs if s in name.lower()), "")
        total += int(count); excluded += int(count) if hit else 0
        print(f"{count}\t{hit or '-'}\t{name}")
print(f"# launches in one step: {total}, excluded by the vendor filters: {excluded}")
PY
for variant in plain memcheck memcheck-vendor-excluded; do
  a=$(date +%s.%N)
  case $variant in
    plain) timeout -k 5 "$LIMIT" "${job[@]}" > "$out/$variant.log" 2>&1 ;;
    memcheck) PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout -k 10 "$LIMIT" compute-sanitizer --tool memcheck --padding 4096 \
        --print-limit 100 "${job[@]}" > "$out/$variant.log" 2>&1 ;;
    memcheck-vendor-excluded) PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout -k 10 "$LIMIT" compute-sanitizer --tool memcheck \
        --padding 4096 --print-limit 100 "${exclude[@]}" "${job[@]}" > "$out/$variant.log" 2>&1 ;;
  esac
  rc=$?
  b=$(date +%s.%N)
  row "$variant" "$out/$variant.log" "$rc" "$a" "$b"
done
cat "$out/memcheck-vendor.csv"; tail -1 "$out/kernels.txt"
