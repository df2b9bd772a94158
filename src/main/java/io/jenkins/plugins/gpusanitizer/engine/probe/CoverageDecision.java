package io.jenkins.plugins.gpusanitizer.engine.probe;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.jenkins.plugins.gpusanitizer.engine.model.CoverageMode;
import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where a sanitizer run ends (issue #49), kept in its phase folder as {@value #FILE}: in {@link CoverageMode#KERNELS}
 * the runner decides, once the blocking run beside it ended, the optimizer step (or backward pass) at which the
 * sanitizer run's probe ends the job: the one after the step by which the blocking run had launched every kernel of
 * its census. The probe reads only {@value #STOP_FILE} ({@code unit}, {@code at}); this file is the report's, with the
 * reason, so a run stopped at a point nobody decided is told from one stopped where it was.
 *
 * @param mode    the coverage mode the run was asked for
 * @param unit    {@code steps} or {@code backward} where it stops; null where it runs to its end
 * @param at      the count at which the probe ends the job; null where it runs to its end
 * @param of      the blocking run's count in that unit: the whole job's
 * @param kernels the distinct kernels of the blocking run's census
 * @param reason  why it stops there, or why it runs to its end; null while the blocking run goes on
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CoverageDecision(String mode, String unit, Long at, Long of, Integer kernels, String reason) {
    public static final String FILE = "coverage.json";
    public static final String STOP_FILE = "coverage-stop.json";
    public static final String STEPS = "steps";
    public static final String BACKWARD = "backward";

    private static final ObjectMapper JSON = JsonMapper.builder().build();

    /** Asked for, not decided yet (the blocking run goes on), or {@code full}: nothing to decide. */
    public static CoverageDecision asked(CoverageMode mode) {
        return new CoverageDecision(
                mode.id(),
                null,
                null,
                null,
                null,
                mode == CoverageMode.FULL ? "--coverage full: every launch of the whole job" : null);
    }

    /** The unit's name in a sentence: "optimizer step" or "backward pass". */
    public static String word(String unit) {
        return STEPS.equals(unit) ? "optimizer step" : "backward pass";
    }

    public boolean stops() {
        return at != null && unit != null;
    }

    /** Whether the runner decided (a stop, or to run to the end); false while the blocking run goes on. */
    public boolean decided() {
        return reason != null;
    }

    /**
     * The decision from a blocking run that ended: stop where its census says every kernel had appeared, or run to
     * the end, said why.
     *
     * @param blockingDir    the blocking run's folder (its {@code census/} and {@code probe.jsonl})
     * @param blockingPassed it ended by itself with exit code 0: a run that failed or was stopped is no measure of what
     *                       the job launches
     */
    public static CoverageDecision decide(Path blockingDir, boolean blockingPassed) throws IOException {
        return decide(blockingDir, blockingPassed, null);
    }

    /**
     * The same, against the reference build's census ({@code referenceKernels}, the kernel names its report's coverage
     * lists; null or empty where there is none): kernels new since the reference build (a changed custom kernel, a new
     * Triton config) are checked in every launch, so where there are any the whole job is.
     */
    public static CoverageDecision decide(Path blockingDir, boolean blockingPassed, Set<String> referenceKernels)
            throws IOException {
        if (!blockingPassed) {
            return toEnd("the blocking run did not end clean, so it is no measure of the kernels the job launches");
        }
        KernelCensus census = KernelCensus.read(blockingDir.resolve(RunLayout.CENSUS_DIR));
        if (census.isEmpty()) {
            return toEnd("the blocking run has no kernel census (" + RunLayout.CENSUS_DIR + "/build.log says why)");
        }
        if (!census.complete()) {
            return toEnd("a process of the blocking run wrote no census totals at its exit");
        }
        ProbeLog log = new ProbeParser().parse("blocking", blockingDir.resolve(RunLayout.PROBE_JSONL));
        CoverageDecision decision = StopPoint.of(census.distinctAtExit(), log)
                .decision(census.kernels().size());
        List<String> fresh = referenceKernels == null || referenceKernels.isEmpty()
                ? List.of()
                : census.kernels().stream()
                        .map(KernelCensus.Kernel::name)
                        .filter(k -> !KernelCensus.NOT_KERNELS.contains(k) && !referenceKernels.contains(k))
                        .toList();
        if (!decision.stops() || fresh.isEmpty()) {
            return decision;
        }
        return toEnd(fresh.size() + " kernel(s) the plain run launched are new since the reference build ("
                + String.join(", ", fresh.subList(0, Math.min(3, fresh.size())))
                + (fresh.size() > 3 ? ", and " + (fresh.size() - 3) + " more" : "")
                + "), and a new kernel is checked in every launch");
    }

    /** Mode kernels, no stop: the sanitizer run checks the whole job, for {@code why}. */
    public static CoverageDecision toEnd(String why) {
        return new CoverageDecision(
                CoverageMode.KERNELS.id(), null, null, null, null, "the sanitizer run checks the whole job: " + why);
    }

    /** The decision in a phase folder; null where there is none or it cannot be read. */
    public static CoverageDecision read(Path phaseDir) {
        Path f = phaseDir.resolve(FILE);
        try {
            return Files.isRegularFile(f) ? JSON.readValue(f.toFile(), CoverageDecision.class) : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** Writes this decision, and where it stops the probe's stop file after it; each file whole or not at all. */
    public void write(Path phaseDir) throws IOException {
        write(phaseDir, true);
    }

    /**
     * The same; without {@code forTheProbe} no stop file (the run it was for has ended: nothing reads it, and a stop file
     * would say that it was told to stop).
     */
    public void write(Path phaseDir, boolean forTheProbe) throws IOException {
        atomically(phaseDir.resolve(FILE), JSON.writeValueAsBytes(this));
        if (stops() && forTheProbe) {
            atomically(phaseDir.resolve(STOP_FILE), JSON.writeValueAsBytes(Map.of("unit", unit, "at", at)));
        }
    }

    /**
     * How far a sanitizer run that ended otherwise (it died under the tool, timed out, was stopped) got in this
     * decision's unit: the least count of its processes that used the GPU (the rank that got least far), 0 where none
     * recorded any.
     */
    public long reachedBeforeItsEnd(ProbeLog log) {
        return log.work().values().stream()
                .filter(ProbeLog.Work::cuda)
                .mapToLong(w -> STEPS.equals(unit) ? w.steps() : w.backward())
                .min()
                .orElse(0);
    }

    /**
     * Whether a run that ended otherwise than at this decision's stop had passed it by then: every census kernel had
     * run under the tool, as at the stop.
     */
    public boolean passedBeforeItsEnd(ProbeLog log) {
        return stops() && log.coverageStops().isEmpty() && reachedBeforeItsEnd(log) >= at;
    }

    private static void atomically(Path target, byte[] bytes) throws IOException {
        Path partial = target.resolveSibling(target.getFileName() + ".partial");
        Files.write(partial, bytes);
        Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * Where the job actually ended in this decision's unit: the highest count its processes' stop records give, at or
     * after {@link #at()} (a stop decided after the run had passed it ends the job at its next step).
     */
    public long reached(List<ProbeLog.CoverageStop> stops) {
        return stops.stream()
                .mapToLong(s -> STEPS.equals(unit) ? s.steps() : s.backward())
                .max()
                .orElse(at == null ? 0 : at);
    }

    /**
     * Whether a sanitizer run's probe stopped where this decision said: every stop record at this unit and count.
     * False where it stopped with no stop decided: the run is then not known to have reached its coverage.
     */
    public boolean agreesWith(List<ProbeLog.CoverageStop> stops) {
        return !stops.isEmpty() && stops() && stops.stream().allMatch(s -> unit.equals(s.unit()) && at.equals(s.at()));
    }
}
