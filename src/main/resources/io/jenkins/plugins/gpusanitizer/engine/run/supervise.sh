#!/bin/sh
# GPU Sanitizer phase supervisor (docs/execution.md).
#
# Runs one phase's process (PHASE_DIR/phase.sh) in a session of its own and watches it: the time
# limit, the clean stop at the target time (or at one the runner learned later: PHASE_DIR/target), a stop request
# (PHASE_DIR/stop, written by the runner)
# and its owner (the gpu-sanitize JVM, unless the run was started detached on purpose). However the
# phase ends it kills in the order compute-sanitizer needs (the job first; then the tool gets its
# write grace to write its XML and summary; then the session), sweeps the processes that carry the
# phase's cookie (DataLoader workers that left the tree), and writes PHASE_DIR/exit.status.
#
# The runner starts it through the job's launcher, so inside a container it runs in the container.
# It needs only a POSIX sh and /proc: no bash, no procps, no Java. It writes a new count into
# PHASE_DIR/heartbeat every second, which is how a runner that cannot see the container's processes
# knows it lives: the runner watches the count change by its own monotonic clock, never the file's
# age by the wall clock (a clock step would read as a dead supervisor).
#
# usage: sh supervise.sh PHASE_DIR      settings: PHASE_DIR/supervisor.conf (written by the runner)

dir=$1
conf="$dir/supervisor.conf"
if [ ! -r "$conf" ]; then
  echo "supervise.sh: cannot read $conf" >&2
  exit 2
fi
LATE_TARGET=
COOKIE= TIMEOUT_CS= STOP_AT_CS= TOOL_WRAPS=0 KILL_GRACE_CS=500 WRITE_GRACE_CS=3000 OWNER_PID= OWNER_START= SIDECAR=
LEFTOVER_GRACE_CS=0 LEFTOVER_MAX_CS=0
. "$conf"

TICK=0.1
sleep 0.01 2>/dev/null || TICK=1
GREP_Z=0
if printf 'a\0' | grep -qxzF a 2>/dev/null; then GREP_Z=1; fi

now_cs() { # NOW: centiseconds since boot, without a fork
  { read -r _up _idle < /proc/uptime; } 2>/dev/null
  _i=${_up%.*}
  _f=${_up#*.}
  case $_f in 0?) _f=${_f#0} ;; esac
  NOW=$((_i * 100 + _f))
}

proc_stat() { # STAT_REST: /proc/PID/stat after the command name, or empty when gone
  STAT_REST=
  { read -r _stat < "/proc/$1/stat"; } 2>/dev/null || return 0
  STAT_REST=${_stat##*) }
}

alive() { # a live process, not a zombie waiting for its parent
  proc_stat "$1"
  case $STAT_REST in '' | Z* | X*) return 1 ;; esac
  return 0
}

owner_alive() {
  proc_stat "$OWNER_PID"
  [ -n "$STAT_REST" ] || return 1
  [ -n "$OWNER_START" ] || return 0
  set -- $STAT_REST
  eval "_start=\${20}"
  [ "$_start" = "$OWNER_START" ]
}

cookie_pids() { # PIDS: live processes carrying this phase's cookie (the supervisor never does)
  PIDS=
  if [ "$GREP_Z" = 1 ]; then
    for _file in $(grep -lsxzF "GPU_SANITIZE_COOKIE=$COOKIE" /proc/[0-9]*/environ 2>/dev/null); do
      _p=${_file#/proc/}
      _p=${_p%/environ}
      if [ "$_p" != "$$" ] && alive "$_p"; then PIDS="$PIDS $_p"; fi
    done
  else
    for _file in /proc/[0-9]*/environ; do
      if tr '\0' '\n' < "$_file" 2>/dev/null | grep -qxF "GPU_SANITIZE_COOKIE=$COOKIE"; then
        _p=${_file#/proc/}
        _p=${_p%/environ}
        if [ "$_p" != "$$" ] && alive "$_p"; then PIDS="$PIDS $_p"; fi
      fi
    done
  fi
}

live_of() { # LIVE: those of the given pids still alive
  LIVE=
  for _p in "$@"; do
    if alive "$_p"; then LIVE="$LIVE $_p"; fi
  done
}

await_gone() { # await_gone CENTISECONDS PID...: true when all are gone in time
  now_cs
  _until=$((NOW + $1))
  shift
  while :; do
    live_of "$@"
    [ -z "$LIVE" ] && return 0
    now_cs
    [ "$NOW" -ge "$_until" ] && return 1
    heartbeat
    sleep $TICK
  done
}

NOTE=
add_note() {
  if [ -z "$NOTE" ]; then NOTE=$1; else NOTE="$NOTE; $1"; fi
}

LAST_BEAT=0
BEATS=0
DIR_LOST=
heartbeat() {
  now_cs
  if [ $((NOW - LAST_BEAT)) -ge 100 ]; then
    BEATS=$((BEATS + 1))
    # `echo`, a regular built-in, not a special one: a failed redirection of a special built-in ends a POSIX
    # sh (dash), and this shell must outlive a run directory that was deleted (a workspace cleanup) or a full
    # disk to stop its phase
    if echo "$BEATS" > "$dir/heartbeat" 2> /dev/null; then LAST_BEAT=$NOW; else DIR_LOST=1; fi
  fi
}

seconds() { # SECONDS_TEXT: centiseconds as seconds with two decimals
  SECONDS_TEXT="$(($1 / 100)).$(printf '%02d' $(($1 % 100)))"
}

sweep() { # kills whatever of the phase is still alive (children that outlived their parent)
  cookie_pids
  [ -n "$PIDS" ] || return 0
  _count=0
  for _p in $PIDS; do _count=$((_count + 1)); done
  kill -s KILL $PIDS 2>/dev/null
  await_gone 500 $PIDS
  add_note "$_count leftover process(es) of the phase killed"
}

# The main process ended by itself, with success, while processes of the phase run on. They get as long as it ran (at least
# LEFTOVER_GRACE_CS: DataLoader workers notice their parent's end within 5 s; at most LEFTOVER_MAX_CS) to end on
# their own. Those still running then, after a main process that ran no longer than that wait, are the job's work
# going on unchecked (a launcher that backgrounds the job and exits): noted for the runner, which calls it an error.
linger() {
  cookie_pids
  [ -n "$PIDS" ] || return 0
  _wait=$wall
  [ "$_wait" -lt "$LEFTOVER_GRACE_CS" ] && _wait=$LEFTOVER_GRACE_CS
  [ "$_wait" -gt "$LEFTOVER_MAX_CS" ] && _wait=$LEFTOVER_MAX_CS
  now_cs
  _until=$((NOW + _wait))
  while :; do
    heartbeat
    sleep $TICK
    cookie_pids
    [ -z "$PIDS" ] && return 0
    # a stop or an abort meanwhile: the sweep ends them, nothing is concluded
    if [ -n "$STOP_BY_SIGNAL" ] || [ -f "$dir/stop" ]; then return 0; fi
    now_cs
    [ "$NOW" -ge "$_until" ] && break
  done
  [ "$wall" -le "$_wait" ] || return 0
  _count=0
  for _p in $PIDS; do _count=$((_count + 1)); done
  seconds "$wall"
  _ran=$SECONDS_TEXT
  seconds "$_wait"
  add_note "$_count process(es) of the job outlived its main process (which ended by itself after ${_ran} s) by ${SECONDS_TEXT} s and were killed unchecked"
}

kill_phase() { # the kill order above; notes what it had to do
  cookie_pids
  others=
  for _p in $PIDS; do
    [ "$_p" != "$pid" ] && others="$others $_p"
  done
  if [ "$TOOL_WRAPS" = 1 ] && [ -n "$others" ]; then
    kill -s TERM $others 2>/dev/null
    if ! await_gone "$KILL_GRACE_CS" $others; then
      live_of $others
      [ -n "$LIVE" ] && kill -s KILL $LIVE 2>/dev/null
      add_note "target ignored SIGTERM, killed"
    fi
    if await_gone "$WRITE_GRACE_CS" "$pid"; then
      add_note "compute-sanitizer finished writing after the target was stopped"
    else
      seconds "$WRITE_GRACE_CS"
      add_note "compute-sanitizer did not finish within ${SECONDS_TEXT%.00} s of the target's end"
    fi
  fi
  if alive "$pid"; then
    if [ "$SESSION" = 1 ]; then kill -s TERM -- "-$pid" 2>/dev/null; fi
    kill -s TERM "$pid" 2>/dev/null
    if ! await_gone "$KILL_GRACE_CS" "$pid" $others; then
      if [ "$SESSION" = 1 ]; then kill -s KILL -- "-$pid" 2>/dev/null; fi
      kill -s KILL "$pid" 2>/dev/null
      add_note "processes ignored SIGTERM, killed"
    fi
  fi
}

STOP_BY_SIGNAL=
trap 'STOP_BY_SIGNAL=abort' TERM INT HUP

rm -f "$dir/exit.status" "$dir/exit.status.tmp"
echo "$$" > "$dir/supervisor.pid"
heartbeat

sidecar=
if [ "$SIDECAR" = 1 ]; then
  sh "$dir/sidecar.sh" < /dev/null &
  sidecar=$!
fi

now_cs
start=$NOW
if command -v setsid > /dev/null 2>&1; then
  SESSION=1
  GPU_SANITIZE_COOKIE=$COOKIE setsid sh "$dir/phase.sh" < /dev/null > "$dir/stdout.log" 2> "$dir/stderr.log" &
else
  SESSION=0
  GPU_SANITIZE_COOKIE=$COOKIE sh "$dir/phase.sh" < /dev/null > "$dir/stdout.log" 2> "$dir/stderr.log" &
fi
pid=$!
echo "$pid" > "$dir/target.pid"

why=
while :; do
  if ! alive "$pid"; then break; fi
  now_cs
  elapsed=$((NOW - start))
  if [ -n "$STOP_BY_SIGNAL" ]; then why=signal; break; fi
  if [ -n "$OWNER_PID" ] && ! owner_alive; then why=owner; break; fi
  if [ -f "$dir/stop" ]; then why=stop; break; fi
  # nothing of the phase can be recorded and the runner takes a silent supervisor for gone: stop it
  if [ -n "$DIR_LOST" ]; then why=lost; break; fi
  # a target the runner learned while the phase ran (PHASE_DIR/target, centiseconds: a failure time found after the
  # regression run started beside the sanitizer run); read once
  if [ -z "$LATE_TARGET" ] && [ -f "$dir/target" ]; then
    { read -r LATE_TARGET < "$dir/target"; } 2>/dev/null
    case $LATE_TARGET in '' | *[!0-9]*) LATE_TARGET= ;; *) STOP_AT_CS=$LATE_TARGET ;; esac
  fi
  if [ -n "$STOP_AT_CS" ] && [ "$elapsed" -ge "$STOP_AT_CS" ] && [ "$STOP_AT_CS" -le "$TIMEOUT_CS" ]; then
    why=target
    break
  fi
  if [ "$elapsed" -ge "$TIMEOUT_CS" ]; then why=timeout; break; fi
  heartbeat
  sleep $TICK
done

if [ -n "$why" ]; then kill_phase; fi
now_cs
wall=$((NOW - start))
wait "$pid"
code=$?
# only after a success: a failed main process is judged by its failure, and a crash often orphans children
if [ -z "$why" ] && [ "$code" = 0 ] && [ ! -f "$dir/start.error" ] && [ "$LEFTOVER_GRACE_CS" -gt 0 ]; then linger; fi
if [ -f "$dir/start.error" ]; then
  status=not-started
  code=
  NOTE=$(cat "$dir/start.error")
else
  case $why in
    '') if [ "$code" = 0 ]; then status=passed; else status=failed; fi ;;
    target)
      status=stopped-at-target
      seconds "$STOP_AT_CS"
      NOTE="stopped cleanly at the target of ${SECONDS_TEXT%?} s${NOTE:+; $NOTE}"
      ;;
    timeout)
      status=timed-out
      seconds "$TIMEOUT_CS"
      NOTE="killed after the timeout of ${SECONDS_TEXT%?} s${NOTE:+; $NOTE}"
      ;;
    owner)
      status=aborted
      NOTE="aborted: its owner (gpu-sanitize, pid $OWNER_PID) is gone${NOTE:+; $NOTE}"
      ;;
    signal)
      status=aborted
      NOTE="aborted: the supervisor was signalled${NOTE:+; $NOTE}"
      ;;
    lost)
      status=aborted
      NOTE="aborted: its run directory could not be written (deleted, or the disk full)${NOTE:+; $NOTE}"
      ;;
    stop)
      { read -r request reason < "$dir/stop"; } 2>/dev/null
      if [ "$request" = early ]; then
        status=stopped-early
        NOTE="${reason}${NOTE:+; $NOTE}"
      else
        status=aborted
        NOTE="aborted${NOTE:+; $NOTE}"
      fi
      ;;
  esac
fi
sweep
if [ -n "$sidecar" ]; then
  if alive "$sidecar"; then
    kill -s TERM "$sidecar" 2>/dev/null
    await_gone 300 "$sidecar" || kill -s KILL "$sidecar" 2>/dev/null
    wait "$sidecar" 2>/dev/null
  else
    wait "$sidecar" 2>/dev/null
    echo "$?" > "$dir/sidecar.died"
  fi
fi
seconds "$wall"
{
  echo "status=$status"
  echo "exit=$code"
  echo "wall=$SECONDS_TEXT"
  echo "note=$NOTE"
} > "$dir/exit.status.tmp" && mv "$dir/exit.status.tmp" "$dir/exit.status"
