"""The kernel census of the blocking run (issue #49, docs/probe.md): gpu_sanitize_census.c beside this file, built in
the job's own environment into the run's census folder and handed to the CUDA driver through CUDA_INJECTION64_PATH
before the job initialises CUDA, so that the report can say which of the kernels the plain run launched the sanitizer
run checked.

Armed only where the runner set GPU_SANITIZE_CENSUS_DIR (the blocking run) and the job set no CUDA_INJECTION64_PATH of
its own (a profiler's: the driver loads one injection). Built once per run (the first process that gets here; the
others, torchrun's ranks, take the same library: an atomic rename, never half a file), with the job's C compiler (cc,
or $CC: the one Triton uses) against the CUPTI its torch brings (the nvidia wheels), else the CUDA toolkit's. Whatever
stops it is written to census/build.log and the job runs as it would have: a census is evidence, never a condition.
Child processes inherit the variable, so each process that launches kernels writes census-PID.jsonl.

CUPTI takes one subscriber per process before CUDA 13.3: a job that starts torch.profiler (Kineto) in its blocking run
finds the census holding it and profiles without CUDA activity there (the blocking run's output only; the regression
run, whose outputs the working directory gets, has no census). GPU_SANITIZE_CENSUS=0 in the job's environment turns
it off.
"""

import glob
import os
import shutil
import subprocess
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_SOURCE = os.path.join(_HERE, "gpu_sanitize_census.c")
LIBRARY = "launch_census.so"


def _log(out, line):
    try:
        with open(os.path.join(out, "build.log"), "a") as f:
            f.write(line.rstrip("\n") + "\n")
    except OSError:
        pass


def _wheel_roots():
    """The folders of the nvidia wheels torch depends on (nvidia/cuda_cupti, nvidia/cu13, ...), found without importing
    torch or them: the probe imports nothing of the job's."""
    roots = []
    for entry in sys.path:
        base = os.path.join(entry or ".", "nvidia")
        if os.path.isdir(base):
            roots.append(base)
    return roots


def _toolkit_roots(env):
    roots = [env.get("CUDA_HOME"), env.get("CUDA_PATH")]
    nvcc = shutil.which("nvcc", path=env.get("PATH"))
    if nvcc:
        roots.append(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))))
    roots.append("/usr/local/cuda")
    return [r for r in roots if r and os.path.isdir(r)]


def _find(roots, patterns):
    for root in roots:
        for pattern in patterns:
            hits = sorted(glob.glob(os.path.join(root, pattern)))
            if hits:
                return hits[0]
    return None


def candidates(env=os.environ):
    """The (include folders, libcupti.so) pairs to build with, in order: the wheel's CUPTI with the wheel's headers (the
    libcupti torch's own profiler loads, so one in the process), the wheel's library with a toolkit's headers (a cu13
    wheel's include folder lacks crt/host_defines.h, which cuda.h's types need: seen on the H100, torch 2.11+cu130),
    then a toolkit's own. Empty when no CUPTI is found."""
    wheels, toolkits = _wheel_roots(), _toolkit_roots(env)
    header_patterns = ["include/%s", "*/include/%s", "targets/*/include/%s", "extras/CUPTI/include/%s"]
    lib_patterns = ["lib/libcupti.so*", "*/lib/libcupti.so*", "lib64/libcupti.so*", "targets/*/lib/libcupti.so*",
                    "extras/CUPTI/lib64/libcupti.so*"]

    def headers(roots):
        cupti_h = _find(roots, [p % "cupti.h" for p in header_patterns])
        cuda_h = _find(roots, [p % "cuda.h" for p in header_patterns])
        return [os.path.dirname(cupti_h), os.path.dirname(cuda_h)] if cupti_h and cuda_h else None

    wheel_headers, toolkit_headers = headers(wheels), headers(toolkits)
    wheel_lib, toolkit_lib = _find(wheels, lib_patterns), _find(toolkits, lib_patterns)
    found = []
    for include, lib in ((wheel_headers, wheel_lib), (toolkit_headers, wheel_lib), (toolkit_headers, toolkit_lib)):
        if include and lib and (include, lib) not in found:
            found.append((include, lib))
    return found


def build(out, env=os.environ):
    """The census library in OUT (built now, or by another process of this run before), or None (build.log says why)."""
    target = os.path.join(out, LIBRARY)
    if os.path.exists(target):
        return target
    compiler = env.get("CC") or shutil.which("cc", path=env.get("PATH")) or shutil.which("gcc", path=env.get("PATH"))
    if not compiler:
        _log(out, "no census: no C compiler (cc, gcc or $CC) on the job's PATH")
        return None
    tries = candidates(env)
    if not tries:
        _log(out, "no census: no CUPTI found (cupti.h, cuda.h and libcupti.so in torch's nvidia wheels or a CUDA "
                  "toolkit: CUDA_HOME, nvcc's, /usr/local/cuda)")
        return None
    partial = "%s.%d.tmp" % (target, os.getpid())
    for include, lib in tries:
        argv = [compiler, "-shared", "-fPIC", "-O2"] + ["-I" + i for i in dict.fromkeys(include)] + [
            _SOURCE, "-o", partial, lib, "-Wl,-rpath," + os.path.dirname(lib), "-lpthread"]
        try:
            done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60,
                                  env={k: v for k, v in env.items() if k != "CUDA_INJECTION64_PATH"})
        except (OSError, subprocess.SubprocessError) as e:
            _log(out, "not built: %s: %s" % (" ".join(argv), e))
            continue
        if done.returncode == 0:
            os.replace(partial, target)
            _log(out, "built: " + " ".join(argv))
            return target
        _log(out, "not built: %s exited %d: %s" % (" ".join(argv), done.returncode,
                                                   done.stdout.decode("utf-8", "replace")[-1500:]))
    try:
        os.unlink(partial)
    except OSError:
        pass
    _log(out, "no census: no build succeeded (above)")
    return None


def install(env=os.environ):
    """Arms the census for this process and its children; True when it did."""
    out = env.get("GPU_SANITIZE_CENSUS_DIR")
    if not out:
        return False
    try:
        os.makedirs(out, exist_ok=True)
    except OSError:
        return False
    if env.get("GPU_SANITIZE_CENSUS") == "0":
        _log(out, "no census: off (GPU_SANITIZE_CENSUS=0 in the job's environment)")
        return False
    if env.get("CUDA_INJECTION64_PATH") and not env["CUDA_INJECTION64_PATH"].endswith(LIBRARY):
        _log(out, "no census: the job sets CUDA_INJECTION64_PATH=%s (the driver loads one injection)"
             % env["CUDA_INJECTION64_PATH"])
        return False
    try:
        library = build(out, env)
    except Exception as e:  # never into the job
        _log(out, "no census: %r" % (e,))
        return False
    if library is None:
        return False
    os.environ["CUDA_INJECTION64_PATH"] = library
    return True
