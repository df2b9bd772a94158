package io.jenkins.plugins.gpusanitizer.engine.analysis;

import io.jenkins.plugins.gpusanitizer.engine.diagnosis.Diagnosis;
import io.jenkins.plugins.gpusanitizer.engine.diagnosis.MemoryCurve;
import io.jenkins.plugins.gpusanitizer.engine.findings.SanitizerRun;
import io.jenkins.plugins.gpusanitizer.engine.gate.Gate;
import io.jenkins.plugins.gpusanitizer.engine.parse.CudaFailure;
import java.util.List;
import java.util.Map;

/** The result of analysing one set of inputs: findings, diagnosis and the gate's verdict. */
public record Analysis(
        List<SanitizerRun> runs,
        Map<String, CudaFailure> failures,
        List<MemoryCurve> curves,
        Boolean cachingAllocator,
        Diagnosis diagnosis,
        Gate.Result gate,
        List<String> inputs,
        List<String> inputErrors) {

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
