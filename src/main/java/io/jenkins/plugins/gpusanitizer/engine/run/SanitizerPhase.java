package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.analysis.Analyzer;
import io.jenkins.plugins.gpusanitizer.engine.findings.DefectGrouper;
import io.jenkins.plugins.gpusanitizer.engine.findings.RuntimeKernels;
import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.model.WorkPaths;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import io.jenkins.plugins.gpusanitizer.engine.parse.SanitizerOutput;
import io.jenkins.plugins.gpusanitizer.engine.parse.text.SanitizerTextParser;
import io.jenkins.plugins.gpusanitizer.engine.report.SanitizerPhaseStatus;
import io.jenkins.plugins.gpusanitizer.engine.run.environment.EnvironmentCheck;
import io.jenkins.plugins.gpusanitizer.engine.run.workspace.WorkspaceManifest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The sanitizer phase for one tool: the job under {@code compute-sanitizer}, with PyTorch's caching
 * allocator off unless asked (it hides small out-of-bounds writes), and the early stop.
 */
final class SanitizerPhase {
    /** compute-sanitizer's exit code when it found errors; distinct from the job's own codes. */
    static final int ERROR_EXIT = SanitizerPhaseStatus.ERROR_EXITCODE;

    /** {@link SanitizerPhaseStatus#endedByItself}. */
    static boolean endedByItself(String status, Integer exitCode) {
        return SanitizerPhaseStatus.endedByItself(status, exitCode);
    }

    /** memcheck's --padding, for the probe's allocation record (docs/probe.md). */
    static final String PROBE_PADDING = "GPU_SANITIZE_PROBE_PADDING";

    private final PhaseContext context;
    private final Tool tool;

    SanitizerPhase(PhaseContext context, Tool tool) {
        this.context = context;
        this.tool = tool;
    }

    /**
     * The tool's run; when the uncached allocator broke the job's CUDA graph capture (see
     * {@link CaptureConflict}), memcheck runs again with the caching allocator kept, so the job is still
     * checked: less finely (small out-of-bounds accesses inside cached blocks are invisible) but not at all
     * is worse. The first run stays in the run directory and is judged too: what it saw before the capture broke
     * (a small out-of-bounds write) the rerun may not see.
     */
    List<PhaseResult> run(String gpu) throws IOException {
        RunSpec spec = context.spec();
        PhaseResult first = once(gpu, false);
        boolean conflict = !spec.keepCachingAllocator()
                && CaptureConflict.brokeTheJob(first, context.dir().dir(first.directory()));
        if (!conflict
                || Thread.currentThread().isInterrupted()
                || context.environmentCheck().stopReason() != null) {
            return List.of(first);
        }
        String rerun = RunDirectory.cachedSanitizerDir(tool);
        PhaseResult noted = first.withNote("PYTORCH_NO_CUDA_MEMORY_CACHING=1 broke the job's CUDA graph capture "
                + "(cudaMalloc inside the capture: cudaErrorStreamCaptureUnsupported); rerun with the caching allocator kept as "
                + rerun);
        context.progress()
                .say(first.name() + ": the uncached allocator broke the job's CUDA graph capture; running " + tool.id()
                        + " again with the caching allocator kept");
        return List.of(noted, once(gpu, true));
    }

    private PhaseResult once(String gpu, boolean keepCaching) throws IOException {
        RunSpec spec = context.spec();
        String name = keepCaching ? RunDirectory.cachedSanitizerDir(tool) : RunDirectory.sanitizerDir(tool);
        Path phaseDir = Files.createDirectories(context.dir().dir(name));
        Path log = phaseDir.resolve(RunLayout.SANITIZER_LOG);
        Map<String, String> set = new LinkedHashMap<>();
        set.put("CUDA_VISIBLE_DEVICES", gpu);
        List<String> removed = new ArrayList<>(List.of("CUDA_LAUNCH_BLOCKING"));
        if (!spec.keepCachingAllocator() && !keepCaching) {
            set.put("PYTORCH_NO_CUDA_MEMORY_CACHING", "1");
        } else if (keepCaching) {
            removed.add("PYTORCH_NO_CUDA_MEMORY_CACHING");
        }
        // CuPy/NVRTC kernels' device lines name CuPy's cache file: a fresh cache beside the log makes CuPy
        // compile each kernel here and keep its source under that name (RuntimeKernels reads it); NVRTC kernels
        // carry no line table unless compiled with one (seen on the H200: a RawKernel's record had no device line),
        // so CuPy compiles them with --generate-line-info (and --device-debug: CuPy sets both) for this run only
        if (context.baseEnv().get("CUPY_CACHE_DIR") == null) {
            set.put(
                    "CUPY_CACHE_DIR",
                    phaseDir.resolve(RuntimeKernels.CUPY_CACHE_DIR).toString());
            set.put("CUPY_CACHE_SAVE_CUDA_SOURCE", "1");
            if (context.baseEnv().get("CUPY_CUDA_COMPILE_WITH_DEBUG") == null) {
                set.put("CUPY_CUDA_COMPILE_WITH_DEBUG", "1");
            }
        }
        // expandable_segments makes memcheck report false out-of-bounds writes (pytorch #196209)
        for (String variable : List.of("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF")) {
            String value = context.baseEnv().get(variable);
            if (value != null && value.contains("expandable_segments")) {
                removed.add(variable);
            }
        }
        // torch.compile's CUDA graph trees and autotuning do not run under the tool: the probe compiles in the default
        // mode
        Map<String, String> probe = context.probe().sanitizerEnv(phaseDir);
        set.putAll(probe);
        // coverage mode kernels: the probe ends the job at the step the blocking run's census decides (issue #49)
        CoverageStop coverage = CoverageStop.start(context, phaseDir, name, !probe.isEmpty());
        if (coverage != null) {
            set.put(CoverageStop.VARIABLE, coverage.stopFile().toString());
        }
        List<String> argv = argv(phaseDir, log);
        if (!probe.isEmpty()) {
            // the allocation record says the guard zone the driver counts in each size: BufferNamer matches exactly
            set.put(PROBE_PADDING, Long.toString(padding(argv)));
        }
        // the log is parsed again at most once per progress interval, not at every poll
        Throttle defects = new Throttle(Math.max(1, spec.progressIntervalSeconds()));
        // started beside the environment check, the run stops when the check finds the environment unusable
        EnvironmentCheck check = context.environmentCheck();
        Supplier<String> stopEarly = () -> {
            if (coverage != null) {
                coverage.poll();
            }
            String unusable = check.stopReason();
            if (unusable != null) {
                return unusable;
            }
            String full = printLimitReached(log);
            if (full != null) {
                return full;
            }
            return spec.stopAfterDefects() <= 0 ? null : defects.check(() -> enoughDefects(log));
        };
        PhaseResult result = context.launcher()
                .launch(PhaseCommand.builder(Phase.SANITIZER)
                        .name(name)
                        .argv(argv)
                        .set(set)
                        .removed(removed)
                        .gpu(gpu)
                        .directory(phaseDir)
                        .timeoutSeconds(spec.timeoutSeconds(Phase.SANITIZER))
                        .toolWrapsTarget()
                        .onProgress(elapsed -> context.progress()
                                .say(name + " running " + Math.round(elapsed) + " s, " + ProgressLog.recordsSoFar(log)
                                        + " error record(s) so far"))
                        .stopEarly(stopEarly)
                        .build());
        if (coverage != null) {
            coverage.afterTheRun(result, jobDied(log));
        }
        String work = RunJournal.workDirectory(spec.workDir());
        String copies = RunDirectory.copiesFolder(WorkspaceManifest.read(phaseDir, phaseDir.getParent()), work);
        return CompileModeNote.add(result, phaseDir, tool, context.reasons(), WorkPaths.of(work, copies));
    }

    /**
     * memcheck's --padding in the tool's own arguments (the last one given, {@code --padding N} or {@code
     * --padding=N}), 0 without one (memcheck's default) or for another tool.
     */
    long padding(List<String> argv) {
        if (tool != Tool.MEMCHECK) {
            return 0;
        }
        long padding = 0;
        int tail = argv.size() - RunSpec.argv(context.spec().sanitizerCommand()).size();
        for (int i = 0; i < tail; i++) {
            String a = argv.get(i);
            String value = a.equals("--padding") && i + 1 < tail
                    ? argv.get(i + 1)
                    : a.startsWith("--padding=") ? a.substring("--padding=".length()) : null;
            if (value != null) {
                try {
                    padding = Long.parseLong(value.trim());
                } catch (NumberFormatException e) {
                    // compute-sanitizer refuses it and the run fails: nothing to record
                }
            }
        }
        return padding;
    }

    private List<String> argv(Path phaseDir, Path log) {
        RunSpec spec = context.spec();
        List<String> argv = new ArrayList<>(List.of(
                context.environmentCheck().partial().computeSanitizerPath(),
                "--tool",
                tool.id(),
                "--xml",
                "--save",
                phaseDir.resolve(RunLayout.SANITIZER_XML).toString(),
                "--log-file",
                log.toString(),
                "--print-limit",
                Integer.toString(spec.printLimit()),
                "--error-exitcode",
                Integer.toString(ERROR_EXIT)));
        if (spec.extraSanitizerArgs().stream().noneMatch(a -> a.startsWith("--strip-paths"))) {
            // full paths in the text log too (the XML has them anyway): with basenames, Triton's driver.py
            // or any installed package's file reads as user code once the XML is lost
            argv.addAll(List.of("--strip-paths", "no"));
        }
        if (tool == Tool.MEMCHECK && spec.padding() > 0) {
            argv.addAll(List.of("--padding", Integer.toString(spec.padding())));
        }
        if (spec.excludeVendorKernels() && tool != Tool.INITCHECK) {
            // initcheck takes no kernel filter: what a left-out kernel writes reads as uninitialized
            // (InitcheckKernelFilter)
            argv.add(VendorKernels.argument());
        }
        argv.addAll(spec.extraSanitizerArgs());
        argv.addAll(RunSpec.argv(spec.sanitizerCommand()));
        return argv;
    }

    /**
     * The other early stop (issue #25, 3: initcheck on a clean transformer counted 1.3 million reads inside
     * PyTorch's own kernels and ran into its timeout). Once the tool printed --print-limit records it prints no
     * more: every defect the gate can see has been seen, the rest of the run would only add to the count. Never
     * a false pass: a run stopped here is not clean, and counted errors that were not printed are judged as such.
     */
    private String printLimitReached(Path log) {
        int limit = context.spec().printLimit();
        if (limit <= 0 || !RunDirectory.nonEmpty(log)) {
            return null;
        }
        long printed = ProgressLog.recordsSoFar(log);
        return printed >= limit
                ? "stopped early: the print limit of " + limit + " records was reached (compute-sanitizer prints no"
                        + " more, so no further defect could be seen; raise --print-limit to see more)"
                : null;
    }

    /**
     * The early stop: parses the log written so far (small: the print limit bounds it) and says why
     * to stop once it holds the asked number of distinct unsuppressed defects.
     */
    private String enoughDefects(Path log) {
        int wanted = context.spec().stopAfterDefects();
        if (!RunDirectory.nonEmpty(log)) {
            return null;
        }
        Checked checked = checkWritten(log);
        return checked != null && checked.open() >= wanted
                ? "stopped early: " + checked.open() + " distinct defect(s) seen (--stop-after-defects " + wanted + ")"
                : null;
    }

    /**
     * Whether this tool's run ended with nothing to answer for, so that the blocking run beside it may be cut:
     * compute-sanitizer finished and said so (its summary, no tool failure, no crash of the job, a job that saw the
     * GPU), and counted no
     * error, or only errors whose every record was printed and is suppressed as known noise. Anything less,
     * including a run stopped early or cut short, is not clean.
     */
    boolean endedClean(List<PhaseResult> results) {
        if (results.isEmpty()) {
            return false;
        }
        for (PhaseResult broken : results.subList(0, results.size() - 1)) {
            // the run whose capture broke is judged too: what it found before is not clean
            Checked before = check(context.dir().dir(broken.directory()).resolve(RunLayout.SANITIZER_LOG));
            if (before == null || before.open() > 0) {
                return false;
            }
        }
        PhaseResult last = results.get(results.size() - 1); // a rerun with the cache kept checked past the capture
        boolean exited = endedByItself(last.status(), last.exitCode());
        Path log = context.dir().dir(last.directory()).resolve(RunLayout.SANITIZER_LOG);
        if (!exited
                || !RunDirectory.nonEmpty(log)
                || NoGpuEvidence.in(context.dir().dir(last.directory())) != null) {
            return false;
        }
        Checked checked = check(log);
        if (checked == null) {
            return false;
        }
        SanitizerOutput out = checked.output();
        boolean finished = out.complete()
                && out.banner()
                && out.toolFailures().isEmpty()
                && out.problems().isEmpty()
                && !out.appCrashed()
                && !out.targetReturnedError()
                && out.errorsTotal() != null;
        boolean allSeen = out.errorsNotPrinted() == null || out.errorsNotPrinted() == 0;
        return finished
                && (out.errorsTotal() == 0
                        || allSeen && out.recordsParsed() >= out.errorsTotal() && checked.open() == 0);
    }

    /**
     * Whether the run died of PyTorch's out of memory having found nothing the gate keeps: on a card it shared with the
     * blocking or regression run, the sharing may have failed it, and running it again alone loses nothing.
     */
    boolean outOfMemoryFindingNothing(List<PhaseResult> results) {
        if (results.isEmpty() || !context.dir().ranOutOfMemory(results.get(results.size() - 1))) {
            return false;
        }
        for (PhaseResult r : results) {
            Checked checked = check(context.dir().dir(r.directory()).resolve(RunLayout.SANITIZER_LOG));
            if (checked == null || checked.open() > 0) {
                return false;
            }
        }
        return true;
    }

    private record Checked(SanitizerOutput output, long open) {}

    /** Whether the tool's log says that its target returned an error or died (the tool's exit code may not). */
    private boolean jobDied(Path log) {
        Checked ran = check(log);
        return ran != null
                && (ran.output().targetReturnedError() || ran.output().appCrashed());
    }

    /** The line that closes each error record of the tool's text log. */
    private static final String RECORD_END = "\n========= \n";

    /** The log parsed, its defects grouped and suppressed by the policy; null when it cannot be read. */
    private Checked check(Path log) {
        try {
            DefectGrouper grouper = new DefectGrouper(context.spec().policy().frameClassifier());
            return checked(new SanitizerTextParser().parse(log, tool, grouper), grouper);
        } catch (InputException | IllegalArgumentException e) {
            return null;
        }
    }

    /** OUT with the number of GROUPER's defects the policy does not suppress. */
    private Checked checked(SanitizerOutput out, DefectGrouper grouper) {
        long open = Analyzer.suppress(grouper.defects(), context.spec().policy().suppressions()).stream()
                .filter(defect -> !defect.suppressed())
                .count();
        return new Checked(out, open);
    }

    /**
     * The log written so far, its complete records only: a record the tool is still writing (its host frames cut
     * short, without the frame that names the job's line) would be grouped as a defect of its own. Null when no
     * record is complete yet or the log cannot be read.
     */
    private Checked checkWritten(Path log) {
        try {
            byte[] text = Files.readAllBytes(log);
            int end = completeRecordsEnd(text);
            if (end <= 0) {
                return null;
            }
            DefectGrouper grouper = new DefectGrouper(context.spec().policy().frameClassifier());
            return checked(
                    new SanitizerTextParser().parse(new ByteArrayInputStream(text, 0, end), log, tool, grouper),
                    grouper);
        } catch (IOException | InputException | IllegalArgumentException e) {
            return null;
        }
    }

    /** Where TEXT's last complete record ends: after its closing line ("========= "), 0 when there is none. */
    static int completeRecordsEnd(byte[] text) {
        // one byte one char: the positions are the bytes'
        int at = new String(text, StandardCharsets.ISO_8859_1).lastIndexOf(RECORD_END);
        return at < 0 ? 0 : at + RECORD_END.length();
    }

    /** Runs a costly check at most once per interval; null in between. */
    private static final class Throttle {
        private final long everyNanos;
        private long next;

        Throttle(int seconds) {
            this.everyNanos = seconds * 1_000_000_000L;
            this.next = System.nanoTime() + everyNanos;
        }

        String check(Supplier<String> costly) {
            long now = System.nanoTime();
            if (now < next) {
                return null;
            }
            next = now + everyNanos;
            return costly.get();
        }
    }
}
