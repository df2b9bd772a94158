package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.run.environment.CardFault;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Issue #48, 7: a card that broke (after a memcheck run timed out and was killed, nvidia-smi showed it in ERR! and
 * later jobs found no CUDA) is said to be in an error state, in nvidia-smi's words, so the agent is taken out of
 * service rather than the job blamed. The healthy table is the H200's (corpus/h200/env/nvidia-smi.txt); the broken
 * ones are crafted from it, no broken card's output being recorded: its second GPU row with nvidia-smi's ERR! in the
 * fields it could not read, and the "GPU is lost" line as public reports quote it (JosephKJ/OWOD#81).
 */
@Execution(ExecutionMode.CONCURRENT) // real processes that mostly wait: the tests overlap
class CardFaultTest {
    static final String LOST =
            "Unable to determine the device handle for GPU 0000:02:00.0: GPU is lost.  Reboot the system to recover"
                    + " this GPU\n";

    /** What the job's Python answers on a card torch cannot use. */
    static final String NO_CUDA = "{\"python\": \"3.12.3\", \"torch\": \"2.11.0+cu130\", \"cuda\": \"13.0\","
            + " \"cuda_available\": false, \"dsa\": false}";

    @TempDir
    Path dir;

    static String healthy() throws Exception {
        return Files.readString(Corpus.file("env/nvidia-smi.txt"), StandardCharsets.UTF_8);
    }

    static String errTable() throws Exception {
        String table = healthy();
        String row = "| N/A   37C    P0             78W /  700W |";
        assertThat(table).contains(row);
        return table.replace(row, "| ERR!  ERR!   ERR!          ERR! /  ERR! |");
    }

    @Test
    void aHealthyCardShowsNoFault() throws Exception {
        assertThat(CardFault.in(healthy())).isNull();
    }

    @Test
    void errInTheTableIsNamedWithTheGpuAndTheRow() throws Exception {
        assertThat(CardFault.in(errTable()))
                .startsWith("nvidia-smi shows ERR! for GPU 0 in its table")
                .contains("ERR! ERR! ERR!");
        assertThat(CardFault.in(LOST)).contains("GPU is lost").contains("Unable to determine the device handle");
    }

    @Test
    void aCardInErrWhoseTorchFindsNoCudaIsTheCardsErrorNotTheJobs() throws Exception {
        Report r = whereTorchFindsNoCuda("nvidia-smi.txt", errTable());

        assertThat(r.verdict()).isEqualTo(Verdict.ERROR);
        assertThat(r.reasons())
                .anyMatch(x -> x.level().equals("error")
                        && x.message().startsWith("torch.cuda.is_available() is False")
                        && x.message().contains(CardFault.MARK)
                        && x.message().contains("nvidia-smi shows ERR! for GPU 0")
                        && x.message().contains("Take this agent out of service"));
    }

    /** A gate on a card whose nvidia-smi answers {@code file} with {@code answer}, and where torch finds no CUDA. */
    private Report whereTorchFindsNoCuda(String file, String answer) throws Exception {
        FakeGpu gpu = new FakeGpu(dir.resolve("gpu")).clean().put(file, answer).put("torch-probe.json", NO_CUDA);
        return new Runner(FakeGpu.farOobSpec(dir.resolve("run")), gpu.env(), line -> {}).run();
    }

    /** The H200's own nvidia-smi -q with the row remapper's and the recovery action's fields of a card that needs service. */
    static String queryNeedingService() throws Exception {
        String q = Files.readString(Corpus.file("env/nvidia-smi-q.txt"), StandardCharsets.UTF_8);
        String pending =
                "        Pending                                        : No\n        Remapping Failure Occurred";
        String action = "    GPU Recovery Action                                : None";
        assertThat(q).contains(pending).contains(action);
        return q.replace(pending, pending.replace(": No", ": Yes"))
                .replace(action, action.replace(": None", ": Reset"));
    }

    @Test
    void nvidiaSmiQueryFieldsOfACardThatNeedsServiceAreNamed() throws Exception {
        assertThat(CardFault.inQuery(Files.readString(Corpus.file("env/nvidia-smi-q.txt"), StandardCharsets.UTF_8)))
                .as("the H200's: recovery action None, nothing pending, no uncorrectable error")
                .isNull();
        assertThat(CardFault.inQuery(queryNeedingService()))
                .isEqualTo("nvidia-smi -q shows GPU Recovery Action: Reset; Remapped Rows / Pending: Yes");
    }

    @Test
    void aCardWhoseQuerySaysItNeedsServiceIsNamedWhenTorchFindsNoCuda() throws Exception {
        Report r = whereTorchFindsNoCuda("nvidia-smi-q.txt", queryNeedingService());

        assertThat(r.verdict()).isEqualTo(Verdict.ERROR);
        assertThat(r.reasons())
                .anyMatch(x -> x.level().equals("error")
                        && x.message().startsWith("torch.cuda.is_available() is False")
                        && x.message().contains(CardFault.MARK + ": nvidia-smi -q shows GPU Recovery Action: Reset"));
    }

    @Test
    void aHealthyCardWhoseTorchFindsNoCudaIsNotSaidToBeBroken() throws Exception {
        FakeGpu gpu = new FakeGpu(dir.resolve("gpu")).clean().put("torch-probe.json", NO_CUDA);

        Report r = new Runner(FakeGpu.farOobSpec(dir.resolve("run")), gpu.env(), line -> {}).run();

        assertThat(gpu.logged("calls.txt")).contains("nvidia-smi -q -i 0");
        assertThat(r.reasons())
                .anyMatch(x -> x.message().startsWith("torch.cuda.is_available() is False"))
                .noneMatch(x -> x.message().contains(CardFault.MARK));
    }

    @Test
    void aLostCardIsSaidInNvidiaSmisWordsNotAsNoGpu() throws Exception {
        FakeGpu gpu = new FakeGpu(dir.resolve("gpu"))
                .clean()
                .put("nvidia-smi.txt", LOST)
                .put("nvidia-smi.exit", "15");

        Report r = new Runner(FakeGpu.farOobSpec(dir.resolve("run")), gpu.env(), line -> {}).run();

        assertThat(r.verdict()).isEqualTo(Verdict.ERROR);
        assertThat(r.reasons())
                .anyMatch(x -> x.level().equals("error")
                        && x.message().startsWith(CardFault.MARK)
                        && x.message().contains("GPU is lost")
                        && x.message().contains("exit 15")
                        && !x.message().startsWith("no GPU"));
    }

    @Test
    void aCardWithoutFaultKeepsTheOldNoGpuWords() throws Exception {
        FakeGpu gpu = new FakeGpu(dir.resolve("gpu")).clean().put("no-gpu", "");

        Report r = new Runner(FakeGpu.farOobSpec(dir.resolve("run")), gpu.env(), line -> {}).run();

        assertThat(r.reasons())
                .anyMatch(x -> x.message().startsWith("no GPU:"))
                .noneMatch(x -> x.message().contains(CardFault.MARK));
    }
}
