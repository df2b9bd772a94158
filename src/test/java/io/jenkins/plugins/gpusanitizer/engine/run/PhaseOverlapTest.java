package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** On one GPU the blocking run runs beside the sanitizer run (where the regression run goes: RegressionBesideTest). */
class PhaseOverlapTest {
    @TempDir
    Path dir;

    private final List<String> console = new ArrayList<>();

    private RunSpec spec(Path out) {
        return FakeGpu.farOobSpec(out);
    }

    private double seconds(boolean overlap, String name) {
        FakeGpu gpu = new FakeGpu(dir.resolve(name))
                .farOob()
                .put("memcheck-app.sleep", "3")
                .put("blocking.sleep", "3");
        long begin = System.nanoTime();
        Report report = new Runner(
                        spec(dir.resolve(name + "/run"))
                                .phases(List.of(Phase.SANITIZER, Phase.BLOCKING))
                                .overlapBlocking(overlap),
                        gpu.env(),
                        console::add)
                .run();
        double seconds = (System.nanoTime() - begin) / 1e9;
        assertThat(report.verdict()).isEqualTo("FAIL");
        assertThat(report.diagnosis().faultAt().line()).isEqualTo(32);
        assertThat(report.execution().phases())
                .extracting(Report.PhaseJson::name)
                .containsExactly("sanitizer-memcheck", "blocking");
        return seconds;
    }

    @Test
    void theBlockingRunIsHiddenBehindTheSanitizerRunWithTheSameFindings() {
        double after = seconds(false, "after");
        double beside = seconds(true, "beside");
        // 3 s + 3 s one after the other, 3 s side by side (plus the probe and start-up around them)
        assertThat(after - beside)
                .as("beside %.1f s, after %.1f s", beside, after)
                .isGreaterThan(2.0);
        assertThat(console).anyMatch(line -> line.contains("blocking runs beside the sanitizer"));
    }

    @Test
    void aBlockingRunThatRanOutOfMemoryBesideTheSanitizerRunsAgainAlone() {
        FakeGpu gpu = new FakeGpu(dir)
                .farOob()
                .put(
                        "blocking.first-stderr",
                        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB."
                                + " GPU 0 has a total capacity of 139.81 GiB of which 1.02 GiB is free.\n");
        Report report = new Runner(spec(dir.resolve("run")), gpu.env(), console::add).run();

        assertThat(console)
                .anyMatch(line -> line.contains("ran out of GPU memory beside the sanitizer: run again alone"));
        assertThat(dir.resolve("run/blocking-beside-sanitizer/stderr.log"))
                .content()
                .contains("CUDA out of memory");
        assertThat(report.execution().phases())
                .extracting(Report.PhaseJson::name)
                .containsExactly("sanitizer-memcheck", "blocking", "regression");
        assertThat(report.diagnosis().faultAt().line())
                .as("the blocking run alone names the real line, not the shared card's OOM")
                .isEqualTo(32);
        assertThat(report.reasons()).noneMatch(reason -> reason.message().contains("out of memory"));
    }
}
