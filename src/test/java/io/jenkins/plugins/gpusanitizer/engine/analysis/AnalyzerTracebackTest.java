package io.jenkins.plugins.gpusanitizer.engine.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.parse.job.CudaErrorClass;
import io.jenkins.plugins.gpusanitizer.engine.parse.job.GeneratedCode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The H200 recordings of 2026-12-03 through the whole analysis: "reported at X, really at Y" and the gate's words. */
class AnalyzerTracebackTest {
    @TempDir
    Path dir;

    private static Analysis analyze(String runCase, List<SanitizerInput> sanitizer) {
        Map<String, Path> logs = new LinkedHashMap<>();
        for (String[] p : new String[][] {{"async", "regression"}, {"blocking", "blocking"}}) {
            Path f;
            try {
                f = Corpus.h200Dec03(runCase + "/" + p[1] + "/stderr.log");
            } catch (IllegalArgumentException e) {
                continue;
            }
            logs.put(p[0], f);
        }
        return new Analyzer()
                .analyze(new AnalysisInput(sanitizer, logs, null, null, false, GatePolicy.defaults(), true));
    }

    @Test
    void torchrunReportedAndRealLineWithTheirRank() {
        Analysis a = analyze("ddp-scatter", List.of());
        assertThat(a.diagnosis().reportedAt().line()).isEqualTo(121);
        assertThat(a.diagnosis().faultAt().line()).isEqualTo(82);
        assertThat(a.diagnosis().summary())
                .contains("reported the error at ddp_train.py:121 in train")
                .contains("on rank 0")
                .contains("shows it at ddp_train.py:82 in forward");
        assertThat(a.diagnosis().notes())
                .anyMatch(n -> n.startsWith("The launcher (torchrun) reported ChildFailedError")
                        && n.contains("context, not the fault"));
        assertThat(a.gate().reasons())
                .anyMatch(r ->
                        r.message().startsWith("blocking run crashed: device-side assert triggered at ddp_train.py:82")
                                && r.message().contains("on rank 0"));
    }

    @Test
    void spawnNormalRunIsNoLongerBlamedOnTheSpawnCall() {
        Analysis a = analyze("spawn-gloo-2ranks", List.of());
        assertThat(a.diagnosis().reportedAt()).isNull();
        assertThat(a.diagnosis().faultAt().line()).isEqualTo(82);
        assertThat(a.diagnosis().summary()).contains("on rank 1");
        assertThat(a.diagnosis().notes())
                .anyMatch(n -> n.contains("torch.multiprocessing.spawn") && n.contains("ddp_train.py:161"));
    }

    @Test
    void hangWithTheDriverSpellingOnStdoutIsAGpuFaultOfThatPhase() {
        Analysis a = analyze("hang-driver", List.of());
        var f = a.failures().get("blocking");
        assertThat(f.errorClass()).isEqualTo(CudaErrorClass.ILLEGAL_ADDRESS);
        assertThat(f.firstMessage().stream()).isEqualTo("stdout");
        assertThat(a.inputs()).anyMatch(i -> i.endsWith("hang-driver/blocking/stdout.log"));
        assertThat(a.diagnosis().summary())
                .contains("blocking run hit a GPU fault")
                .contains("retrying after: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered")
                .contains("stdout line 6");
        // before: ERROR from the timeout alone
        assertThat(a.gate().reasons())
                .anyMatch(r -> r.code().equals("crash")
                        && r.message()
                                .equals("blocking run hit a GPU error: an illegal memory access was encountered "
                                        + "(printed without a traceback, stdout line 6)"));
    }

    @Test
    void compiledModelFaultIsTheUsersCallInEveryPhase() {
        Analysis a = analyze(
                "compile-oob",
                List.of(
                        new SanitizerInput(
                                Corpus.h200Dec03("compile-oob/sanitizer-memcheck/sanitizer.log"), false, Tool.MEMCHECK),
                        new SanitizerInput(
                                Corpus.h200Dec03("compile-oob/sanitizer-memcheck/sanitizer.xml"),
                                true,
                                Tool.MEMCHECK)));
        // before: "launched from cygem6uw...py:185 (call)", the generated wrapper
        assertThat(a.runs().get(0).unsuppressed())
                .filteredOn(d -> d.records() == 4)
                .singleElement()
                .satisfies(d -> {
                    assertThat(d.hostLocation().file()).endsWith("compile_job.py");
                    assertThat(d.hostLocation().line()).isEqualTo(84);
                });
        assertThat(a.diagnosis().reportedAt().line()).isEqualTo(90);
        assertThat(a.diagnosis().faultAt().line()).isEqualTo(84);
        assertThat(a.diagnosis().faultEvidence()).isEqualTo("blocking+sanitizer");
        assertThat(a.diagnosis().notes())
                .anyMatch(n -> n.contains("torch.compile generated for compile_job.py:58 in forward"))
                .anyMatch(n -> n.startsWith("The device assert fired in the Triton kernel Inductor generated"));
    }

    @Test
    void modelLineFromProvenanceCommentsInTheKeptWrapper() throws IOException {
        // the blocking run of compile-oob, with the generated wrapper kept beside it (a made-up one:
        // the capture did not keep it) carrying the origin comments Inductor writes for each kernel
        Path blocking = Files.createDirectories(dir.resolve("blocking"));
        Files.copy(Corpus.h200Dec03("compile-oob/blocking/stderr.log"), blocking.resolve("stderr.log"));
        Path generated = Files.createDirectories(blocking.resolve(GeneratedCode.DIR));
        StringBuilder wrapper = new StringBuilder();
        for (int i = 1; i < 180; i++) {
            wrapper.append("# line ").append(i).append('\n');
        }
        wrapper.append("        # Topologically Sorted Source Nodes: [q, h], Original ATen: [aten.index, aten.cat]\n")
                .append(
                        "        #   File \"/opt/torch/.venv/lib/python3.12/site-packages/torch/nn/modules/module.py\", line 1790, in _call_impl\n")
                .append("        #   File \"/work/main/examples/compile_job.py\", line 59, in forward\n")
                .append("        #     q = self.codebook[codes]  # [B, codes, dim]\n")
                .append("        stream0 = get_raw_stream(0)\n")
                .append("        # comment\n")
                .append(
                        "        triton_poi_fused_cat_index_unsqueeze_0.run(buf0, primals_2, primals_1, buf1, 1152, 128, stream=stream0)\n");
        Files.writeString(generated.resolve("cygem6uwfrn4z7p4bjdst76fr2jiipdh4z3kqj7mxuzrycjrynds.py"), wrapper);
        Files.writeString(
                generated.resolve(GeneratedCode.INDEX),
                "/tmp/torchinductor_root/yg/cygem6uwfrn4z7p4bjdst76fr2jiipdh4z3kqj7mxuzrycjrynds.py\t"
                        + "cygem6uwfrn4z7p4bjdst76fr2jiipdh4z3kqj7mxuzrycjrynds.py\n");
        Analysis a = new Analyzer()
                .analyze(new AnalysisInput(
                        List.of(),
                        Map.of("blocking", blocking.resolve("stderr.log")),
                        null,
                        null,
                        null,
                        GatePolicy.defaults(),
                        true));
        var f = a.failures().get("blocking");
        assertThat(f.modelLine().line()).isEqualTo(59);
        assertThat(f.modelLine().code()).startsWith("q = self.codebook[codes]");
        assertThat(a.diagnosis().summary()).contains("in the compiled model: compile_job.py:59 in forward");
    }
}
