package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.analysis.AnalysisInput;
import io.jenkins.plugins.gpusanitizer.engine.analysis.Analyzer;
import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportMapper;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The probe on the console and on the command line: its evidence lines, and run --no-probe. */
class ProbeConsoleTest {
    private static Path fixture(String name) throws Exception {
        return Path.of(
                ProbeConsoleTest.class.getResource("/probe/fixtures/" + name).toURI());
    }

    @Test
    void consoleShowsTheFailingOperatorAndWhatFilledTheCard() throws Exception {
        Map<String, Path> probe = new LinkedHashMap<>();
        probe.put("blocking", fixture("scatter-torchrun-blocking.jsonl"));
        probe.put("regression", fixture("oom-regression.jsonl"));
        GatePolicy p = GatePolicy.defaults();
        Report r = new ReportMapper(p.frameClassifier())
                .toReport(new Analyzer()
                        .analyze(new AnalysisInput(List.of(), Map.of(), null, null, null, p, true, probe)));
        StringWriter out = new StringWriter();
        ConsoleSummary.print(r, new PrintWriter(out), false);
        assertThat(out.toString())
                .contains("  failing operator: aten::scatter_ at scatter_ddp.py:20: index max 64, input has 64 entries "
                        + "along dim 1 (rank 1)\n")
                .contains("  Out of memory at cache_oom.py:21 (workspace) allocating 6.0 GiB with 3.5 GiB free; "
                        + "what filled the card: cache_oom.py:17 (remember), 130 live blocks, 130.0 GiB; "
                        + "allocator snapshot: regression/probe-oom-snapshot-7100.pickle.\n")
                .contains("  GPU memory grows because tensors allocated at cache_oom.py:17 (remember) pile up");
        StringWriter quiet = new StringWriter();
        ConsoleSummary.print(r, new PrintWriter(quiet), true);
        assertThat(quiet.toString()).doesNotContain("failing operator");
    }

    @Test
    void noProbeTurnsItOff() {
        RunCommand on = new RunCommand();
        CommandLine cl = new CommandLine(on);
        cl.parseArgs("--out", "/tmp/x", "--", "python3", "train.py");
        assertThat(on.toSpec(cl).probe()).isTrue();
        RunCommand off = new RunCommand();
        CommandLine cl2 = new CommandLine(off);
        cl2.parseArgs("--no-probe", "--out", "/tmp/x", "--", "python3", "train.py");
        RunSpec s = off.toSpec(cl2);
        assertThat(s.probe()).isFalse();
        assertThat(new RunSpec().probe()).isTrue();
        assertThat(cl.getUsageMessage()).contains("--no-probe");
    }
}
