package io.jenkins.plugins.gpusanitizer.engine.parse.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The real outputs of corpus/h200-2026-12-03: torchrun, mp.spawn, a hang after a caught error, torch.compile. */
class H200TracebackCasesTest {
    private final TracebackParser parser = new TracebackParser();

    private CudaFailure parse(String relative) {
        return parser.parse(Corpus.h200Dec03(relative));
    }

    @Test
    void torchrunBlockingRunNamesTheRealLineOnItsRank() {
        CudaFailure f = parse("ddp-scatter/blocking/stderr.log");
        assertThat(f.errorClass()).isEqualTo(CudaErrorClass.DEVICE_ASSERT);
        assertThat(f.rank()).isZero();
        assertThat(f.userFrame().file()).isEqualTo("/work/main/examples/ddp_train.py");
        assertThat(f.userFrame().line()).isEqualTo(82);
        assertThat(f.userFrame().function()).isEqualTo("forward");
        assertThat(f.userFrame().code()).startsWith("pooled = pooled.index_add(1, idx, h)");
        assertThat(f.asyncWarning()).isFalse();
        assertThat(f.assertionLines()).isEqualTo(64);
        assertThat(f.assertions())
                .singleElement()
                .satisfies(a -> assertThat(a.condition()).isEqualTo("dstIndex < dstAddDimSize"));
        // torchrun's ChildFailedError is context: none of its frames is the failure's
        assertThat(f.launcher().kind()).isEqualTo("torchrun");
        assertThat(f.launcher().rootCauseRank()).isZero();
        assertThat(f.launcher().detail()).isEqualTo("exit code 1");
        assertThat(f.frames()).noneMatch(l -> l.file().endsWith("/torch/distributed/run.py"));
        assertThat(f.ranks())
                .singleElement()
                .satisfies(r -> assertThat(r.userFrame().line()).isEqualTo(82));
    }

    @Test
    void torchrunNormalRunBlamesTheInnocentLineAndTheWatchdogIsAMessageOfItsRank() {
        CudaFailure f = parse("ddp-scatter/regression/stderr.log");
        assertThat(f.rank()).isZero();
        assertThat(f.userFrame().line()).isEqualTo(121);
        assertThat(f.userFrame().code()).isEqualTo("logits = ddp(x, corrupt_index=fire)");
        assertThat(f.asyncWarning()).isTrue();
        assertThat(f.launcher().detail()).isEqualTo("Signal 6 (SIGABRT) received by PID 3058");
        assertThat(f.messages()).anySatisfy(m -> {
            assertThat(m.rank()).isZero();
            assertThat(m.text())
                    .startsWith("[PG ID 0 PG GUID 0(default_pg) Rank 0] Process group watchdog thread terminated")
                    .endsWith("CUDA error: device-side assert triggered");
        });
        // PyTorch's advice lines and the C++ "terminate called" header are no messages
        assertThat(f.messages())
                .noneMatch(m -> m.text().startsWith("Search for") || m.text().startsWith("terminate called"));
    }

    @Test
    void torchrunBlockingRunWhoseWatchdogWonHasNoTracebackButTheRankAndTheMessage() {
        // the direct run: the NCCL watchdog aborted the worker before Python printed its traceback
        CudaFailure f = parse("ddp-scatter/raw/blocking-direct.stderr");
        assertThat(f.errorClass()).isEqualTo(CudaErrorClass.DEVICE_ASSERT);
        assertThat(f.userFrame()).isNull();
        assertThat(f.rank()).isZero();
        assertThat(f.withoutTraceback()).isTrue();
        assertThat(f.firstMessage().rank()).isZero();
        assertThat(f.firstMessage().text()).contains("Process group watchdog thread terminated");
        assertThat(f.launcher().rootCauseRank()).isZero();
        assertThat(f.launcher().detail()).startsWith("Signal 6 (SIGABRT)");
    }

    @Test
    void spawnBlockingRunIsProcessOnesTracebackTheParentsIsContext() {
        CudaFailure f = parse("spawn-gloo-2ranks/blocking/stderr.log");
        assertThat(f.rank()).isEqualTo(1);
        assertThat(f.exceptionType()).isEqualTo("torch.AcceleratorError");
        assertThat(f.userFrame().line()).isEqualTo(82);
        assertThat(f.userFrame().function()).isEqualTo("forward");
        assertThat(f.frames()).first().satisfies(l -> assertThat(l.function()).isEqualTo("_wrap"));
        assertThat(f.launcher().kind()).isEqualTo("mp.spawn");
        assertThat(f.launcher().rootCauseRank()).isEqualTo(1);
        assertThat(f.launcher().userFrame().line()).isEqualTo(161);
        assertThat(f.launcher().userFrame().code()).startsWith("mp.spawn(spawned");
        assertThat(f.assertionLines()).isEqualTo(128);
    }

    @Test
    void spawnNormalRunWithoutTracebackIsNotBlamedOnTheSpawnCall() {
        CudaFailure f = parse("spawn-gloo-2ranks/regression/stderr.log");
        assertThat(f.errorClass()).isEqualTo(CudaErrorClass.DEVICE_ASSERT);
        // before: "at ddp_train.py:161 (main)", the parent's mp.spawn(...) line
        assertThat(f.userFrame()).isNull();
        // both ranks failed; rank 1 printed first
        assertThat(f.ranks()).extracting(CudaFailure.RankFailure::rank).containsExactly(1, 0);
        assertThat(f.rank()).isEqualTo(1);
        assertThat(f.launcher().exceptionType()).isEqualTo("torch.multiprocessing.spawn.ProcessExitedException");
        assertThat(f.launcher().rootCauseRank()).isZero();
        assertThat(f.launcher().detail()).isEqualTo("signal SIGABRT");
        assertThat(f.firstMessage().text()).isEqualTo("CUDA error: device-side assert triggered");
        assertThat(f.messages())
                .filteredOn(m -> m.text().startsWith("Warning: CUDA warning"))
                .singleElement()
                .satisfies(m -> assertThat(m.count()).isEqualTo(2));
    }

    @Test
    void hangAfterACaughtErrorPrintsItOnStdout() {
        var messages = parser.messages(Corpus.h200Dec03("hang/blocking/stdout.log"));
        assertThat(messages).singleElement().satisfies(m -> {
            assertThat(m.line()).isEqualTo(6);
            assertThat(m.text()).isEqualTo("retrying after: CUDA error: device-side assert triggered");
            assertThat(m.errorClass()).isEqualTo(CudaErrorClass.DEVICE_ASSERT);
        });
        CudaFailure stderr = parse("hang/blocking/stderr.log");
        assertThat(stderr.errorClass()).isEqualTo(CudaErrorClass.DEVICE_ASSERT);
        assertThat(stderr.frames()).isEmpty();
    }

    @Test
    void hangWithTheDriverSpellingOnStdoutOnly() {
        CudaFailure stderr = parse("hang-driver/blocking/stderr.log");
        assertThat(stderr.errorClass()).isEqualTo(CudaErrorClass.NONE);
        CudaFailure f = stderr.withMessages(
                parser.messages(Corpus.h200Dec03("hang-driver/blocking/stdout.log")), TracebackParser.MAX_MESSAGES);
        assertThat(f.errorClass()).isEqualTo(CudaErrorClass.ILLEGAL_ADDRESS);
        assertThat(f.withoutTraceback()).isTrue();
        assertThat(f.firstMessage().text())
                .isEqualTo("retrying after: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered");
        assertThat(f.firstMessage().stream()).isEqualTo("stdout");
    }

    @Test
    void compiledModelIsReachedThroughTheUsersCallNotTheGeneratedWrapper() {
        CudaFailure f = parse("compile-oob/blocking/stderr.log");
        assertThat(f.errorClass()).isEqualTo(CudaErrorClass.DEVICE_ASSERT);
        assertThat(f.exceptionType()).isEqualTo("RuntimeError");
        assertThat(f.message()).isEqualTo("CUDA driver error: device-side assert triggered");
        // the launch site: the user's call of the compiled module
        assertThat(f.userFrame().line()).isEqualTo(84);
        assertThat(f.userFrame().code()).isEqualTo("loss = F.cross_entropy(compiled(x, codes), y)");
        // Dynamo shows the compiled forward at its def line
        assertThat(f.compiledFrame().line()).isEqualTo(58);
        assertThat(f.compiledFrame().code()).isEqualTo("def forward(self, x, codes):");
        assertThat(f.generatedFiles())
                .containsExactly(
                        "/tmp/torchinductor_root/yg/cygem6uwfrn4z7p4bjdst76fr2jiipdh4z3kqj7mxuzrycjrynds.py",
                        "/tmp/torchinductor_root/en/cen25zllbh6kms5g4lrm6gwivlrceprhzvbthb2aw5lbo2kypdyh.py");
        assertThat(f.assertions()).singleElement().satisfies(a -> {
            assertThat(a.line()).isEqualTo(45);
            assertThat(a.function()).isEqualTo("unknown");
            assertThat(a.condition())
                    .isEqualTo("index out of bounds: 0 <= tl.broadcast_to(tmp13, [YBLOCK, XBLOCK]) < 64");
        });
        assertThat(TracebackParser.isUserFile(f.generatedFiles().get(0))).isFalse();
        assertThat(TracebackParser.isGeneratedFile("cygem6uwfrn4z7p4bjdst76fr2jiipdh4z3kqj7mxuzrycjrynds.py"))
                .isTrue();
    }

    @Test
    void interleavedAssertTextDoesNotHideTheTraceback() throws IOException {
        // This capture came out clean; the mixing the issue reports is rebuilt from its own lines:
        // (1) the driver writes the assert text character by character while Python writes whole lines,
        // (2) whole assert lines land inside traceback lines.
        List<String> lines =
                Files.readAllLines(Corpus.h200Dec03("compile-oob/blocking/stderr.log"), StandardCharsets.UTF_8);
        List<String> device =
                lines.stream().filter(l -> l.contains("Assertion `")).toList();
        List<String> python =
                lines.stream().filter(l -> !l.contains("Assertion `")).toList();
        CudaFailure clean = parse("compile-oob/blocking/stderr.log");

        CudaFailure charByChar = parser.parse(Corpus.stream(deviceCharsAroundPythonLines(device, python)), "mixed");
        assertSameFailure(charByChar, clean);

        CudaFailure linesInLines = parser.parse(Corpus.stream(deviceLinesInsidePythonLines(device, python)), "mixed");
        assertSameFailure(linesInLines, clean);
    }

    private static void assertSameFailure(CudaFailure mixed, CudaFailure clean) {
        assertThat(mixed.errorClass()).isEqualTo(clean.errorClass());
        assertThat(mixed.exceptionType()).isEqualTo(clean.exceptionType());
        assertThat(mixed.userFrame()).isEqualTo(clean.userFrame());
        assertThat(mixed.compiledFrame()).isEqualTo(clean.compiledFrame());
        assertThat(mixed.frames())
                .extracting(SourceLocation::line)
                .isEqualTo(clean.frames().stream().map(SourceLocation::line).toList());
        assertThat(mixed.assertionLines()).isEqualTo(clean.assertionLines());
        assertThat(mixed.assertions()).isEqualTo(clean.assertions());
    }

    /** Device text one character at a time; a whole Python line every 37 characters, as long as both last. */
    private static String deviceCharsAroundPythonLines(List<String> device, List<String> python) {
        String d = String.join("\n", device) + "\n";
        StringBuilder out = new StringBuilder();
        int p = 0;
        for (int i = 0; i < d.length(); i++) {
            out.append(d.charAt(i));
            if (i % 37 == 5 && p < python.size()) {
                out.append(python.get(p++)).append('\n');
            }
        }
        while (p < python.size()) {
            out.append(python.get(p++)).append('\n');
        }
        return out.toString();
    }

    /** Whole device lines dropped into the middle of every third Python line. */
    private static String deviceLinesInsidePythonLines(List<String> device, List<String> python) {
        StringBuilder out = new StringBuilder();
        int d = 0;
        List<String> py = new ArrayList<>(python);
        for (int i = 0; i < py.size(); i++) {
            String l = py.get(i);
            if (i % 3 == 1 && d < device.size() && l.length() > 4) {
                int cut = l.length() / 2;
                out.append(l, 0, cut)
                        .append(device.get(d++))
                        .append('\n')
                        .append(l.substring(cut))
                        .append('\n');
            } else {
                out.append(l).append('\n');
            }
        }
        while (d < device.size()) {
            out.append(device.get(d++)).append('\n');
        }
        return out.toString();
    }
}
