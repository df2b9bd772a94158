package io.jenkins.plugins.gpusanitizer.engine.model;

/**
 * The run directory's file names (documented in README.md), shared by the runner that writes them and
 * everything that reads a run back (the analyzer, {@code analyze --run-dir}, the build folder). Here, below
 * both, so that a reader needs no part of the runner:
 * <pre>
 * run.json  report.json  report.html
 * env/                      nvidia-smi.txt, nvidia-smi-query.csv, nvcc-version.txt, python-probe.txt, compute-sanitizer-version.txt
 * sanitizer-TOOL/           command.txt, stdout.log, stderr.log, sanitizer.log (--log-file), sanitizer.xml (--xml --save)
 * blocking/                 command.txt, stdout.log, stderr.log, probe.jsonl, generated/ (torch.compile's code the output names: files.tsv, copies)
 * blocking-cut/             the blocking run cut when the sanitizer runs ended clean, kept when it ran again in full
 * blocking-before-environment-check/  a blocking run started before the environment check answered and run again
 *                           with the answer's settings; a GPU crash in it is judged
 * regression/               command.txt, stdout.log, stderr.log, nvidia-smi.csv, nvidia-smi.err, probe.jsonl,
 *                           probe-oom-snapshot-PID.pickle (the allocator snapshot of a process that died of an OOM)
 * probe/                    sitecustomize.py, gpu_sanitize_probe.py (the in-process probe, docs/probe.md)
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
    public static final String PROBE_JSONL = "probe.jsonl";

    private RunLayout() {}
}
