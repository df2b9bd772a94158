#!/bin/sh
# GPU Sanitizer phase supervisor (docs/execution.md).
#
# Runs one phase's process (PHASE_DIR/phase.sh) in a session of its own and watches it: the time
# limit, the clean stop at the target time (or at one the runner learned later: PHASE_DIR/target), a stop request
# (PHASE_DIR/stop, written by the runner)
# and its owner (the gpu-sanitize JVM, unless the run was started detached on purpose). However the
# phase ends it kills in the order compute-sanitizer needs (the job first; then the tool gets its
# write grace to write its XML and summary; then the session), sweeps what is left of the phase and
# writes PHASE_DIR/exit.status. What is left of the phase is found by what its processes cannot shed
# without effort, not by a variable alone: the phase's session (a process that clears its environment,
# `env -i`, or takes a process group of its own stays in it), this supervisor's descendants (it makes
# itself a child subreaper where the system's perl or python3 can, so that a double fork that also calls
# setsid is reparented to it rather than to init), and the phase's cookie variable (DataLoader workers
# that left the tree and the session). Never a process outside these: other users' jobs, the runner.
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
LEFTOVER_GRACE_CS=0 LEFTOVER_MAX_CS=0 SUBREAPER=
. "$conf"

# The child subreaper (prctl PR_SET_CHILD_SUBREAPER), which sh cannot set: the system's perl (perl-base is in every
# Debian and Ubuntu image; a start costs a few milliseconds) or else a python3 of the system (tens of milliseconds)
# sets it and runs this script again in its own place, with this very shell (same pid; the setting survives exec).
# Each candidate is tried first: an interpreter that cannot start would take this supervisor with it.
#
# perl calls prctl by its system call's number, known here for x86_64 (157) and aarch64 (167): elsewhere it is not
# a candidate. It hands on the environment as it found it: PERL_BADLANG=0, which keeps it from warning of a locale
# the image lacks, is set for perl alone (the job gets the value it had, or none).
REAPER_PL='
use Config;
my ($badlang, $had_badlang, $shell, @args) = @ARGV;
if ($had_badlang) { $ENV{PERL_BADLANG} = $badlang } else { delete $ENV{PERL_BADLANG} }
my %prctl = (x86_64 => 157, aarch64 => 167);
my ($arch) = $Config{archname} =~ /^(x86_64|aarch64)-linux/;
my $ok = defined $arch && syscall($prctl{$arch}, 36, 1, 0, 0, 0) == 0;
$ENV{GPU_SANITIZE_SUBREAPER} = $ok ? $^X : "-";
exit 0 if $shell eq "--probe" && $ok;
exit 1 if $shell eq "--probe";
for my $sh ($shell, "/bin/sh") { exec { $sh } "sh", @args if $sh ne "" && -x $sh }
'
# python3 hands on the environment this shell started with (python adds LC_CTYPE to a C locale's) and the
# dispositions of SIGPIPE and SIGXFSZ (python ignores both; the job must die of them as before).
REAPER_PY='
import ctypes, os, signal, sys
env = {}
with open("/proc/self/environ", "rb") as f:
    for item in f.read().split(b"\0"):
        name, eq, value = item.partition(b"=")
        if eq:
            env[name] = value
try:
    one, zero = ctypes.c_ulong(1), ctypes.c_ulong(0)
    ok = ctypes.CDLL(None).prctl(36, one, zero, zero, zero) == 0
except Exception:
    ok = False
env[b"GPU_SANITIZE_SUBREAPER"] = (sys.executable if ok else "-").encode()
ignored = int(sys.argv[1], 16)
for sig in (signal.SIGPIPE, signal.SIGXFSZ):
    signal.signal(sig, signal.SIG_IGN if ignored >> (sig - 1) & 1 else signal.SIG_DFL)
for shell in (sys.argv[2], "/bin/sh"):
    if shell and os.access(shell, os.X_OK):
        os.execve(shell, ["sh"] + sys.argv[3:], env)
'

# What this system's tools can do is probed by a run's first phase and kept beside this script (PROBED) for the
# phases after it: each probe is a process or two, a python3 start costs tens of milliseconds, and a run starts
# many phases. The file is taken only with the mount namespace it was written in (the first line of
# /proc/self/mountinfo: a container sees other mounts) and only with values this script could have written; one
# that cannot be written or read costs nothing but the probes again.
PROBED="$0.probed"
{ read -r _namespace < /proc/self/mountinfo; } 2>/dev/null
remember_probe() { # remember_probe NAME VALUE: PROBED's line for NAME, the file replaced whole (mv is atomic)
  _keep=
  _ours=
  { while read -r _name _value; do
      case $_name in
        namespace) [ "$_value" = "$_namespace" ] && _ours=1 ;;
        "$1") ;;
        *) _keep="$_keep$_name $_value
" ;;
      esac
    done < "$PROBED"; } 2>/dev/null
  [ -n "$_ours" ] || _keep=
  { printf 'namespace %s\n%s%s %s\n' "$_namespace" "$_keep" "$1" "$2" > "$PROBED.$$" && mv -f "$PROBED.$$" "$PROBED"; } \
    2> /dev/null || rm -f "$PROBED.$$" 2> /dev/null
}
probed() { # probed NAME: PROBE, the value kept for NAME in this mount namespace; false when there is none
  PROBE=
  _seen=
  { while read -r _name _value; do
      case $_name in
        namespace) [ "$_value" = "$_namespace" ] && _seen=1 ;;
        "$1") PROBE=$_value ;;
      esac
    done < "$PROBED"; } 2>/dev/null
  [ -n "$_seen" ] && [ -n "$PROBE" ]
}

if [ "$SUBREAPER" = 1 ] && [ -z "${GPU_SANITIZE_SUBREAPER:-}" ]; then
  _ignored=0
  { while read -r _key _value; do
      if [ "$_key" = SigIgn: ]; then _ignored=$_value; break; fi
    done < "/proc/$$/status"; } 2>/dev/null
  _reaper=
  if probed reaper; then
    # only a candidate: the file names nothing else to run
    case $PROBE in /usr/bin/perl | /usr/bin/python3 | /usr/local/bin/python3 | /opt/conda/bin/python3) [ -x "$PROBE" ] && _reaper=$PROBE ;; esac
  fi
  if [ -z "$_reaper" ]; then
    if [ -x /usr/bin/perl ] && PERL_BADLANG=0 /usr/bin/perl -e "$REAPER_PL" 0 1 --probe > /dev/null 2>&1; then
      _reaper=/usr/bin/perl
    else
      for _py in /usr/bin/python3 /usr/local/bin/python3 /opt/conda/bin/python3; do
        if [ -x "$_py" ] && "$_py" -I -S -c 'import ctypes, os, signal' > /dev/null 2>&1; then
          _reaper=$_py
          break
        fi
      done
    fi
    [ -n "$_reaper" ] && remember_probe reaper "$_reaper"
  fi
  if [ -n "$_reaper" ]; then
    # this shell's binary, kept too: it is taken only when it is the very file this shell runs from
    _shell=
    if probed "exe${BASH_VERSION:+-bash}" && [ "$PROBE" -ef "/proc/$$/exe" ] 2> /dev/null; then
      _shell=$PROBE
    else
      # the usual places first, with test's -ef (no process); readlink for any other
      for _candidate in /bin/dash /usr/bin/dash /bin/bash /usr/bin/bash /bin/busybox /usr/bin/busybox /bin/sh; do
        if [ "$_candidate" -ef "/proc/$$/exe" ] 2> /dev/null; then
          _shell=$_candidate
          break
        fi
      done
      [ -n "$_shell" ] || _shell=$(readlink "/proc/$$/exe" 2> /dev/null)
      case $_shell in /*) remember_probe "exe${BASH_VERSION:+-bash}" "$_shell" ;; esac
    fi
    case $_reaper in
      */perl)
        _badlang=${PERL_BADLANG-}
        _had_badlang=${PERL_BADLANG+1}
        PERL_BADLANG=0 exec "$_reaper" -e "$REAPER_PL" "$_badlang" "$_had_badlang" "$_shell" "$0" "$@"
        ;;
      *) exec "$_reaper" -I -S -c "$REAPER_PY" "$_ignored" "$_shell" "$0" "$@" ;;
    esac
  fi
fi
SUBREAPER_BY=${GPU_SANITIZE_SUBREAPER:-}
unset GPU_SANITIZE_SUBREAPER
# WALK: the phase's processes are this supervisor's descendants, read from /proc/PID/task/TID/children (Linux 3.5+
# with CONFIG_PROC_CHILDREN, as in the distributions' kernels); otherwise every process's stat and environ is read
WALK=
if [ "$SUBREAPER" = 1 ]; then
  case $SUBREAPER_BY in
    '' | -) echo "supervise.sh: not a child subreaper (no perl or python3 of the system that could make it one): a process" \
      "that leaves the phase's session, its cookie and its parent is not found" ;;
    *)
      if [ -r "/proc/$$/task/$$/children" ]; then
        WALK=1
        echo "supervise.sh: a child subreaper (through $SUBREAPER_BY): the phase is its descendants"
      else
        echo "supervise.sh: a child subreaper (through $SUBREAPER_BY)"
      fi
      ;;
  esac
fi

# TICK: the polls' interval (a sleep that takes no fraction: 1 s); GREP_Z: grep reads NUL-separated records;
# CHLD_WAKES: a trap on SIGCHLD ends a wait at once (dash, ash: the main loop then sleeps WAKE, not TICK, and still
# sees the phase's end at once; bash's wait goes on, so it polls every TICK)
# (bash keeps a line of its own: its wait is another)
SHELL_PROBE=shell${BASH_VERSION:+-bash}
if probed "$SHELL_PROBE" && case $PROBE in 0.1:[01]:[01] | 1:[01]:[01]) true ;; *) false ;; esac; then
  TICK=${PROBE%%:*}
  _rest=${PROBE#*:}
  GREP_Z=${_rest%:*}
  CHLD_WAKES=${_rest#*:}
else
  TICK=0.1
  sleep 0.01 2>/dev/null || TICK=1
  GREP_Z=0
  if printf 'a\0' | grep -qxzF a 2>/dev/null; then GREP_Z=1; fi
  CHLD_WAKES=0
  if [ -z "${BASH_VERSION:-}" ] && (trap ': ' CHLD) 2> /dev/null; then CHLD_WAKES=1; fi
  remember_probe "$SHELL_PROBE" "$TICK:$GREP_Z:$CHLD_WAKES"
fi
WAKE=$TICK
[ "$CHLD_WAKES" = 1 ] && [ "$TICK" = 0.1 ] && WAKE=0.5

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

NL='
'
SID= # the phase's session (its main process's pid, when setsid made it one), until it is seen empty

scan() { # TREE: this supervisor's live descendants, but the sidecar's; MEMBERS: the live processes of the session SID
  TREE=
  MEMBERS=
  # every process's stat in one read: dash's read costs a system call per byte
  _all=$(cat /proc/[0-9]*/stat 2> /dev/null)
  _links=
  set -f
  _ifs=$IFS
  IFS=$NL
  for _line in $_all; do
    IFS=' '
    # the fields after the command name, which may hold spaces and parentheses; a newline in it leaves too
    # few fields (the name has at most 15 bytes), and the process is not taken on a forged line
    set -- ${_line##*) }
    _p=${_line%% (*}
    case $_p in '' | *[!0-9]*) continue ;; esac
    [ $# -ge 20 ] || continue
    case $1 in Z | X) continue ;; esac
    _links="$_links $_p:$2"
    if [ -n "$SID" ] && [ "$4" = "$SID" ]; then MEMBERS="$MEMBERS $_p"; fi
  done
  IFS=$_ifs
  set +f
  _tree=" $$ "
  _grown=1
  while [ -n "$_grown" ]; do
    _grown=
    for _link in $_links; do
      _p=${_link%:*}
      [ "$_p" = "$sidecar" ] && continue
      case $_tree in *" $_p "*) continue ;; esac
      case $_tree in *" ${_link#*:} "*)
        _tree="$_tree$_p "
        _grown=1
        ;;
      esac
    done
  done
  TREE=${_tree# $$ }
}

descendants() { # TREE: this supervisor's descendants but the sidecar (and its own), read from the children files
  TREE=
  _level=$$
  while [ -n "$_level" ]; do
    _next=
    for _p in $_level; do
      # a thread's children are listed under that thread
      for _file in /proc/"$_p"/task/*/children; do
        _kids=
        { read -r _kids < "$_file"; } 2> /dev/null
        for _k in $_kids; do
          [ "$_k" = "$sidecar" ] && continue
          case " $TREE " in *" $_k "*) continue ;; esac
          TREE="$TREE $_k"
          _next="$_next $_k"
        done
      done
    done
    _level=$_next
  done
}

phase_pids() { # PIDS: the live processes of the phase: its session's, this supervisor's descendants, its cookie's
  if [ -n "$WALK" ]; then
    # a child subreaper's descendants are the whole phase: every process of the session and every one that carries
    # the cookie descends from the phase's main process, and when its parent ends it is reparented to the nearest
    # subreaper among its ancestors, this one or one below it; no other process needs to be read
    descendants
    PIDS=
    for _p in $TREE; do
      [ "$_p" = "$OWNER_PID" ] && continue
      if alive "$_p"; then PIDS="$PIDS $_p"; fi
    done
    return 0
  fi
  cookie_pids
  _cookie=$PIDS
  scan
  PIDS=
  for _p in $MEMBERS $TREE $_cookie; do
    case " $PIDS " in *" $_p "*) continue ;; esac
    if [ "$_p" = "$$" ] || [ "$_p" = "$OWNER_PID" ]; then continue; fi
    # alive still: the scan's own cat was a descendant while it read
    if alive "$_p"; then PIDS="$PIDS $_p"; fi
  done
  # A session once empty after its main process ended is over: a process cannot join a session, and a later one
  # of that number (the pid reused) is someone else's. While a member lives, the number is not reused.
  if [ -n "$SID" ] && [ -z "$MEMBERS" ] && ! alive "$pid"; then SID=; fi
}

uid_of() { # UID_OF: the real uid of a process, or empty when gone
  UID_OF=
  { while read -r _key _uid _rest; do
      if [ "$_key" = Uid: ]; then
        UID_OF=$_uid
        break
      fi
    done < "/proc/$1/status"; } 2> /dev/null
}
uid_of $$
MY_UID=$UID_OF

describe() { # DESC: "PID (COMMAND)", "PID (uid N: COMMAND)" for another user's, the command line cut at 100 bytes
  _cmd=$(head -c 100 "/proc/$1/cmdline" 2> /dev/null | LC_ALL=C tr -c '[:print:]' ' ')
  while :; do
    case $_cmd in *' ') _cmd=${_cmd% } ;; *) break ;; esac
  done
  [ "${#_cmd}" -ge 99 ] && _cmd="$_cmd..."
  uid_of "$1"
  if [ -n "$UID_OF" ] && [ "$UID_OF" != "$MY_UID" ]; then
    DESC="$1 (uid $UID_OF: ${_cmd:-?})"
  else
    DESC="$1 (${_cmd:-?})"
  fi
}

live_of() { # LIVE: those of the given pids still alive
  LIVE=
  for _p in "$@"; do
    if alive "$_p"; then LIVE="$LIVE $_p"; fi
  done
}

nap() { # the main loop's wait: WAKE, or less where the phase's end (SIGCHLD) or a stop signal ends it at once
  if [ "$CHLD_WAKES" = 1 ]; then
    sleep "$WAKE" &
    _tick=$!
    # the trap of a phase that ended since the loop looked has run already and would not end this wait: a look
    # right before it narrows that window from the loop's checks and the tick's fork to one read
    _woken=129
    if alive "$pid"; then
      wait "$_tick"
      _woken=$?
    fi
    # over 128: a trap ended the wait (ash says so for the tick's own end too), or the phase had ended; the tick may
    # still sleep: it goes now, not later into the sweep, which would count it as the phase's
    if [ "$_woken" -gt 128 ]; then
      alive "$_tick" && kill "$_tick" 2> /dev/null
      wait "$_tick" 2> /dev/null # dash says "Terminated" there
    fi
  else
    sleep $TICK
  fi
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
KILLED_PIDS= # the pids the sweep killed, for exit.status's killed= (the note names the first five, for a reader)
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

SWEPT= # the pids the sweep signalled, each with its description on a line of its own
remember() { # notes the pids not yet in SWEPT, described while they still run
  for _p in "$@"; do
    case "$NL$SWEPT" in *"$NL$_p "*) continue ;; esac
    describe "$_p"
    SWEPT="$SWEPT$_p $DESC$NL"
  done
}

signal_each() { # signal_each SIGNAL PID...: SENT: those signalled (the others are gone, or not this user's to signal)
  _signal=$1
  shift
  SENT=
  for _p in "$@"; do
    if kill -s "$_signal" "$_p" 2> /dev/null; then SENT="$SENT $_p"; fi
  done
}

GONE= # set when a look found no process of the phase after its main process ended: none can come back
sweep() { # ends what is left of the phase: SIGTERM (docker run passes it on), then SIGKILL; says what and whom
  [ -n "$GONE" ] && return 0
  phase_pids
  [ -n "$PIDS" ] || return 0
  remember $PIDS
  signal_each TERM $PIDS
  [ -n "$SENT" ] && await_gone "$KILL_GRACE_CS" $SENT
  # twice: what they forked meanwhile
  for _round in 1 2; do
    phase_pids
    _new=
    for _p in $PIDS; do
      case "$NL$SWEPT" in *"$NL$_p "*) [ "$_round" = 1 ] && _new="$_new $_p" ;; *) _new="$_new $_p" ;; esac
    done
    [ -n "$_new" ] || break
    remember $_new
    signal_each KILL $_new
    [ -n "$SENT" ] && await_gone 500 $SENT
  done
  _killed=
  _count=0
  _stuck=
  set -f
  _ifs=$IFS
  IFS=$NL
  for _entry in $SWEPT; do
    IFS=$_ifs
    if alive "${_entry%% *}"; then
      _stuck="${_stuck:+$_stuck, }${_entry#* }"
    else
      _count=$((_count + 1))
      KILLED_PIDS="${KILLED_PIDS:+$KILLED_PIDS }${_entry%% *}"
      if [ "$_count" -le 5 ]; then _killed="${_killed:+$_killed, }${_entry#* }"; fi
    fi
  done
  IFS=$_ifs
  set +f
  [ "$_count" -gt 5 ] && _killed="$_killed and $((_count - 5)) more"
  [ "$_count" -gt 0 ] && add_note "$_count leftover process(es) of the phase killed: $_killed"
  [ -n "$_stuck" ] && add_note "could not kill $_stuck"
  return 0
}

# The main process ended by itself, with success, while processes of the phase run on. They get as long as it ran (at least
# LEFTOVER_GRACE_CS: DataLoader workers notice their parent's end within 5 s; at most LEFTOVER_MAX_CS) to end on
# their own. Those still running then, after a main process that ran no longer than that wait, are the job's work
# going on unchecked (a launcher that backgrounds the job and exits): noted for the runner, which calls it an error.
linger() {
  phase_pids
  [ -n "$PIDS" ] || { GONE=1; return 0; }
  _wait=$wall
  [ "$_wait" -lt "$LEFTOVER_GRACE_CS" ] && _wait=$LEFTOVER_GRACE_CS
  [ "$_wait" -gt "$LEFTOVER_MAX_CS" ] && _wait=$LEFTOVER_MAX_CS
  now_cs
  _until=$((NOW + _wait))
  _scan_at=$NOW
  while :; do
    heartbeat
    sleep $TICK
    now_cs
    # a look at every process costs more than a tick's wait: twice a second
    if [ "$NOW" -ge "$_scan_at" ]; then
      phase_pids
      [ -z "$PIDS" ] && { GONE=1; return 0; }
      _scan_at=$((NOW + 50))
    fi
    # a stop or an abort meanwhile: the sweep ends them, nothing is concluded
    if [ -n "$STOP_BY_SIGNAL" ] || [ -f "$dir/stop" ]; then return 0; fi
    [ "$NOW" -ge "$_until" ] && break
  done
  phase_pids
  [ -n "$PIDS" ] || { GONE=1; return 0; }
  [ "$wall" -le "$_wait" ] || return 0
  _count=0
  for _p in $PIDS; do _count=$((_count + 1)); done
  seconds "$wall"
  _ran=$SECONDS_TEXT
  seconds "$_wait"
  add_note "$_count process(es) of the job outlived its main process (which ended by itself after ${_ran} s) by ${SECONDS_TEXT} s and were killed unchecked"
}

kill_phase() { # the kill order above; notes what it had to do
  phase_pids
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
      # what was killed is gone before the sweep looks: a process still exiting is not a leftover
      await_gone 500 "$pid" $others
    fi
  fi
}

STOP_BY_SIGNAL=
trap 'STOP_BY_SIGNAL=abort' TERM INT HUP

if [ -e "$dir/exit.status" ] || [ -e "$dir/exit.status.tmp" ]; then rm -f "$dir/exit.status" "$dir/exit.status.tmp"; fi
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
# setsid made the phase's main process the leader of a session of its own (it forks only for a process group
# leader, which a background job of this shell is not); without setsid the phase shares this shell's session, the
# runner's: never swept by session then
[ "$SESSION" = 1 ] && SID=$pid

why=
# the trap is what ends nap's wait at once: a command (no more than the null one) must be set, not ignored
[ "$CHLD_WAKES" = 1 ] && trap ': ' CHLD
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
  nap
done
# from here on a wait is for a process's end only: a child's end must not cut it short
[ "$CHLD_WAKES" = 1 ] && trap - CHLD

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
  echo "killed=$KILLED_PIDS"
} > "$dir/exit.status.tmp" && mv "$dir/exit.status.tmp" "$dir/exit.status"
