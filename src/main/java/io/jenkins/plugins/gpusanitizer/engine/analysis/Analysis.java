package io.jenkins.plugins.gpusanitizer.engine.analysis;

import io.jenkins.plugins.gpusanitizer.engine.diagnosis.Diagnosis;
import io.jenkins.plugins.gpusanitizer.engine.diagnosis.MemoryCurve;
import io.jenkins.plugins.gpusanitizer.engine.findings.SanitizerRun;
import io.jenkins.plugins.gpusanitizer.engine.gate.Gate;
import io.jenkins.plugins.gpusanitizer.engine.model.WorkPaths;
import io.jenkins.plugins.gpusanitizer.engine.parse.job.CudaFailure;
import io.jenkins.plugins.gpusanitizer.engine.probe.ProbeFindings;
import java.util.List;
import java.util.Map;

/**
 * The result of analysing one set of inputs: findings, diagnosis and the gate's verdict.
 *
 * @param probe what the in-process probe recorded ({@link ProbeFindings#NONE} without one); never
 *              part of the verdict
 */
public record Analysis(
        List<SanitizerRun> runs,
        Map<String, CudaFailure> failures,
        List<MemoryCurve> curves,
        Boolean cachingAllocator,
        Diagnosis diagnosis,
        Gate.Result gate,
        List<String> inputs,
        List<String> inputErrors,
        ProbeFindings probe,
        WorkPaths paths) {

    /**
     * @param paths how the job's files are named ({@link WorkPaths}): the report names a file in a run's copy of the
     *     working directory by the working directory's file
     */
    public Analysis {
        probe = probe == null ? ProbeFindings.NONE : probe;
        paths = paths == null ? WorkPaths.UNKNOWN : paths;
    }

    public Analysis(
            List<SanitizerRun> runs,
            Map<String, CudaFailure> failures,
            List<MemoryCurve> curves,
            Boolean cachingAllocator,
            Diagnosis diagnosis,
            Gate.Result gate,
            List<String> inputs,
            List<String> inputErrors) {
        this(runs, failures, curves, cachingAllocator, diagnosis, gate, inputs, inputErrors, ProbeFindings.NONE, null);
    }

    /** The same analysis judged by another gate (the runner adds its own reasons). */
    public Analysis withGate(Gate.Result g) {
        return new Analysis(runs, failures, curves, cachingAllocator, diagnosis, g, inputs, inputErrors, probe, paths);
    }

    /** ERROR SUMMARY totals summed over the runs that printed one; null when none did. */
    public Long errorsTotal() {
        Long sum = null;
        for (SanitizerRun r : runs) {
            if (r.errorsTotal() != null) {
                sum = (sum == null ? 0 : sum) + r.errorsTotal();
            }
        }
        return sum;
    }
}
