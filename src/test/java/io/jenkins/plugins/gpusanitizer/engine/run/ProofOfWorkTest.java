package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.gate.ProofOfWork;
import io.jenkins.plugins.gpusanitizer.engine.gate.Reason;
import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import io.jenkins.plugins.gpusanitizer.engine.report.ExecutionJson;
import io.jenkins.plugins.gpusanitizer.engine.report.PhaseJson;
import io.jenkins.plugins.gpusanitizer.engine.report.WorkJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The proof-of-work rules on recorded run directories (the probe's work records as the probe writes them). */
class ProofOfWorkTest {
    @TempDir
    Path dir;

    private static PhaseJson phase(String name, String status, List<String> command, String note) {
        return phase(name, status, command, note, 40);
    }

    private static PhaseJson phase(String name, String status, List<String> command, String note, double wall) {
        return new PhaseJson(
                name,
                name.startsWith("sanitizer") ? "memcheck" : null,
                command,
                Map.of(ProbeInstaller.MODE, name),
                "0",
                status,
                0,
                null,
                wall,
                null,
                false,
                false,
                List.of(),
                note);
    }

    private RunRecord record(PhaseJson... phases) {
        return new RunRecord(
                1,
                null,
                false,
                List.of("memcheck"),
                true,
                null,
                new ExecutionJson(null, List.of(phases), dir.toString(), null, null, null, null, null));
    }

    private void probe(String phase, String... lines) throws IOException {
        Files.createDirectories(dir.resolve(phase));
        Files.writeString(dir.resolve(phase).resolve(RunLayout.PROBE_JSONL), String.join("\n", lines) + "\n");
    }

    private List<Reason> reasons(RunRecord r) {
        return new ProofOfWork(RunWorkReader.read(r, new RunDirectory(dir), null).stream()
                        .map(RunWorkReader.Read::work)
                        .toList())
                .reasons();
    }

    @Test
    void aLauncherWhoseKilledLeftoverHadUsedTheGpuDetachedItsWork() throws IOException {
        probe(
                "regression",
                "{\"type\":\"probe\",\"pid\":100,\"t\":0.1}",
                "{\"type\":\"work\",\"event\":\"exit\",\"pid\":100,\"steps\":0,\"cuda\":false,\"ts\":5}",
                "{\"type\":\"probe\",\"pid\":201,\"t\":0.1}",
                "{\"type\":\"work\",\"event\":\"cuda\",\"pid\":201,\"ts\":3}",
                "{\"type\":\"work\",\"event\":\"progress\",\"pid\":201,\"steps\":37,\"ts\":40}");
        List<Reason> reasons = reasons(record(phase(
                "regression",
                PhaseResult.PASSED,
                List.of("python3", "launch.py"),
                "1 leftover process(es) of the phase killed: 201 (python3 worker.py)")));

        assertThat(reasons)
                .extracting(Reason::code, Reason::message)
                .singleElement()
                .satisfies(t -> {
                    assertThat(t.toList().get(0)).isEqualTo("detached");
                    assertThat((String) t.toList().get(1)).contains("process 201", "37 optimizer step(s)");
                });
    }

    /** The supervisor's killed pids are a field of the phase's record: its note may name other processes, or none. */
    @Test
    void theKilledPidsAreReadFromThePhaseRecordNotFromItsNote() throws IOException {
        probe(
                "regression",
                "{\"type\":\"probe\",\"pid\":100,\"t\":0.1}",
                "{\"type\":\"probe\",\"pid\":201,\"t\":0.1}",
                "{\"type\":\"work\",\"event\":\"cuda\",\"pid\":201,\"ts\":3}",
                "{\"type\":\"work\",\"event\":\"progress\",\"steps\":0,\"backward\":9,\"pid\":201,\"ts\":40}");
        PhaseJson p = phase("regression", PhaseResult.PASSED, List.of("python3", "launch.py"), "a note");
        PhaseJson killed = new PhaseJson(
                p.name(),
                p.tool(),
                p.command(),
                p.environment(),
                p.gpu(),
                p.status(),
                p.exitCode(),
                p.signal(),
                p.wallSeconds(),
                p.timeToFailureSeconds(),
                p.timedOut(),
                p.stoppedAtTarget(),
                p.files(),
                p.note(),
                false,
                List.of(201L));

        assertThat(reasons(record(killed)))
                .extracting(Reason::code, Reason::message)
                .singleElement()
                .satisfies(t -> {
                    assertThat(t.toList().get(0)).isEqualTo("detached");
                    assertThat((String) t.toList().get(1)).contains("process 201", "9 backward pass(es)");
                });
    }

    /** A phase recorded without its command (a hand-edited or cut record) is judged, not a crash of the analysis. */
    @Test
    void aPhaseWithoutACommandIsNoCrash() throws IOException {
        probe("blocking", work(2, 0));
        probe("regression", work(3, 40));

        List<Reason> reasons = reasons(record(
                phase("blocking", PhaseResult.PASSED, null, null),
                phase("regression", PhaseResult.PASSED, List.of("python3", "train.py"), null)));

        assertThat(reasons)
                .as("runs of unknown and known commands are not the same job")
                .isEmpty();
    }

    @Test
    void aKilledLeftoverThatNeverUsedTheGpuIsNoFinding() throws IOException {
        probe(
                "regression",
                "{\"type\":\"probe\",\"pid\":100,\"t\":0.1}",
                "{\"type\":\"work\",\"event\":\"cuda\",\"pid\":100,\"ts\":1}",
                "{\"type\":\"work\",\"event\":\"exit\",\"pid\":100,\"steps\":50,\"cuda\":true,\"ts\":5}");
        List<Reason> reasons = reasons(record(phase(
                "regression",
                PhaseResult.PASSED,
                List.of("python3", "train.py"),
                "1 leftover process(es) of the phase killed: 202 (python3 -c pin_memory_worker)")));

        assertThat(reasons).isEmpty();
    }

    /**
     * A sanitizer run and a plain run, each with the steps and wall time given; the sanitizer run's argv is the tool's
     * options then {@code sanitizerJob}.
     */
    private List<Reason> sanitizerBeside(
            List<String> sanitizerJob,
            long sanitizerSteps,
            double sanitizerWall,
            String plain,
            List<String> plainJob,
            long plainSteps,
            double plainWall)
            throws IOException {
        probe("sanitizer-memcheck", work(1, sanitizerSteps));
        probe(plain, work(2, plainSteps));
        List<String> tool = new java.util.ArrayList<>(List.of("compute-sanitizer", "--tool", "memcheck"));
        tool.addAll(sanitizerJob);
        return reasons(record(
                phase("sanitizer-memcheck", PhaseResult.PASSED, tool, null, sanitizerWall),
                phase(plain, PhaseResult.PASSED, plainJob, null, plainWall)));
    }

    private static String work(long pid, long steps) {
        return "{\"type\":\"work\",\"event\":\"exit\",\"pid\":" + pid + ",\"steps\":" + steps + ",\"cuda\":true}";
    }

    @Test
    void aShorterSanitizerCommandIsNeverComparedWithTheFullRuns() throws IOException {
        List<Reason> reasons = sanitizerBeside(
                List.of("python3", "train.py", "--steps", "8"),
                8,
                5,
                "blocking",
                List.of("python3", "train.py", "--steps", "400"),
                400,
                40);

        assertThat(reasons).isEmpty();
    }

    @Test
    void theSameCommandUnderTheToolThatDidAFractionOfTheStepsIsLessWork() throws IOException {
        List<Reason> reasons = sanitizerBeside(
                List.of("python3", "train.py"), 3, 5, "blocking", List.of("python3", "train.py"), 400, 40);

        assertThat(reasons).extracting(Reason::code).containsExactly("less-work");
        assertThat(reasons.get(0).message())
                .startsWith("sanitizer-memcheck did 3 optimizer step(s) where blocking did 400");
    }

    @Test
    void recordsFromBeforeTheProbeCountedWorkGiveNoReason() throws IOException {
        probe("blocking", "{\"type\":\"probe\",\"pid\":2,\"t\":0.1}", "{\"type\":\"exit\",\"pid\":2}");
        probe("regression", "{\"type\":\"probe\",\"pid\":3,\"t\":0.1}", "{\"type\":\"exit\",\"pid\":3}");
        RunRecord r = record(
                phase("blocking", PhaseResult.PASSED, List.of("python3", "train.py"), null),
                phase("regression", PhaseResult.PASSED, List.of("python3", "train.py"), null));

        assertThat(reasons(r)).isEmpty();
        assertThat(RunWorkReader.json(RunWorkReader.read(r, new RunDirectory(dir), null)))
                .noneMatch(WorkJson::counted);
    }

    /** The H200's examples/cudnn_bench.py: a 10 s budget, far fewer steps under the tool in as long a time. */
    @Test
    void aTimeBudgetedJobThatStepsSlowerUnderTheToolForAsLongIsNoFinding() throws IOException {
        List<Reason> reasons = sanitizerBeside(
                List.of("python3", "bench.py"), 9, 26.1, "regression", List.of("python3", "bench.py"), 410, 22.6);

        assertThat(reasons).isEmpty();
    }

    @Test
    void aRunThatResumedAndEndedEarlyIsLessWorkEvenUnderTheTool() throws IOException {
        List<Reason> reasons = sanitizerBeside(
                List.of("python3", "train.py"), 0, 6.0, "regression", List.of("python3", "train.py"), 256, 30.0);

        assertThat(reasons).extracting(Reason::code).containsExactly("less-work");
    }
    /**
     * CI's loaded machine: the sanitizer run of a short clean job ended first and the blocking run beside it was cut
     * 1.2 s in, while its process still imported the job's modules. That run did nothing anywhere: no "worked on the
     * CPU". A stopped run that did take steps without a CUDA context did work on the CPU.
     */
    @ParameterizedTest(name = "steps before the stop: {0}")
    @ValueSource(ints = {0, 5})
    void aRunStoppedBeforeItCreatedACudaContextWorkedOnTheCpuOnlyWhereItTookSteps(int steps) throws IOException {
        probe(
                "blocking",
                "{\"type\":\"probe\",\"pid\":7,\"t\":0.1}",
                "{\"type\":\"work\",\"event\":\"progress\",\"pid\":7,\"steps\":" + steps
                        + ",\"cuda\":false,\"ts\":1.1}");
        probe("regression", work(8, 8));
        List<Reason> reasons = reasons(record(
                phase("blocking", PhaseResult.STOPPED_EARLY, List.of("python3", "train.py"), BlockingPhase.CUT, 1.2),
                phase("regression", PhaseResult.PASSED, List.of("python3", "train.py"), null, 3)));

        if (steps == 0) {
            assertThat(reasons).isEmpty();
        } else {
            assertThat(reasons)
                    .extracting(Reason::code, Reason::message)
                    .singleElement()
                    .satisfies(t -> {
                        assertThat(t.toList().get(0)).isEqualTo("no-gpu-work");
                        assertThat((String) t.toList().get(1)).startsWith("blocking: the job ran (5 optimizer step(s)");
                    });
        }
    }
}
