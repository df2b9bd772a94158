#!/usr/bin/env bash
# Issue #48 (2, 3): what initcheck sees when PyTorch's kernels are left out by --kernel-name-exclude, against
# suppressing their records instead (compute-sanitizer --suppressions). From the repository root on the GPU machine:
#   bash examples/public/initcheck/scope.sh OUTDIR
# For each case: the tool's command, its time, its ERROR SUMMARY and the printed records counted by kernel (or host
# API), into OUTDIR/scope.txt; the logs beside it.
set -u
out=${1:?usage: scope.sh OUTDIR}; mkdir -p "$out"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd); repo=$(cd "$here/../../.." && pwd)
CS="compute-sanitizer --tool initcheck --print-limit ${PRINT_LIMIT:-2000} --strip-paths no"
KNS="--kernel-name-exclude=kns=_ZN2at6native"
SUPP="--suppressions $here/pytorch-kernels.supp.xml"
case_() {  # NAME LIMIT ARGS... -- COMMAND
  local name=$1 limit=$2; shift 2
  local args=(); while [ "$1" != "--" ]; do args+=("$1"); shift; done; shift
  local a b; a=$(date +%s.%N)
  (cd "$repo" && timeout -k 5 "$limit" $CS "${args[@]}" --log-file "$out/$name.log" "$@" > "$out/$name.out" 2>&1)
  local rc=$?; b=$(date +%s.%N)
  {
    echo "== $name: exit $rc, $(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.1f", b-a}') s: ${args[*]} -- $*"
    grep -h "ERROR SUMMARY\|LEAK SUMMARY\|Error:" "$out/$name.log" | head -3 | sed 's/^/   /'
    grep -h -A1 "Uninitialized __global__\|Host API" "$out/$name.log" | grep -v "Uninitialized\|Host API\|^--" \
      | sed -E 's/^=+ +//; s/\+0x[0-9a-f]+.*//; s/^at //' | cut -c1-140 | sort | uniq -c | sort -rn | head -8 | sed 's/^/   /'
    grep -c "Host API memory access error" "$out/$name.log" | sed 's/^/   host-api records: /'
    tail -2 "$out/$name.out" | sed 's/^/   job: /'
  } >> "$out/scope.txt"
}
MT="python3 examples/mask_tail_job.py --steps 10"
TJ="python3 examples/transformer_job.py"
case_ mask-tail-kns 60 $KNS -- $MT
case_ mask-tail-kns-noapi 60 $KNS --check-api-memory-access no -- $MT
case_ mask-clean-kns-noapi 60 $KNS --check-api-memory-access no -- $MT --tail 0
case_ mask-tail-supp 60 $SUPP -- $MT
case_ mask-clean-supp 60 $SUPP -- $MT --tail 0
case_ mask-tail-plain 60 -- $MT
case_ transformer-supp "${TLIMIT:-100}" $SUPP -- $TJ --steps 5
case_ transformer-kns-noapi 60 $KNS --check-api-memory-access no -- $TJ
case_ transformer-supp-text 45 --suppressions "$here/pytorch-kernels-text.supp.xml" -- $TJ --steps 2
cat "$out/scope.txt"
