#!/bin/sh
# GPU Sanitizer memory sampler (docs/report-schema.md, "Memory curves"): the regression phase's sidecar.
# supervise.sh starts it before the phase (sidecar.sh) and stops it with SIGTERM after the phase.
#
# nvidia-smi answers one query per process, so two of them loop beside the job (-lms), never one per sample:
#   stdout (sidecar.sh sends it to nvidia-smi.csv): the card's total,
#     --query-gpu=timestamp,index,memory.used,memory.total,utilization.gpu
#   PHASE_DIR/nvidia-smi-apps.csv (errors: nvidia-smi-apps.err): each process's memory on the card,
#     --query-compute-apps=timestamp,pid,used_memory
# and PHASE_DIR/gpu-pids.txt: every pid nvidia-smi lists, checked once, when first listed (it is alive then):
#   PID ours session   in the phase's session (supervise.sh starts the phase with setsid)
#   PID ours cookie    carries the phase's cookie (a worker that left the session)
#   PID other          neither: another phase beside it, another job on the card
#   PID gone           ended before it could be checked
#   apps-sampler-exit N  the per-process nvidia-smi ended before the phase, with status N
# The driver lists the host's pids whatever the pid namespace, so the namespace goes first: in a container's
# own namespace no listed pid can be told as the job's. Every file is opened once, at the start: a run directory
# deleted under the run (a workspace cleanup) is never written into again.
#
# usage: sh memory-sampler.sh PHASE_DIR NVIDIA_SMI GPU INTERVAL_MS
# exit: 0 when stopped; the card-total sampler's status when it ended before the phase did.

dir=$1
smi=$2
gpu=$3
ms=$4
# the files, first: 3 reads what the per-process sampler writes (5, errors 6), 4 is gpu-pids.txt
exec 4> "$dir/gpu-pids.txt" 5> "$dir/nvidia-smi-apps.csv" 6> "$dir/nvidia-smi-apps.err" 3< "$dir/nvidia-smi-apps.csv"
stopping=
trap 'stopping=1' TERM INT HUP
"$smi" --query-compute-apps=timestamp,pid,used_memory --format=csv,nounits -lms "$ms" -i "$gpu" >&5 2>&6 < /dev/null 3<&- 4>&- &
apps=$!
"$smi" --query-gpu=timestamp,index,memory.used,memory.total,utilization.gpu --format=csv,nounits -lms "$ms" -i "$gpu" \
  < /dev/null 3<&- 4>&- 5>&- 6>&- &
total=$!
exec 5>&- 6>&-

COOKIE=
. "$dir/supervisor.conf"
TICK=0.5
sleep 0.01 2>/dev/null || TICK=1
namespace=$(readlink /proc/self/ns/pid 2>/dev/null)
echo "pid-namespace ${namespace:-unknown}" >&4

alive() { # a live process, not a zombie
  _stat=
  { read -r _stat < "/proc/$1/stat"; } 2>/dev/null
  _state=${_stat##*) }
  case $_state in '' | Z* | X*) return 1 ;; esac
  return 0
}

session_of() { # SID: the session of a pid (field 6 of /proc/PID/stat), empty when gone
  SID=
  _stat=
  { read -r _stat < "/proc/$1/stat"; } 2>/dev/null
  [ -n "$_stat" ] || return 0
  _state=${_stat##*) }
  set -- $_state
  SID=$4
}

session_of $$
own_sid=$SID
phase_sid=
phase_session() { # PHASE_SID: the phase's session, once supervise.sh has started it; never this sampler's own
  [ -n "$phase_sid" ] && return 0
  { read -r _target < "$dir/target.pid"; } 2>/dev/null || return 0
  session_of "$_target"
  # without setsid the phase shares the runner's session, and so does every other phase: no test then
  if [ -n "$SID" ] && [ "$SID" != "$own_sid" ]; then phase_sid=$SID; else phase_sid=none; fi
}

has_cookie() {
  [ -n "$COOKIE" ] || return 1
  if grep -qsxzF "GPU_SANITIZE_COOKIE=$COOKIE" "/proc/$1/environ" 2>/dev/null; then return 0; fi
  tr '\0' '\n' < "/proc/$1/environ" 2>/dev/null | grep -qxF "GPU_SANITIZE_COOKIE=$COOKIE"
}

seen=' '
check_row() { # one row of nvidia-smi-apps.csv: a pid not seen before is checked and written to gpu-pids.txt
  _rest=${1#*,}
  _pid=${_rest%%,*}
  _pid=${_pid#"${_pid%%[! ]*}"}
  _pid=${_pid%"${_pid##*[! ]}"}
  case $_pid in '' | *[!0-9]*) return 0 ;; esac # the header, a cut line
  case $seen in *" $_pid "*) return 0 ;; esac
  seen="$seen$_pid "
  phase_session
  session_of "$_pid"
  if [ -z "$SID" ]; then
    echo "$_pid gone" >&4
  elif [ "$SID" = "$phase_sid" ]; then
    echo "$_pid ours session" >&4
  elif has_cookie "$_pid"; then
    echo "$_pid ours cookie" >&4
  else
    echo "$_pid other" >&4
  fi
}

partial=
read_rows() { # the rows nvidia-smi added since the last call; a line it is still writing waits for its end
  while :; do
    line=
    if IFS= read -r line <&3; then
      check_row "$partial$line"
      partial=
    else
      partial="$partial$line"
      return 0
    fi
  done
}

apps_noted=
apps_ended() { # notes the per-process sampler's status once it ended on its own
  if [ -z "$apps_noted" ] && ! alive "$apps"; then
    wait "$apps"
    echo "apps-sampler-exit $?" >&4
    apps_noted=1
  fi
}
while [ -z "$stopping" ] && alive "$total" && alive "$PPID"; do
  read_rows
  apps_ended
  sleep $TICK
done
apps_ended
kill -s TERM "$apps" 2>/dev/null
if [ -z "$stopping" ] && ! alive "$total"; then
  # the card-total sampler ended on its own, before the phase: its status tells supervise.sh
  wait "$total"
  code=$?
  read_rows
  exit "$code"
fi
kill -s TERM "$total" 2>/dev/null
wait "$total" 2>/dev/null
wait "$apps" 2>/dev/null
read_rows
exit 0
