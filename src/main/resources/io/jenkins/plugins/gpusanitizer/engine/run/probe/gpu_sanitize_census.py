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


def locate(env=os.environ):
    """(cupti.h's folder, cuda.h's folder, the libcupti.so to link) or a sentence why not: the wheel's CUPTI first (the
    one torch's own profiler loads, so one libcupti in the process), the toolkit's after."""
    wheels, toolkits = _wheel_roots(), _toolkit_roots(env)
    header_patterns = ["include/%s", "*/include/%s", "targets/*/include/%s", "extras/CUPTI/include/%s"]
    lib_patterns = ["lib/libcupti.so*", "*/lib/libcupti.so*", "lib64/libcupti.so*", "targets/*/lib/libcupti.so*",
                    "extras/CUPTI/lib64/libcupti.so*"]
    for roots in (wheels, toolkits, wheels + toolkits):
        cupti_h = _find(roots, [p % "cupti.h" for p in header_patterns])
        lib = _find(roots, lib_patterns)
        cuda_h = _find(roots + toolkits, [p % "cuda.h" for p in header_patterns])
        if cupti_h and lib and cuda_h:
            return os.path.dirname(cupti_h), os.path.dirname(cuda_h), lib
    return "no CUPTI found (cupti.h, cuda.h and libcupti.so in torch's nvidia wheels or a CUDA toolkit: " \
           "CUDA_HOME, nvcc's, /usr/local/cuda)"


def build(out, env=os.environ):
    """The census library in OUT (built now, or by another process of this run before), or None (build.log says why)."""
    target = os.path.join(out, LIBRARY)
    if os.path.exists(target):
        return target
    compiler = env.get("CC") or shutil.which("cc", path=env.get("PATH")) or shutil.which("gcc", path=env.get("PATH"))
    if not compiler:
        _log(out, "no census: no C compiler (cc, gcc or $CC) on the job's PATH")
        return None
    found = locate(env)
    if isinstance(found, str):
        _log(out, "no census: " + found)
        return None
    cupti_inc, cuda_inc, lib = found
    partial = "%s.%d.tmp" % (target, os.getpid())
    argv = [compiler, "-shared", "-fPIC", "-O2", "-I" + cupti_inc, "-I" + cuda_inc, _SOURCE, "-o", partial, lib,
            "-Wl,-rpath," + os.path.dirname(lib), "-lpthread"]
    try:
        done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60,
                              env={k: v for k, v in env.items() if k != "CUDA_INJECTION64_PATH"})
    except (OSError, subprocess.SubprocessError) as e:
        _log(out, "no census: %s: %s" % (" ".join(argv), e))
        return None
    if done.returncode != 0:
        _log(out, "no census: %s exited %d: %s" % (" ".join(argv), done.returncode,
                                                   done.stdout.decode("utf-8", "replace")[-2000:]))
        try:
            os.unlink(partial)
        except OSError:
            pass
        return None
    os.replace(partial, target)
    _log(out, "built: " + " ".join(argv))
    return target


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
