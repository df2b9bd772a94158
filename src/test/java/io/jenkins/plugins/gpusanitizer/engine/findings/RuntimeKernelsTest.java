package io.jenkins.plugins.gpusanitizer.engine.findings;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.analysis.AnalysisInput;
import io.jenkins.plugins.gpusanitizer.engine.analysis.Analyzer;
import io.jenkins.plugins.gpusanitizer.engine.analysis.SanitizerInput;
import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
import io.jenkins.plugins.gpusanitizer.engine.gate.Reason;
import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import io.jenkins.plugins.gpusanitizer.engine.report.HtmlReport;
import io.jenkins.plugins.gpusanitizer.engine.report.ReasonJson;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #25, 4: a CuPy/NVRTC kernel's device line names CuPy's cache file ({@code <sha1>.cubin.cu}).
 * No H200 record has one yet: the record here is the real heap out-of-bounds record of
 * corpus/h200/cpp-probe/xml/hp.log with its device line replaced by the shape the issue quotes.
 */
class RuntimeKernelsTest {
    static final String CACHE_FILE = "ba72dd1890cd8b39d9d8fc42c1f78ccb26c7b0bc.cubin.cu";
    /** What CuPy compiled: a RawKernel whose line 8 reads one element past the end. */
    static final String SOURCE = String.join(
            "\n",
            "extern \"C\" __global__",
            "void shift(const float* x, float* y, int n) {",
            "    int i = blockDim.x * blockIdx.x + threadIdx.x;",
            "    if (i >= n) {",
            "        return;",
            "    }",
            "    // off by one: x has n elements",
            "    y[i] = x[i + 1] < 0 ? 0 : x[i + 1];",
            "}",
            "");

    @TempDir
    Path dir;

    private Report analyze(boolean sourceSaved) throws IOException {
        Path phase = Files.createDirectories(dir.resolve("sanitizer-memcheck"));
        String log = Files.readString(Corpus.file("cpp-probe/xml/hp.log"))
                .replace("at heap_oob()+0xa0 in oob.cu:31", "at shift+0x90 in " + CACHE_FILE + ":8");
        Path file = Files.writeString(phase.resolve("sanitizer.log"), log);
        if (sourceSaved) {
            Path cache = Files.createDirectories(phase.resolve(RuntimeKernels.CUPY_CACHE_DIR));
            Files.writeString(cache.resolve(CACHE_FILE), SOURCE);
        }
        GatePolicy p = GatePolicy.defaults();
        return new ReportMapper(p.frameClassifier())
                .toReport(new Analyzer()
                        .analyze(new AnalysisInput(
                                List.of(new SanitizerInput(file, false, null)), Map.of(), null, null, null, p)));
    }

    private static String failReason(Report r) {
        return r.reasons().stream()
                .filter(x -> Reason.Level.FAIL.id().equals(x.level()))
                .map(ReasonJson::message)
                .findFirst()
                .orElseThrow();
    }

    @Test
    void theSavedSourceLineIsShownWithItsText() throws IOException {
        Report r = analyze(true);
        assertThat(r.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(r.defects().get(0).deviceLocation().code()).isEqualTo("y[i] = x[i + 1] < 0 ? 0 : x[i + 1];");
        assertThat(failReason(r))
                .contains("at line 8 of the CuPy/NVRTC kernel's source: `y[i] = x[i + 1] < 0 ? 0 : x[i + 1];` "
                        + "(cache file " + CACHE_FILE + ")");
        assertThat(new HtmlReport().page(r))
                .contains("<dt>device line</dt><dd>at line 8 of the CuPy/NVRTC kernel&#39;s source: "
                        + "&#96;y[i] = x[i + 1] &lt; 0 ? 0 : x[i + 1];&#96;");
    }

    @Test
    void withoutTheSourceTheCacheFileIsNotPresentedAsASourceLine() throws IOException {
        Report r = analyze(false);
        assertThat(r.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(failReason(r))
                .contains("in a CuPy/NVRTC kernel compiled at run time (cache file " + CACHE_FILE
                        + ", line 8; its source was not saved)")
                .doesNotContain(" at " + CACHE_FILE + ":8");
        assertThat(r.diagnosis().summary()).doesNotContain(" at " + CACHE_FILE);
    }

    @Test
    void onlyCacheShapedNamesAreRunTimeKernels() {
        assertThat(RuntimeKernels.isCacheFile(SourceLocation.of("/tmp/x/" + CACHE_FILE, 8, null)))
                .isTrue();
        assertThat(RuntimeKernels.isCacheFile(
                        SourceLocation.of("0123456789abcdef0123456789abcdef_2.cubin.cu", 3, null)))
                .as("older CuPy: md5_2.cubin.cu")
                .isTrue();
        assertThat(RuntimeKernels.isCacheFile(SourceLocation.of("oob.cu", 31, null)))
                .isFalse();
        assertThat(RuntimeKernels.at(SourceLocation.of("/src/oob.cu", 31, null)))
                .isEqualTo("at oob.cu:31");
    }
}
