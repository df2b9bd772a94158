package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #47, situations 11-15: runs that did none of the job's work are never a PASS. Each case is the recorded clean
 * torchrun job that resumes from its snapshot (records/h100-2026-12-06-isolation.zip.xz, {@code resume-ddp}: PASS, 128
 * optimizer steps in each run's own copy), its run directory changed to what the situation's runs write: the probe's
 * {@code work} records (steps, backward passes) and {@code state} records (files opened outside the copy) in the
 * probe's format, nvidia-smi's {@code gpu-pids.txt}, the phases' records in run.json. Judged by {@code analyze
 * --run-dir}, with the first build's report as the reference where the situation has a first build.
 */
class ProofOfWorkSituationsTest {
    private static final List<String> RUNS = List.of("sanitizer-memcheck", "blocking", "regression");
    private static final String CHECKPOINT = "/tmp/test-clm/checkpoint-20/trainer_state.json";

    /** One record a line, as the probe writes them. */
    private static final ObjectMapper LINE = new ObjectMapper();

    @TempDir
    Path dir;

    /** A fresh copy of the recorded clean run, as build {@code name}. */
    private Path build(String name) {
        return Records.unzip("h100-2026-12-06-isolation", dir.resolve(name)).resolve("resume-ddp");
    }

    private record Judged(JsonNode report, String console, String html) {
        String verdict() {
            return report.get("verdict").asText();
        }

        List<String> messages(String code) {
            List<String> out = new ArrayList<>();
            report.get("reasons").forEach(r -> {
                if (r.get("code").asText().equals(code)) {
                    out.add(r.get("message").asText());
                }
            });
            return out;
        }

        JsonNode work(String run) {
            for (JsonNode w : report.get("work")) {
                if (w.get("run").asText().equals(run)) {
                    return w;
                }
            }
            throw new AssertionError("no work entry for " + run + ": " + report.get("work"));
        }
    }

    private Judged analyze(Path run, Path reference) {
        Path json = dir.resolve(run.getParent().getFileName() + ".json");
        Path html = dir.resolve(run.getParent().getFileName() + ".html");
        List<String> args = new ArrayList<>(
                List.of("analyze", "--run-dir", run.toString(), "--json", json.toString(), "--html", html.toString()));
        if (reference != null) {
            args.addAll(List.of("--reference", reference.toString()));
        }
        CliRunner r = CliRunner.run(args.toArray(String[]::new));
        assertThat(r.exit()).as(r.out() + r.err()).isBetween(0, 3);
        try {
            return new Judged(CliRunner.json(json), r.out(), Files.readString(html, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * A run's probe file as a run that did {@code steps} optimizer steps and {@code backward} backward passes writes it:
     * the counts of the recorded progress and exit records set to those (a killed process writes no exit record),
     * {@code extra} records appended.
     */
    private static void work(Path run, String phase, long steps, long backward, String... extra) throws IOException {
        Path probe = run.resolve(phase).resolve("probe.jsonl");
        List<String> out = new ArrayList<>();
        for (String line : Files.readAllLines(probe, StandardCharsets.UTF_8)) {
            JsonNode n = ReportJson.mapper().readTree(line);
            String event = n.path("event").asText();
            boolean rank = n.path("cuda").asBoolean(true); // torchrun's own process took no step
            if ("work".equals(n.path("type").asText()) && ("exit".equals(event) || "progress".equals(event)) && rank) {
                ObjectNode counts = (ObjectNode) n;
                counts.put("steps", steps);
                counts.put("backward", backward);
                out.add(LINE.writeValueAsString(counts));
            } else {
                out.add(line);
            }
        }
        out.addAll(List.of(extra));
        Files.write(probe, out, StandardCharsets.UTF_8);
    }

    /** The probe's record of a file the job read outside its copy of the working directory. */
    private static String stateRead(long pid, String path, String where) {
        return "{\"type\":\"state\",\"event\":\"read\",\"path\":\"" + path + "\",\"where\":\"" + where
                + "\",\"ts\":1796533600.5,\"t\":3.1,\"pid\":" + pid + "}";
    }

    /** The probe's record of a process that built its optimizer and loaded the optimizer's state. */
    private static String optimizerLoaded(long pid) {
        return "{\"type\":\"work\",\"event\":\"loads\",\"optimizers\":1,\"loads\":1,\"ts\":1796533600.6,\"t\":3.2,"
                + "\"pid\":" + pid + "}";
    }

    /** The pid of the process that created the CUDA context in a run (the torchrun rank). */
    private static long rank(Path run, String phase) throws IOException {
        for (String line : Files.readAllLines(run.resolve(phase).resolve("probe.jsonl"), StandardCharsets.UTF_8)) {
            JsonNode n = ReportJson.mapper().readTree(line);
            if ("work".equals(n.path("type").asText())
                    && "cuda".equals(n.path("event").asText())) {
                return n.get("pid").asLong();
            }
        }
        throw new AssertionError("no CUDA context in " + phase);
    }

    /** Changes each recorded phase of run.json. */
    private static void phases(Path run, Consumer<ObjectNode> change) throws IOException {
        Path f = run.resolve("run.json");
        JsonNode record = ReportJson.mapper().readTree(f.toFile());
        ArrayNode phases = (ArrayNode) record.get("execution").get("phases");
        phases.forEach(p -> change.accept((ObjectNode) p));
        ReportJson.mapper().writeValue(f.toFile(), record);
    }

    private static void withJobArgs(ObjectNode phase, String... args) {
        ArrayNode command = (ArrayNode) phase.get("command");
        for (String a : args) {
            command.add(a);
        }
    }

    /** The first build on the agent: every run trained (the recorded run), its report the reference. */
    private Path firstBuild(Consumer<Path> change) {
        Path first = build("first");
        change.accept(first);
        Judged j = analyze(first, null);
        assertThat(j.verdict()).as(j.report().get("reasons").toString()).isEqualTo("PASS");
        return dir.resolve("first.json");
    }

    /**
     * Situation 11: a job that resumes from the newest checkpoint under /tmp (HF run_clm.py --output_dir
     * /tmp/test-clm), second build on the same agent: each run finds the first build's checkpoint and trains nothing.
     * The runs agree with each other; the first build's runs trained, and each run read the checkpoint outside its copy.
     */
    @Test
    void situation11SecondBuildThatResumedFromACheckpointUnderTmpInEveryRunIsNoPass() throws IOException {
        Path reference = firstBuild(run -> {});
        Path second = build("second");
        for (String phase : RUNS) {
            work(second, phase, 0, 0, stateRead(rank(second, phase), CHECKPOINT, "tmp"));
        }

        Judged alone = analyze(second, null);
        assertThat(alone.messages("no-work-seen"))
                .as("alone, the build says what it saw, and that only the reference can tell")
                .singleElement()
                .satisfies(m -> assertThat(m).contains(CHECKPOINT, "reference"));

        // a probe that counts optimizers (the recorded one did not) sees each run build its optimizer and load its
        // state: alone, too, the build is no PASS
        Path counted = build("second-counted");
        for (String phase : RUNS) {
            long rank = rank(counted, phase);
            work(counted, phase, 0, 0, stateRead(rank, CHECKPOINT, "tmp"), optimizerLoaded(rank));
        }
        Judged seen = analyze(counted, null);
        assertThat(seen.verdict()).isEqualTo("UNSTABLE");
        assertThat(seen.messages("no-work"))
                .singleElement()
                .satisfies(m -> assertThat(m).contains("loaded its saved state", CHECKPOINT + " (tmp)"));
        assertThat(seen.html()).contains("1 optimizer(s) built, 1 state(s) loaded");

        Judged j = analyze(second, reference);
        assertThat(j.verdict()).isEqualTo("ERROR");
        List<String> lessWork = j.messages("less-work");
        assertThat(lessWork).hasSize(3);
        for (String run : RUNS) {
            assertThat(lessWork)
                    .as(run)
                    .anySatisfy(m -> assertThat(m)
                            .startsWith(run + " did 0 optimizer step(s) where the same run of the same command did 128"
                                    + " in the reference build")
                            .contains("likely cause: state it read from outside its copy", CHECKPOINT + " (tmp)"));
            assertThat(j.work(run).get("stateOutside").get(0).get("path").asText())
                    .isEqualTo(CHECKPOINT);
        }
        assertThat(j.html()).contains(CHECKPOINT);
    }

    /** The reference weighs only the same run of the same command: a run of another command there says nothing. */
    @Test
    void aReferenceRunOfAnotherCommandIsNotWeighed() throws IOException {
        Path reference = firstBuild(run -> {
            try {
                phases(run, p -> {
                    if (p.get("name").asText().equals("regression")) {
                        withJobArgs(p, "--lr", "0.1");
                    }
                });
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        Path second = build("second");
        for (String phase : RUNS) {
            work(second, phase, 0, 0, stateRead(rank(second, phase), CHECKPOINT, "tmp"));
        }

        Judged j = analyze(second, reference);
        assertThat(j.verdict()).isEqualTo("ERROR");
        assertThat(j.messages("less-work"))
                .hasSize(2)
                .noneSatisfy(m -> assertThat(m).startsWith("regression "));
    }

    /**
     * Situation 12: the README's shorter sanitizerCommand after an aborted build: the memcheck run found the checkpoint
     * past its max_steps and trained nothing, the blocking run was cut at the sanitizer run's clean end, the regression
     * run trained 10 of the job's steps in a fraction of its time. The sanitizer run is judged against its own command.
     */
    @Test
    void situation12AShorterSanitizerCommandThatTrainedNothingIsNoPassWithOrWithoutAReference() throws IOException {
        Path reference = firstBuild(run -> {
            try {
                phases(run, p -> {
                    if (p.get("name").asText().startsWith("sanitizer")) {
                        withJobArgs(p, "--max_steps", "8");
                    }
                });
                work(run, "sanitizer-memcheck", 8, 8);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        Path second = build("second");
        phases(second, p -> {
            switch (p.get("name").asText()) {
                case "sanitizer-memcheck" -> withJobArgs(p, "--max_steps", "8");
                case "blocking" -> p.put("status", "stopped-early").put("note", "cut: the sanitizer runs ended clean");
                default -> p.put("wallSeconds", 3.0);
            }
        });
        work(second, "sanitizer-memcheck", 0, 0, stateRead(rank(second, "sanitizer-memcheck"), CHECKPOINT, "tmp"));
        work(second, "blocking", 4, 4);
        work(second, "regression", 10, 10);

        Judged alone = analyze(second, null);
        assertThat(alone.verdict()).isEqualTo("ERROR");
        assertThat(alone.messages("less-work"))
                .singleElement()
                .satisfies(m -> assertThat(m)
                        .startsWith("sanitizer-memcheck ran a command of its own (sanitizerCommand)")
                        .contains("0 optimizer step(s) and 0 backward pass(es)", CHECKPOINT));

        Judged j = analyze(second, reference);
        assertThat(j.verdict()).isEqualTo("ERROR");
        assertThat(j.messages("less-work"))
                .anySatisfy(m -> assertThat(m).startsWith("sanitizer-memcheck "))
                .anySatisfy(m -> assertThat(m)
                        .startsWith("regression did 10 optimizer step(s) where the same run of the same command did"
                                + " 128 in the reference build"));
    }

    /**
     * Situation 13: hand-written updates ({@code p.data.add_(p.grad, alpha=-lr)}) take backward passes and no optimizer
     * step: the job's work shows in every run and it passes; with one run resumed, that run did none of it.
     */
    @Test
    void situation13HandWrittenUpdatesCountAsWorkAndARunThatTookNoneIsNoPass() throws IOException {
        Path clean = build("clean");
        for (String phase : RUNS) {
            work(clean, phase, 0, 128);
        }
        Judged ok = analyze(clean, null);
        assertThat(ok.verdict()).as(ok.report().get("reasons").toString()).isEqualTo("PASS");
        for (String run : RUNS) {
            assertThat(ok.work(run).get("backwardPasses").asLong()).as(run).isEqualTo(128);
            assertThat(ok.work(run).get("optimizerSteps").asLong()).as(run).isZero();
        }
        assertThat(ok.html()).contains("<th>backward passes</th>");

        Path resumed = build("resumed");
        work(resumed, "sanitizer-memcheck", 0, 128);
        work(resumed, "blocking", 0, 128);
        work(resumed, "regression", 0, 0, stateRead(rank(resumed, "regression"), "/home/ci/.cache/lm/ckpt.pt", "home"));
        Judged j = analyze(resumed, null);
        assertThat(j.verdict()).isEqualTo("ERROR");
        assertThat(j.messages("less-work"))
                .singleElement()
                .satisfies(m -> assertThat(m)
                        .startsWith("regression did 0 backward pass(es) where sanitizer-memcheck did 128")
                        .contains("/home/ci/.cache/lm/ckpt.pt (home)"));
    }

    /**
     * Situation 14: a run script that does {@code export PYTHONPATH=./} drops the probe: no run wrote a record, while
     * nvidia-smi listed the job's process on the card. Said as such on the console and in the report, not PASS.
     */
    @Test
    void situation14AProbeDroppedWhileTheJobUsedTheGpuIsSaidAndNoPass() throws IOException {
        Path run = build("dropped");
        for (String phase : RUNS) {
            Files.delete(run.resolve(phase).resolve("probe.jsonl"));
        }
        assertThat(run.resolve("regression/gpu-pids.txt")).content().contains("783 ours cookie");

        Judged j = analyze(run, null);
        assertThat(j.verdict()).isEqualTo("ERROR");
        assertThat(j.messages("probe-dropped"))
                .singleElement()
                .satisfies(m -> assertThat(m)
                        .startsWith("sanitizer-memcheck, blocking, regression: the probe was on and wrote nothing")
                        .contains(
                                "process(es) 783 on the GPU in regression",
                                "the probe was dropped (a reset PYTHONPATH?)"));
        assertThat(j.console()).contains("the probe was dropped (a reset PYTHONPATH?)");
        assertThat(j.work("regression").get("probe").asText()).isEqualTo("silent");
        assertThat(j.work("regression").get("gpuSeen").asText()).isEqualTo("used");
        assertThat(j.html())
                .contains("the probe was dropped (a reset PYTHONPATH?)")
                .doesNotContain("no process imported torch, or the probe was off");
    }

    /**
     * Situation 15: a launcher ({@code nohup sh -c 'sleep 1; sh ./train.sh' &}) that exits 0 at once: its child was
     * killed with the phase before it started, no process imported torch and none was seen on the GPU.
     */
    @Test
    void situation15ALauncherThatExitedAtOnceRanNothingOfTheJob() throws IOException {
        Path run = build("launcher");
        for (String phase : RUNS) {
            Files.delete(run.resolve(phase).resolve("probe.jsonl"));
        }
        Files.writeString(run.resolve("regression/gpu-pids.txt"), "pid-namespace pid:[4026531836]\n");
        phases(
                run,
                p -> p.put("wallSeconds", 0.3)
                        .put(
                                "note",
                                "1 leftover process(es) of the phase killed: 4242 (sh -c sleep 1; sh ./train.sh)"));

        Judged j = analyze(run, null);
        assertThat(j.verdict()).isEqualTo("ERROR");
        List<String> nothing = j.messages("nothing-ran");
        assertThat(nothing).hasSize(3);
        for (String name : RUNS) {
            assertThat(nothing)
                    .anySatisfy(m -> assertThat(m)
                            .startsWith(name + ": nothing of the job ran")
                            .contains("(4242) were killed with the phase", "imported torch"));
        }
        assertThat(nothing).anySatisfy(m -> assertThat(m).contains("nvidia-smi saw none of its processes on the GPU"));
        assertThat(j.work("regression").get("gpuSeen").asText()).isEqualTo("not-seen");
        assertThat(j.html()).contains("nothing counted: no process imported torch, and nvidia-smi saw none on the GPU");
    }

    /** The clean record itself still passes with every run's work shown: the rules above are not its doing. */
    @Test
    void theRecordedCleanRunStillPassesWithItsWorkShown() {
        Judged j = analyze(build("as-recorded"), null);

        assertThat(j.verdict()).as(j.report().get("reasons").toString()).isEqualTo("PASS");
        for (String run : RUNS) {
            assertThat(j.work(run).get("optimizerSteps").asLong()).isEqualTo(128);
            assertThat(j.work(run).get("probe").asText()).isEqualTo("counted");
        }
    }
}
