package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.report.EnvironmentJson;
import io.jenkins.plugins.gpusanitizer.engine.report.ExecutionJson;
import io.jenkins.plugins.gpusanitizer.engine.report.GpuJson;
import io.jenkins.plugins.gpusanitizer.engine.report.PhaseJson;
import io.jenkins.plugins.gpusanitizer.engine.report.ThroughputJson;
import io.jenkins.plugins.gpusanitizer.engine.run.environment.Environment;
import java.io.IOException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The phases' results as they finish, and {@code run.json} rewritten after each one, so a crash or an
 * abort still leaves what happened; {@code analyze --run-dir} reads it back.
 */
final class RunJournal {
    private final RunSpec spec;
    private final RunDirectory dir;
    private final ReferenceTime reference;
    private final List<PhaseResult> results = new ArrayList<>();
    private Environment environment;
    private Supplier<ThroughputJson> throughput = () -> null;
    private RunRecord.GpuLockJson gpuLock;
    private final Secrets secrets;

    RunJournal(RunSpec spec, RunDirectory dir, ReferenceTime reference, Secrets secrets) {
        this.secrets = secrets;
        this.spec = spec;
        this.dir = dir;
        this.reference = reference;
    }

    synchronized void environment(Environment probed) {
        this.environment = probed;
    }

    /** The GPUs the run holds exclusively on the machine, and where their locks are; written from now on. */
    synchronized void gpuLock(Path directory, List<String> gpus) throws IOException {
        gpuLock = directory == null ? null : new RunRecord.GpuLockJson(gpus, directory.toString());
        write(false);
    }

    synchronized void throughput(Supplier<ThroughputJson> source) {
        this.throughput = source;
    }

    synchronized void add(PhaseResult result) throws IOException {
        results.add(result);
        write(false);
    }

    /** A phase run again: its new result takes the first one's place (the first one's files are kept aside). */
    synchronized void replace(PhaseResult first, PhaseResult again) throws IOException {
        int at = results.indexOf(first);
        if (at < 0) {
            results.add(again);
        } else {
            results.set(at, again);
        }
        write(false);
    }

    synchronized void write(boolean finished) throws IOException {
        dir.writeRecord(secrets.mask(record(finished), RunRecord.class));
    }

    synchronized RunRecord record(boolean finished) {
        List<PhaseJson> phases = new ArrayList<>();
        for (PhaseResult result : results) {
            phases.add(new PhaseJson(
                    result.name(),
                    result.phase() == Phase.SANITIZER ? RunDirectory.toolOf(result.name()) : null,
                    result.command(),
                    result.env(),
                    result.gpu(),
                    result.status(),
                    result.exitCode(),
                    result.signal(),
                    result.wallSeconds(),
                    result.timeToFailure(),
                    PhaseResult.TIMED_OUT.equals(result.status()),
                    PhaseResult.STOPPED_AT_TARGET.equals(result.status()),
                    result.files(),
                    result.note(),
                    result.ranBeside(),
                    result.killedPids()));
        }
        ExecutionJson execution = new ExecutionJson(
                environmentJson(),
                phases,
                dir.root().toString(),
                reference.failureSeconds(),
                reference.source(),
                reference.regressionTarget(),
                throughput.get(),
                workDirectory(spec.workDir()));
        return new RunRecord(
                1,
                spec.phases().contains(Phase.SANITIZER) ? spec.keepCachingAllocator() : null,
                spec.expandableSegments(),
                spec.tools().stream().map(Tool::id).toList(),
                finished,
                gpuLock,
                execution);
    }

    /**
     * Where the phases run: the spec's working directory, or this process's own when it names none (a
     * phase started without one inherits it), made absolute on the machine that runs them.
     */
    static String workDirectory(String workDir) {
        try {
            return Path.of(workDir == null ? "" : workDir)
                    .toAbsolutePath()
                    .normalize()
                    .toString();
        } catch (InvalidPathException e) {
            return workDir;
        }
    }

    private EnvironmentJson environmentJson() {
        if (environment == null) {
            return null;
        }
        return new EnvironmentJson(
                environment.driverVersion(),
                environment.driverCudaVersion(),
                environment.gpus().stream()
                        .map(gpu -> new GpuJson(gpu.index(), gpu.name(), gpu.uuid(), gpu.memoryTotalMiB()))
                        .toList(),
                environment.nvccVersion(),
                environment.torchVersion(),
                environment.torchCuda(),
                environment.cudnnVersion(),
                environment.torchDsa(),
                environment.computeSanitizerVersion(),
                environment.compatibility(),
                environment.messages());
    }
}
