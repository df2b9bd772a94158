package io.jenkins.plugins.gpusanitizer.engine.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.model.CoverageMode;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where coverage mode {@code kernels} stops a sanitizer run, decided from a blocking run's folder: the census the DDP
 * tutorial's torchrun wrote on an H100 (the agent's process with no kernel, the rank's with 15 kernels in 30 domain and
 * name pairs) and the probe's step-by-step counts beside it.
 */
class CoverageDecisionTest {
    private static final Path CENSUS = Records.unpacked("h100-2026-12-07-coverage/cov-b/ddp/census");

    @TempDir
    Path dir;

    private Path blocking(String probe) throws IOException {
        Path census = Files.createDirectories(dir.resolve("census"));
        for (String f : List.of("census-4105.jsonl", "census-4120.jsonl")) {
            Files.copy(CENSUS.resolve(f), census.resolve(f));
        }
        Files.writeString(dir.resolve("probe.jsonl"), probe);
        return dir;
    }

    private static String count(String hook, long steps, long backward, long distinct) {
        return "{\"type\":\"census\",\"hook\":\"" + hook + "\",\"steps\":" + steps + ",\"backward\":" + backward
                + ",\"distinct\":" + distinct + ",\"pid\":4120}\n";
    }

    private static String exit(long steps, long backward) {
        return "{\"type\":\"work\",\"event\":\"exit\",\"steps\":" + steps + ",\"backward\":" + backward
                + ",\"cuda\":true,\"pid\":4120}\n";
    }

    @Test
    void aCountReadAtAStepCoversThatStepAndOneReadAsABackwardPassBeginsCoversTheNextStepsForward() throws IOException {
        CoverageDecision atStep = CoverageDecision.decide(
                blocking(count("backward", 0, 1, 24) + count("step", 3, 3, 30) + exit(640, 640)), true);
        assertThat(List.of(atStep.unit(), atStep.at(), atStep.of(), atStep.kernels()))
                .containsExactly("steps", 4L, 640L, 15);
        assertThat(atStep.reason())
                .isEqualTo("the blocking run had launched all 15 of its kernels by its optimizer step 3 of 640: the"
                        + " sanitizer run checks every launch up to its optimizer step 4 and ends the job there");

        Files.delete(dir.resolve("probe.jsonl"));
        Files.writeString(dir.resolve("probe.jsonl"), count("backward", 3, 4, 30) + exit(640, 640));
        CoverageDecision atBackward = CoverageDecision.decide(dir, true);
        assertThat(atBackward.at())
                .as("kernels of step 4's forward: stop after step 5")
                .isEqualTo(5);
    }

    @Test
    void aJobWithoutOptimizerStepsStopsInBackwardPasses() throws IOException {
        CoverageDecision d = CoverageDecision.decide(
                blocking(count("backward", 0, 1, 20) + count("backward", 0, 2, 30) + exit(0, 60)), true);
        assertThat(List.of(d.unit(), d.at(), d.of())).containsExactly("backward", 3L, 60L);
    }

    @Test
    void theWholeJobIsCheckedWhereNothingBoundsIt() throws IOException {
        String settled = count("step", 1, 1, 30) + exit(640, 640);
        assertThat(CoverageDecision.decide(blocking(settled), false).reason())
                .isEqualTo("the sanitizer run checks the whole job: the blocking run did not end clean, so it is no"
                        + " measure of the kernels the job launches");
        assertThat(CoverageDecision.decide(dir, true).stops()).isTrue();

        Files.writeString(dir.resolve("probe.jsonl"), count("step", 1, 1, 28) + exit(640, 640));
        assertThat(CoverageDecision.decide(dir, true).reason())
                .contains("process 4120 launched 2 new kernel(s) after its last optimizer step or backward pass");

        Files.writeString(dir.resolve("probe.jsonl"), exit(640, 640));
        assertThat(CoverageDecision.decide(dir, true).reason())
                .contains("process 4120 launched its kernels where the probe counted no optimizer step or backward");

        Files.writeString(dir.resolve("probe.jsonl"), count("step", 639, 639, 30) + exit(640, 640));
        assertThat(CoverageDecision.decide(dir, true).reason())
                .endsWith("the blocking run launched new kernels until its optimizer step 639 of 640");

        Files.writeString(dir.resolve("probe.jsonl"), count("step", 0, 0, 30) + exit(0, 0));
        assertThat(CoverageDecision.decide(dir, true).reason())
                .endsWith("took no optimizer step or backward pass to stop at");
    }

    @Test
    void noCensusOrAProcessKilledBeforeItsTotalsIsNoStop() throws IOException {
        Files.writeString(dir.resolve("probe.jsonl"), count("step", 1, 1, 30) + exit(640, 640));
        assertThat(CoverageDecision.decide(dir, true).reason())
                .endsWith("the blocking run has no kernel census (census/build.log says why)");

        Path census = Files.createDirectories(dir.resolve("census"));
        List<String> lines = Files.readAllLines(CENSUS.resolve("census-4120.jsonl"));
        Files.write(
                census.resolve("census-4120.jsonl"),
                lines.stream().filter(l -> !l.contains("\"total\"")).toList());
        assertThat(CoverageDecision.decide(dir, true).reason())
                .endsWith("a process of the blocking run wrote no census totals at its exit");
    }

    @Test
    void theDecisionAndTheProbesStopFileAreWrittenWholeAndReadBack() throws IOException {
        CoverageDecision d = CoverageDecision.decide(blocking(count("step", 1, 1, 30) + exit(640, 640)), true);
        Path phase = Files.createDirectories(dir.resolve("sanitizer-memcheck"));
        d.write(phase);
        assertThat(CoverageDecision.read(phase)).isEqualTo(d);
        assertThat(Files.readString(phase.resolve(CoverageDecision.STOP_FILE)))
                .contains("\"unit\":\"steps\"")
                .contains("\"at\":2");
        assertThat(phase).isDirectoryNotContaining("glob:**.partial");

        Path full = Files.createDirectories(dir.resolve("full"));
        CoverageDecision.asked(CoverageMode.FULL).write(full);
        assertThat(full.resolve(CoverageDecision.STOP_FILE)).doesNotExist();
        assertThat(CoverageDecision.read(full).decided()).isTrue();
        assertThat(CoverageDecision.read(dir.resolve("nowhere"))).isNull();
    }

    @Test
    void onlyStopRecordsAtTheDecidedPointAgree() throws IOException {
        CoverageDecision d = CoverageDecision.decide(blocking(count("step", 1, 1, 30) + exit(640, 640)), true);
        ProbeLog.CoverageStop there = new ProbeLog.CoverageStop(1, "steps", 2, 5, 5, true, false);
        ProbeLog.CoverageStop elsewhere = new ProbeLog.CoverageStop(2, "steps", 1, 1, 1, true, false);
        assertThat(d.agreesWith(List.of(there))).isTrue();
        assertThat(d.reached(List.of(there))).isEqualTo(5);
        assertThat(d.agreesWith(List.of(there, elsewhere))).isFalse();
        assertThat(d.agreesWith(List.of())).isFalse();
        assertThat(CoverageDecision.asked(CoverageMode.KERNELS).agreesWith(List.of(there)))
                .isFalse();
    }

    @Test
    void kernelsNewSinceTheReferenceBuildKeepTheWholeJobUnderTheTool() throws IOException {
        Path blocking = blocking(count("step", 1, 1, 30) + exit(640, 640));
        List<String> names = KernelCensus.read(blocking.resolve("census")).kernels().stream()
                .map(KernelCensus.Kernel::name)
                .toList();
        assertThat(CoverageDecision.decide(blocking, true, new java.util.HashSet<>(names))
                        .stops())
                .as("the reference launched them all")
                .isTrue();
        assertThat(CoverageDecision.decide(blocking, true, java.util.Set.of()).stops())
                .as("a reference without a census says nothing")
                .isTrue();
        java.util.Set<String> older = new java.util.HashSet<>(names);
        older.remove(names.get(names.size() - 1));
        CoverageDecision d = CoverageDecision.decide(blocking, true, older);
        assertThat(d.stops()).isFalse();
        assertThat(d.reason())
                .isEqualTo(
                        "the sanitizer run checks the whole job: 1 kernel(s) the plain run launched are new since the"
                                + " reference build (" + names.get(names.size() - 1)
                                + "), and a new kernel is checked in"
                                + " every launch");
    }
}
