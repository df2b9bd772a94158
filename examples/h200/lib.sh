# What a capture keeps, shared by the capture scripts of examples/h200 (source it; bash).
#
#   prune_record DIR        deletes the runner's bookkeeping from every run directory under DIR
#   zip_record DIR FILE     DIR's files into FILE (NAME.zip.xz): a zip of stored entries in a fixed order
#                           (SOURCE_DATE_EPOCH, if set, dates every entry), compressed as one xz stream so that
#                           the many near-identical files of a capture share one dictionary (about 5x smaller than
#                           a deflated zip); `xz -dc FILE > x.zip` gives back a plain zip
#   finish_record DIR [NAME]  prune_record DIR, then, with $OUT a directory, zip_record DIR $OUT/NAME.zip.xz
#                           (NAME: DIR's own name by default)
#   capture_start DIR       what every gate capture starts with: $out (DIR, absolute, made), $repo (this checkout,
#                           the working directory), $JAVA and $JAR (from .device/), $DEADLINE (default 560 s) counted
#                           by `now` from here, the card's rules in the environment (NVLink multicast off), $TR
#                           (torchrun) and DIR/machine.txt
#
# A pruned, packed capture is ready to drop into src/test/resources/records/ (its README.md says how).

# The runner's own files, needed while a phase runs and by nothing afterwards: the supervisor's pid,
# heartbeat and start marks, the phase script (command.txt holds the same command and environment), the
# sidecar, the run's lease, and the copies of the supervisor and the probe that every run directory gets
# (the same files are in the jar). report.html and report.css are report.json drawn for a browser:
# `gpu-sanitize analyze --run-dir DIR --html FILE` draws them again. launch_census.so is the kernel census built on the
# card from the probe's gpu_sanitize_census.c (a binary: census/build.log says how it was built).
BOOKKEEPING_FILES=(heartbeat started target.pid supervisor.pid phase.sh sidecar.sh runner.lease
  supervise.sh report.html report.css launch_census.so)
# the probe's copy and its interpreter shims: only in a run directory's probe/ folder (a job's own sitecustomize.py in its
# working directory's copy is the job's)
PROBE_FILES=(sitecustomize.py 'gpu_sanitize_*.py' python python3 'python3.*')

prune_record() {
  local dir=${1:?usage: prune_record DIR}
  local names=() n
  for n in "${BOOKKEEPING_FILES[@]}"; do names+=(-o -name "$n"); done
  find "$dir" -type f \( "${names[@]:1}" \) -not -path '*/workspaces/*' -delete
  names=()
  for n in "${PROBE_FILES[@]}"; do names+=(-o -name "$n"); done
  find "$dir" -path '*/probe/*' -not -path '*/workspaces/*' \( -type f -o -type l \) \( "${names[@]:1}" \) -delete
  # an empty supervisor.log says nothing; one that is not holds the shell's word on how the target ended
  find "$dir" -type f -name supervisor.log -empty -delete
  # supervisor.conf only where the phase's exit.status names its owner as gone: the conf's OWNER_PID is that pid
  local conf
  while IFS= read -r -d '' conf; do
    grep -qs 'its owner (.*) is gone' "$(dirname "$conf")/exit.status" || rm -f "$conf"
  done < <(find "$dir" -type f -name supervisor.conf -print0)
  find "$dir" -depth -type d -name __pycache__ -exec rm -rf {} +
  find "$dir" -depth -type d \( -name bin -o -name probe \) -empty -delete
}

zip_record() {
  local dir=${1:?usage: zip_record DIR FILE.zip.xz} zip=${2:?usage: zip_record DIR FILE.zip.xz}
  python3 - "$dir" "$zip" <<'PY'
import io, lzma, os, sys, time, zipfile
root, target = sys.argv[1], sys.argv[2]
epoch = os.environ.get("SOURCE_DATE_EPOCH")
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
    for base, dirs, files in os.walk(root):
        dirs.sort()
        rel = os.path.relpath(base, root)
        # a folder is an entry of its own only when empty: the files' paths make the others
        for name in ([""] if rel != "." and not dirs and not files else []) + sorted(files):
            path = os.path.join(base, name) if name else base
            arc = os.path.normpath(os.path.join(rel, name)) + ("" if name else "/")
            info = zipfile.ZipInfo.from_file(path, arc)
            if epoch:
                info.date_time = time.gmtime(int(epoch))[:6]
            if name:
                with open(path, "rb") as f:
                    z.writestr(info, f.read(), zipfile.ZIP_STORED)
            else:
                z.writestr(info, b"")
with open(target, "wb") as f:
    f.write(lzma.compress(buf.getvalue(), format=lzma.FORMAT_XZ, preset=9 | lzma.PRESET_EXTREME))
PY
}

finish_record() {
  local dir=${1:?usage: finish_record DIR [NAME]}
  local name=${2:-$(basename "$dir")}
  prune_record "$dir"
  if [ -n "${OUT:-}" ] && [ -d "${OUT:-}" ]; then
    zip_record "$dir" "$OUT/$name.zip.xz"
  fi
}

capture_start() {
  out=${1:?usage: capture_start DIR}
  case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
  mkdir -p "$out"
  repo=$PWD
  JAVA=${JAVA:-$repo/.device/jre/bin/java}
  JAR=${JAR:-$repo/.device/gpu-sanitize.jar}
  DEADLINE=${DEADLINE:-560}
  T0=$(date +%s)
  export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=2
  export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
  if command -v torchrun > /dev/null 2>&1; then TR="torchrun"; else TR="python3 -m torch.distributed.run"; fi
  { date -u; nproc; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; compute-sanitizer --version | tail -1
    python3 -c 'import torch, sys; print(sys.version.split()[0], torch.__version__, torch.version.cuda)'
    cat .device/commit.txt 2>/dev/null; df -h /tmp | tail -1; } > "$out/machine.txt" 2>&1
}

now() { echo $(( $(date +%s) - T0 )); }
