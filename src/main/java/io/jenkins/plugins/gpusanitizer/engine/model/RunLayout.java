package io.jenkins.plugins.gpusanitizer.engine.model;

import java.util.List;

/**
 * The run directory's file names (documented in docs/cli.md), shared by the runner that writes them and
 * everything that reads a run back (the analyzer, {@code analyze --run-dir}, the build folder). Here, below
 * both, so that a reader needs no part of the runner:
 * <pre>
 * run.json  report.json  report.html
 * env/                      nvidia-smi.txt, nvidia-smi-query.csv, nvcc-version.txt, python-probe.txt, compute-sanitizer-version.txt
 * sanitizer-TOOL/           command.txt, stdout.log, stderr.log, sanitizer.log (--log-file), sanitizer.xml (--xml --save)
 *                           probe.jsonl, alloc-PID.jsonl and alloc-PID.prev.jsonl (memcheck uncached: each process's
 *                           allocations, the buffers out-of-bounds accesses ran past are named from them)
 * blocking/                 command.txt, stdout.log, stderr.log, probe.jsonl, census/ (the kernel census: census-PID.jsonl,
 *                           build.log; issue #49), generated/ (torch.compile's code the output names: files.tsv, copies),
 *                           nvidia-smi.csv (on one GPU: the card beside the sanitizer run, read for the regression run's place)
 * regression-beside-sanitizer/  a regression run that ran out of memory beside the sanitizer run, run again alone
 * blocking-cut/             the blocking run cut when the sanitizer runs ended clean, kept when it ran again in full
 * blocking-before-environment-check/  a blocking run started before the environment check answered and run again
 *                           with the answer's settings; a GPU crash in it is judged
 * regression/               command.txt, stdout.log, stderr.log, nvidia-smi.csv, nvidia-smi.err (the card's total),
 *                           nvidia-smi-apps.csv, nvidia-smi-apps.err (each process's memory), gpu-pids.txt (which
 *                           of those processes were the phase's), probe.jsonl,
 *                           probe-oom-snapshot-PID.pickle (the allocator snapshot of a process that died of an OOM)
 * probe/                    sitecustomize.py and the {@link #PROBE_MODULES} (the in-process probe, docs/probe.md),
 *                           bin/ (its interpreter shims)
 * </pre>
 */
public final class RunLayout {
    public static final String RUN_JSON = "run.json";
    public static final String REPORT_JSON = "report.json";
    public static final String REPORT_HTML = "report.html";
    public static final String SANITIZER_LOG = "sanitizer.log";
    public static final String SANITIZER_XML = "sanitizer.xml";
    public static final String STDOUT = "stdout.log";
    public static final String STDERR = "stderr.log";
    public static final String MEMORY_CSV = "nvidia-smi.csv";
    /** nvidia-smi --query-compute-apps=timestamp,pid,used_memory samples: each process's memory on the card. */
    public static final String MEMORY_APPS_CSV = "nvidia-smi-apps.csv";

    public static final String MEMORY_APPS_ERR = "nvidia-smi-apps.err";
    /** The pids nvidia-smi listed, each marked as the phase's own or another's (memory-sampler.sh). */
    public static final String GPU_PIDS = "gpu-pids.txt";

    public static final String PROBE_JSONL = "probe.jsonl";

    /**
     * The in-process probe's modules in {@code probe/} (resources of engine/run/probe, docs/probe.md): the entry
     * point sitecustomize.py loads, then its parts, one concept each. A frame in one of them is the probe's, never
     * the job's.
     */
    public static final List<String> PROBE_MODULES = List.of(
            "gpu_sanitize_probe.py",
            "gpu_sanitize_core.py",
            "gpu_sanitize_frames.py",
            "gpu_sanitize_compile.py",
            "gpu_sanitize_alloc.py",
            "gpu_sanitize_blocking.py",
            "gpu_sanitize_no_import.py",
            "gpu_sanitize_sites.py",
            "gpu_sanitize_work.py",
            "gpu_sanitize_state.py",
            "gpu_sanitize_census.py",
            "gpu_sanitize_coverage.py");

    /** The kernel census's source beside the probe's modules: built by gpu_sanitize_census.py in the job's environment. */
    public static final String CENSUS_SOURCE = "gpu_sanitize_census.c";

    /** The blocking run's kernel census, a folder in its phase directory: census-PID.jsonl, build.log. */
    public static final String CENSUS_DIR = "census";

    private RunLayout() {}
}
