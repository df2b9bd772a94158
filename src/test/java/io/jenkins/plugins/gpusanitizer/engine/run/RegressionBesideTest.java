package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import io.jenkins.plugins.gpusanitizer.engine.report.ExecutionJson;
import io.jenkins.plugins.gpusanitizer.engine.report.PhaseJson;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.report.ThroughputJson;
import io.jenkins.plugins.gpusanitizer.testing.FileWait;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * On one GPU the regression run starts beside the sanitizer run when the card has room for the job once more (seen
 * beside the blocking run), else after it, and says which and why. The sanitizer's and blocking jobs wait at gates the
 * test opens only once it saw what it checks (the regression run's job started, or the plan said "after"): the order
 * is proven by the gates, not by time. The tests share nothing (each its own directory, stand-in tools and GPU lock
 * folder, console, runner thread): they wait on their jobs' processes, so they overlap.
 */
@Execution(ExecutionMode.CONCURRENT)
class RegressionBesideTest {
    private static final Duration LIMIT = Duration.ofMinutes(2);

    @TempDir
    Path dir;

    private final List<String> console = Collections.synchronizedList(new ArrayList<>());

    /** A card of 143,771 MiB (the H200) as the sampler beside the blocking run prints it: idle, then in use. */
    /** What a job that ran out of GPU memory prints (once: the card was shared the first time). */
    private static final String OUT_OF_MEMORY =
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB."
                    + " GPU 0 has a total capacity of 139.81 GiB of which 1.02 GiB is free.\n";

    private static String card(String idle, String used) {
        return "timestamp, index, memory.used [MiB], memory.total [MiB]\n"
                + "2026/12/02 14:41:59.920, 0, " + idle + ", 143771\n"
                + "2026/12/02 14:42:00.173, 0, " + used + ", 143771\n";
    }

    /** A clean job on a card the sampler beside the blocking run prints; the regression run's job reports it/s. */
    private FakeGpu cleanJob(String cardCsv) {
        return new FakeGpu(dir)
                .clean()
                .copy("slowdown/plain-200-steps.stdout", "async.stdout")
                .put("async.sleep", "0")
                .put("card.csv", cardCsv);
    }

    /** The same, its sanitizer and blocking jobs waiting at their gates. */
    private FakeGpu gatedCleanJob(String cardCsv) {
        return cleanJob(cardCsv).put("memcheck-app.gate", "").put("blocking.gate", "");
    }

    private RunSpec spec() {
        return FakeGpu.farOobSpec(dir.resolve("run")).roomCheckSeconds(0);
    }

    /** The run on a thread of its own; {@code said} counts down when a console line holds {@code words}. */
    private FutureTask<Report> start(FakeGpu gpu, RunSpec spec, String words, CountDownLatch said) {
        FutureTask<Report> run = new FutureTask<>(() -> new Runner(spec, gpu.env(), line -> {
                    console.add(line);
                    if (words != null && line.contains(words)) {
                        said.countDown();
                    }
                })
                .run());
        Thread thread = new Thread(run, "runner-under-test");
        thread.setDaemon(true);
        thread.start();
        return run;
    }

    private static void open(FakeGpu gpu, String... modes) {
        for (String mode : modes) {
            gpu.put(mode + ".open", "");
        }
    }

    /** The seconds the plan's line says the card was watched (they depend on the machine's load). */
    private static String watched(String line) {
        int in = line.indexOf("in their first ");
        return in < 0 ? "?" : line.substring(in + "in their first ".length(), line.indexOf(" s on the card", in));
    }

    private static PhaseJson phase(Report r, String name) {
        return RunnerTest.phase(r, name);
    }

    @Test
    void withRoomOnTheCardTheRegressionRunStartsBesideTheSanitizerRunAndItsThroughputIsNotJudged() throws Exception {
        FakeGpu gpu = gatedCleanJob(card("0", "4000"));
        FutureTask<Report> run =
                start(gpu, spec().throughputRegex("it/s ([0-9.]+)").throughputBaseline(2370.0), null, null);

        boolean started = FileWait.all(LIMIT, gpu.log.resolve("pid-async.txt"));
        open(gpu, "memcheck-app", "blocking"); // only now can the sanitizer run end
        Report r = run.get(5, TimeUnit.MINUTES);

        assertThat(started)
                .as("the regression run's job started while the sanitizer's job waited")
                .isTrue();
        assertThat(console)
                .anyMatch(l -> l.contains("] regression beside the sanitizer run: card has 139,771 MiB free; the"
                        + " sanitizer and blocking runs together held at most 4,000 MiB in their first " + watched(l)
                        + " s on the card, not the job's whole run (143,771 MiB total)"));
        PhaseJson regression = phase(r, "regression");
        assertThat(regression.ranBeside()).isTrue();
        assertThat(regression.note()).contains("regression beside the sanitizer run: card has 139,771 MiB free");
        assertThat(r.execution().phases())
                .extracting(PhaseJson::name)
                .containsExactly("sanitizer-memcheck", "blocking", "regression");
        assertThat(r.reasons())
                .anyMatch(x -> x.code().equals("regression-plan")
                        && x.level().equals("info")
                        && x.message().startsWith("regression beside the sanitizer run"));
        // a baseline of 2370 it/s would fail it alone (it ran ~237 it/s): beside, it is recorded, not judged
        assertThat(r.execution().throughput().measured()).isBetween(200.0, 240.0);
        assertThat(r.reasons())
                .anyMatch(x -> x.code().equals("throughput")
                        && x.level().equals("warning")
                        && x.message().contains("not judged: the regression run ran beside the sanitizer run"));
        // the card's total counts both jobs and the stand-in lists no process of the job's: drawn, not judged
        assertThat(r.memory()).singleElement().satisfies(m -> {
            assertThat(m.basis()).isEqualTo("card-total");
            assertThat(m.shape()).isEqualTo("unknown");
            assertThat(m.description()).startsWith("not judged: card shared with the sanitizer run");
        });
        assertThat(r.reasons()).anyMatch(x -> x.code().equals("memory-not-judged"));
        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.PASS);
    }

    @Test
    void withoutRoomTheRegressionRunWaitsForTheSanitizerRunAndItsThroughputIsJudged() throws Exception {
        FakeGpu gpu = gatedCleanJob(card("0", "100000"));
        CountDownLatch planned = new CountDownLatch(1);
        FutureTask<Report> run = start(
                gpu,
                spec().throughputRegex("it/s ([0-9.]+)").throughputBaseline(2370.0),
                "regression after the sanitizer run",
                planned);

        boolean said = planned.await(2, TimeUnit.MINUTES);
        boolean startedBeforeTheSanitizerEnded = Files.exists(gpu.log.resolve("pid-async.txt"));
        open(gpu, "memcheck-app", "blocking");
        Report r = run.get(5, TimeUnit.MINUTES);

        assertThat(said).isTrue();
        assertThat(startedBeforeTheSanitizerEnded).isFalse();
        assertThat(console)
                .anyMatch(l -> l.endsWith("] regression after the sanitizer run, one after the other: card has"
                        + " 43,771 MiB free; the sanitizer and blocking runs together held at most 100,000 MiB in their"
                        + " first " + watched(l)
                        + " s on the card, not the job's whole run (143,771 MiB total): no room"
                        + " for the job once more and a reserve of 14,377 MiB (a tenth of the card)"));
        PhaseJson regression = phase(r, "regression");
        assertThat(regression.ranBeside()).isFalse();
        assertThat(regression.note()).contains("one after the other: card has 43,771 MiB free");
        assertThat(r.reasons())
                .anyMatch(x -> x.code().equals("regression-plan") && x.level().equals("info"));
        assertThat(r.reasons()).noneMatch(x -> x.code().equals("memory-not-judged"));
        assertThat(r.reasons())
                .as("alone, its throughput is judged against the baseline")
                .anyMatch(x -> x.code().equals("throughput") && x.level().equals("unstable"));
        assertThat(r.verdict()).isEqualTo(Verdict.UNSTABLE);
    }

    @Test
    void whenTheCardsMemoryCannotBeReadTheRegressionRunGoesAfterAndSaysWhy() throws Exception {
        // a card that shows no figures (nvidia-smi prints [N/A], as for a MIG instance): room unknown, so after
        FakeGpu gpu = gatedCleanJob(card("[N/A]", "[N/A]"));
        CountDownLatch planned = new CountDownLatch(1);
        FutureTask<Report> run = start(gpu, spec(), "regression after the sanitizer run", planned);

        open(gpu, "blocking"); // the watch ends with the blocking run: nothing was ever seen
        boolean said = planned.await(2, TimeUnit.MINUTES);
        boolean startedBeforeTheSanitizerEnded = Files.exists(gpu.log.resolve("pid-async.txt"));
        open(gpu, "memcheck-app");
        Report r = run.get(5, TimeUnit.MINUTES);

        assertThat(said).isTrue();
        assertThat(startedBeforeTheSanitizerEnded).isFalse();
        assertThat(phase(r, "regression").note())
                .contains("one after the other: the card's memory could not be read beside the blocking run");
        assertThat(phase(r, "regression").ranBeside()).isFalse();
        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.PASS);
    }

    @Test
    void aFailureTimeFoundAfterTheRegressionRunStartedBesideStillHoldsItForTwiceThatTime() throws Exception {
        // the regression run's job never ends by itself: without the blocking run's failure time it would run to its
        // limit (120 s); once the blocking run fails, it stops at twice that time, as it would have alone
        FakeGpu gpu = new FakeGpu(dir)
                .farOob()
                .put("memcheck-app.gate", "")
                .put("blocking.gate", "")
                .hang("async")
                .put("card.csv", card("0", "4000"));
        FutureTask<Report> run = start(gpu, spec().timeoutSeconds(Phase.REGRESSION, 120), null, null);

        boolean started = FileWait.all(LIMIT, gpu.log.resolve("pid-async.txt"));
        open(gpu, "blocking", "memcheck-app"); // the blocking run fails now, after the regression run started
        Report r = run.get(5, TimeUnit.MINUTES);

        assertThat(started).isTrue();
        PhaseJson blocking = phase(r, "blocking");
        PhaseJson regression = phase(r, "regression");
        assertThat(blocking.status()).isEqualTo("failed");
        double failure = blocking.timeToFailureSeconds();
        assertThat(r.execution().referenceFailureSeconds()).isEqualTo(failure);
        assertThat(r.execution().regressionTargetSeconds()).isEqualTo(2 * failure);
        assertThat(regression.ranBeside()).isTrue();
        assertThat(regression.status()).isEqualTo(PhaseResult.STOPPED_AT_TARGET);
        assertThat(regression.wallSeconds())
                .as("the regression run lasted at least twice the failure time, not its 120 s limit")
                .isGreaterThanOrEqualTo(2 * failure - 0.05)
                .isLessThan(100);
        assertThat(regression.note()).contains("came later");
        assertThat(r.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(r.diagnosis().faultAt().line()).isEqualTo(32);
    }

    @Test
    void aRegressionRunThatRanOutOfMemoryBesideTheSanitizerRunsAgainAlone() throws Exception {
        FakeGpu gpu = gatedCleanJob(card("0", "4000")).put("async.first-stderr", OUT_OF_MEMORY);
        FutureTask<Report> run = start(gpu, spec(), null, null);

        boolean started = FileWait.all(LIMIT, gpu.log.resolve("pid-async.txt"));
        open(gpu, "memcheck-app", "blocking");
        Report r = run.get(5, TimeUnit.MINUTES);

        assertThat(started).isTrue();
        assertThat(dir.resolve("run/regression-beside-sanitizer/stderr.log"))
                .content()
                .contains("CUDA out of memory");
        PhaseJson regression = phase(r, "regression");
        assertThat(regression.ranBeside()).isFalse();
        assertThat(regression.status()).isEqualTo("passed");
        assertThat(regression.note())
                .contains("the regression run ran out of GPU memory beside the sanitizer run: run again alone");
        assertThat(r.reasons())
                .noneMatch(
                        x -> x.message().contains("out of memory") && !x.level().equals("info"));
        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.PASS);
    }

    @Test
    void aSanitizerRunThatRanOutOfMemoryOnTheSharedCardHavingFoundNothingRunsAgainAlone() throws Exception {
        FakeGpu gpu = gatedCleanJob(card("0", "4000")).put("memcheck-app.first-stderr", OUT_OF_MEMORY);
        FutureTask<Report> run = start(gpu, spec(), null, null);

        boolean started = FileWait.all(LIMIT, gpu.log.resolve("pid-async.txt"));
        open(gpu, "memcheck-app", "blocking");
        Report r = run.get(5, TimeUnit.MINUTES);

        assertThat(started).isTrue();
        assertThat(dir.resolve("run/sanitizer-memcheck-shared-card/stderr.log"))
                .content()
                .contains("CUDA out of memory");
        PhaseJson sanitizer = phase(r, "sanitizer-memcheck");
        assertThat(sanitizer.status()).isEqualTo("passed");
        assertThat(r.reasons())
                .anyMatch(x -> x.code().equals("sanitizer-rerun")
                        && x.level().equals("info")
                        && x.message()
                                .startsWith("sanitizer-memcheck ran out of GPU memory on the card it shared with the"
                                        + " blocking run"))
                .noneMatch(
                        x -> x.message().contains("out of memory") && !x.level().equals("info"));
        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.PASS);
    }

    /**
     * The regression watcher had not decided when the sanitizer run ran out of memory (the card's room is between the
     * early rule's and the plain rule's: it waits for the blocking run's end). While the rerun waits for the blocking
     * run, the watcher must not start the regression run "beside": no sanitizer run would be going, yet it would be
     * judged as one beside. It goes after the rerun, alone, and says why.
     */
    @Test
    void aRegressionRunNotYetStartedGoesAfterASanitizerRerun() throws Exception {
        FakeGpu gpu =
                cleanJob(card("0", "40000")).put("blocking.gate", "").put("memcheck-app.first-stderr", OUT_OF_MEMORY);
        CountDownLatch rerunSaid = new CountDownLatch(1);
        FutureTask<Report> run = start(
                gpu,
                FakeGpu.farOobSpec(dir.resolve("run")).roomCheckSeconds(3600),
                "ran out of GPU memory on the card it shared",
                rerunSaid);

        boolean said = rerunSaid.await(LIMIT.toSeconds(), TimeUnit.SECONDS);
        open(gpu, "blocking");
        Report r = run.get(5, TimeUnit.MINUTES);

        assertThat(said).as(console.toString()).isTrue();
        PhaseJson regression = phase(r, "regression");
        assertThat(regression.ranBeside()).as(console.toString()).isFalse();
        assertThat(regression.status()).isEqualTo("passed");
        assertThat(r.reasons())
                .anyMatch(x -> x.code().equals("regression-plan")
                        && x.message()
                                .equals("regression after the sanitizer run, one after the other: the sanitizer run ran"
                                        + " out of GPU memory on the shared card and runs again alone first: the"
                                        + " regression run goes after it, alone"));
        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.PASS);
    }

    @Test
    void aSanitizerRunThatRanOutOfMemoryAfterFindingADefectIsJudgedAsItIs() throws Exception {
        FakeGpu gpu = gatedCleanJob(card("0", "4000"))
                .copy("far-oob/memcheck.log", "memcheck.log")
                .put("memcheck-app.first-stderr", OUT_OF_MEMORY);
        FutureTask<Report> run = start(gpu, spec(), null, null);
        open(gpu, "memcheck-app", "blocking");
        Report r = run.get(5, TimeUnit.MINUTES);

        assertThat(dir.resolve("run/sanitizer-memcheck-shared-card")).doesNotExist();
        assertThat(r.reasons()).noneMatch(x -> x.code().equals("sanitizer-rerun"));
        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.FAIL);
    }

    @Test
    void regressionAfterKeepsItAloneWithoutWatchingTheCard() {
        FakeGpu gpu = new FakeGpu(dir).clean().put("async.sleep", "0");
        Report r = new Runner(spec().regressionBeside(false), gpu.env(), console::add).run();

        assertThat(console)
                .contains("[gpu-sanitize] regression after the sanitizer run, one after the other:"
                        + " --regression-after (its memory curve and throughput are then the job's alone)");
        assertThat(phase(r, "regression").ranBeside()).isFalse();
        assertThat(dir.resolve("run/blocking/" + RunLayout.MEMORY_CSV))
                .as("no sampler beside the blocking run")
                .doesNotExist();
        assertThat(r.verdict()).isEqualTo(Verdict.PASS);
    }

    @Test
    void theCardIsReadAsTheSamplerWroteItSoFar() throws IOException {
        Path csv = dir.resolve("nvidia-smi.csv");
        Files.writeString(
                csv,
                "timestamp, index, memory.used [MiB], memory.total [MiB], utilization.gpu [%]\n"
                        + "2026/12/02 14:41:59.920, 0, 0, 143771, 0\n"
                        + "2026/12/02 14:42:00.173, 0, 631, 143771, 0\n"
                        + "2026/12/02 14:42:00.423, 0, 853, 143771, 10\n"
                        + "2026/12/02 14:42:00.673, 0, 99"); // being written: 99 may be 99999
        CardMemory card = CardMemory.read(csv);
        assertThat(card.firstUsedMiB()).isZero();
        assertThat(card.peakUsedMiB()).isEqualTo(853);
        assertThat(card.totalMiB()).isEqualTo(143771);
        assertThat(card.samples()).isEqualTo(3);
        assertThat(card.rose()).isTrue();
        assertThat(CardMemory.read(dir.resolve("none.csv"))).isNull();
        Files.writeString(csv, card("[N/A]", "[N/A]"));
        assertThat(CardMemory.read(csv)).isNull();
        Files.writeString(csv, card("631", "631"));
        assertThat(CardMemory.read(csv).rose())
                .as("nothing allocated since the first sample")
                .isFalse();
        assertThat(RegressionPlan.fromCard(CardMemory.read(csv), 10, true).why())
                .isEqualTo("regression after the sanitizer run, one after the other: the sanitizer and blocking runs"
                        + " showed no GPU memory in use in 10 s, so the job's need is unknown");
    }

    @Test
    void beforeTheWholeWatchOnlyRoomForTheJobThreeTimesOverStartsItBeside() throws IOException {
        Path csv = dir.resolve("nvidia-smi.csv");
        // 143,771 MiB: a tenth is 14,377; 4,000 MiB in use leaves 139,771 free >= 3 x 4,000 + 14,377
        Files.writeString(csv, card("0", "4000"));
        RegressionPlan early = RegressionPlan.early(CardMemory.read(csv), 3);
        assertThat(early.beside()).isTrue();
        assertThat(early.why())
                .isEqualTo("regression beside the sanitizer run: card has 139,771 MiB free; the sanitizer and blocking"
                        + " runs together held at most 4,000 MiB in their first 3 s on the card, not the job's whole run"
                        + " (143,771 MiB total), room for it 3 times over and a tenth of the card");
        // 32,000 in use: 111,771 free >= 3 x 32,000 + 14,377 = 110,377; 33,000 in use does not fit
        Files.writeString(csv, card("0", "32000"));
        assertThat(RegressionPlan.early(CardMemory.read(csv), 3)).isNotNull();
        Files.writeString(csv, card("0", "33000"));
        assertThat(RegressionPlan.early(CardMemory.read(csv), 3))
                .as("110,771 free < 3 x 33,000 + 14,377: the watch goes on")
                .isNull();
        assertThat(RegressionPlan.afterWatch(CardMemory.read(csv), 10).beside())
                .as("after the whole watch, room for it once more is enough")
                .isTrue();
        Files.writeString(csv, card("631", "631"));
        assertThat(RegressionPlan.early(CardMemory.read(csv), 3))
                .as("nothing allocated yet")
                .isNull();
        // the H200's example jobs 4 s in: still importing torch, no CUDA context yet
        Files.writeString(csv, card("0", "22"));
        assertThat(CardMemory.read(csv).rose()).isTrue();
        assertThat(RegressionPlan.early(CardMemory.read(csv), 4))
                .as("less than a CUDA context: the job's need is not known, the watch goes on")
                .isNull();
        Files.writeString(csv, card("0", "529"));
        assertThat(RegressionPlan.early(CardMemory.read(csv), 5)).isNotNull();
        assertThat(RegressionPlan.early(null, 3)).isNull();
    }

    /**
     * Issue #48, 5, on the H200 record h200-2026-12-04-gpu-minutes-after-b (prefetch, the jar of 4a4190c): the card
     * beside its blocking run showed 0 MiB for 4 s and 1 MiB at the import of torch, then 761 MiB and later 8,982 MiB.
     * A decision after the whole watch on the first figures (a job still importing) is no decision: the watch goes on;
     * once the blocking run ended the figures are its whole run's and say so.
     */
    @Test
    void aCardStillAtTheJobsImportsDecidesNothingAndTheWholeRunsPeakIsSaidAsSuch() throws IOException {
        Path recorded =
                Records.unpacked("h200-2026-12-04-gpu-minutes-after-b/prefetch-4a4190c/blocking/nvidia-smi.csv");
        List<String> lines = Files.readAllLines(recorded);
        int imports = 1;
        while (!lines.get(imports).endsWith(", 1, 143771")) {
            imports++;
        }
        Path first = dir.resolve("first.csv");
        Files.writeString(first, String.join("\n", lines.subList(0, imports + 1)) + "\n");
        assertThat(CardMemory.read(first).peakUsedMiB()).isEqualTo(1);
        assertThat(CardMemory.read(first).rose()).isTrue();

        assertThat(RegressionPlan.afterWatch(CardMemory.read(first), 10))
                .as("1 MiB: the job's imports, no CUDA context: the watch goes on")
                .isNull();

        RegressionPlan whole = RegressionPlan.fromCard(CardMemory.read(recorded), 20, true);
        assertThat(whole.why())
                .contains("held at most 8,982 MiB over the whole blocking run (20 s)")
                .doesNotContain("peaked at")
                .doesNotContain("first");
    }

    @Test
    void withRoomForTheJobSeveralTimesOverTheRegressionRunStartsBeforeTheWholeWatch() throws Exception {
        FakeGpu gpu = gatedCleanJob(card("0", "4000"));
        // a watch far longer than the test may take: only the early rule can start the regression run beside
        FutureTask<Report> run = start(gpu, spec().roomCheckSeconds(3600), null, null);
        boolean started = FileWait.all(LIMIT, gpu.log.resolve("pid-async.txt"));
        open(gpu, "memcheck-app", "blocking");
        Report r = run.get(5, TimeUnit.MINUTES);

        assertThat(started)
                .as("the regression run's job started while the sanitizer's job waited")
                .isTrue();
        assertThat(phase(r, "regression").ranBeside()).isTrue();
        assertThat(phase(r, "regression").note()).contains("room for it 3 times over");
        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.PASS);
    }

    @Test
    void throughputIsJudgedOnlyWhenTheRegressionRanAlone() {
        ThroughputJson slow = new ThroughputJson("it/s ([0-9.]+)", 2370.0, 237.0, 0.1, 30, 0.1);
        assertThat(PhaseReasons.of(record(false, slow), new RunDirectory(dir), null))
                .anyMatch(x -> x.code().equals("throughput") && x.level().name().equals("UNSTABLE"));
        assertThat(PhaseReasons.of(record(true, slow), new RunDirectory(dir), null))
                .noneMatch(x -> x.level().name().equals("UNSTABLE"))
                .anyMatch(x -> x.code().equals("throughput")
                        && x.message()
                                .equals("throughput 237.00 (baseline 2370.00) not judged: the regression run ran beside"
                                        + " the sanitizer run, on a shared card (--regression-after runs it alone and"
                                        + " judges it)"));
    }

    /** A finished run whose only phase is a passed regression run, beside the sanitizer run or alone. */
    private static RunRecord record(boolean beside, ThroughputJson throughput) {
        PhaseJson regression = new PhaseJson(
                "regression",
                null,
                List.of("python3", "train.py"),
                java.util.Map.of(),
                "0",
                "passed",
                0,
                null,
                30.0,
                null,
                false,
                false,
                List.of(),
                null,
                beside);
        return new RunRecord(
                1,
                null,
                false,
                List.of(),
                true,
                null,
                new ExecutionJson(null, List.of(regression), "/run", null, null, null, throughput, "/work"));
    }

    /**
     * Issue #49: with the reference build's need known (its report's largest memory curve), the regression run need
     * not wait for the card to show the job: on the H100 record h100-2026-12-07-kernels, nanoGPT's regression run held
     * at most 2,512 MiB of its 80 GB, and the plan waited for the first runs' CUDA contexts all the same.
     */
    @Test
    void theReferenceBuildsNeedStartsTheRegressionRunAtOnceWhereItFitsThreeTimesOver() throws IOException {
        Path csv = dir.resolve("nvidia-smi.csv");
        // nothing in use yet: the early rule cannot tell the job's need
        Files.writeString(csv, card("0", "0"));
        assertThat(RegressionPlan.early(CardMemory.read(csv), 3)).isNull();
        RegressionPlan known = RegressionPlan.fromReference(CardMemory.read(csv), 2512);
        assertThat(known.beside()).isTrue();
        assertThat(known.why())
                .isEqualTo("regression beside the sanitizer run from the start: the reference build's job held at most"
                        + " 2,512 MiB of GPU memory (its report) and the card has 143,771 MiB free (143,771 MiB total):"
                        + " room for it 3 times over and a tenth of the card");
        // 143,771 free >= 3 x 43,000 + 14,377 = 143,377; 43,200 does not fit: the watch decides
        assertThat(RegressionPlan.fromReference(CardMemory.read(csv), 43_000)).isNotNull();
        assertThat(RegressionPlan.fromReference(CardMemory.read(csv), 43_200)).isNull();
        assertThat(RegressionPlan.fromReference(null, 10)).as("no figures yet").isNull();

        Path report = Records.unpacked("h100-2026-12-07-kernels/nanogpt-kernels/report.json");
        assertThat(ReferenceBuild.peakMiB(
                        new RunSpec().compareWith(report.toString()),
                        new ProgressLog(l -> {}, new Secrets(java.util.Map.of()))))
                .isEqualTo(2512.0);
        assertThat(ReferenceBuild.peakMiB(
                        new RunSpec().referencePeakMiB(700.0),
                        new ProgressLog(l -> {}, new Secrets(java.util.Map.of()))))
                .as("handed in by the Jenkins step")
                .isEqualTo(700.0);
        assertThat(ReferenceBuild.peakMiB(new RunSpec(), new ProgressLog(l -> {}, new Secrets(java.util.Map.of()))))
                .isNull();
    }

    @Test
    void withTheReferenceBuildsNeedTheRegressionRunStartsBeforeTheCardShowsTheJob() throws Exception {
        // the card shows nothing of the job (still importing), and the watch is far longer than the test
        FakeGpu gpu = gatedCleanJob(card("0", "0"));
        FutureTask<Report> run = start(gpu, spec().roomCheckSeconds(3600).referencePeakMiB(500.0), null, null);
        boolean started = FileWait.all(LIMIT, gpu.log.resolve("pid-async.txt"));
        open(gpu, "memcheck-app", "blocking");
        Report r = run.get(5, TimeUnit.MINUTES);

        assertThat(started)
                .as("the regression run's job started while the sanitizer's job waited")
                .isTrue();
        assertThat(phase(r, "regression").ranBeside()).isTrue();
        assertThat(phase(r, "regression").note())
                .contains("from the start: the reference build's job held at most 500 MiB of GPU memory");
        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.PASS);
    }

    /**
     * The sanitizer run that ran out of memory on the shared card is set aside before the blocking run ends (ordered:
     * the blocking job goes on only once the console said so). Its coverage stop is not decided after it in the folder
     * it no longer has ("could not be written, the run checks the whole job" was said of the rerun's name): the rerun
     * decides its own.
     */
    @Test
    void aSanitizerRunSetAsideHasNoCoverageStopDecidedAfterIt() throws Exception {
        FakeGpu gpu = gatedCleanJob(card("0", "4000")).put("memcheck-app.first-stderr", OUT_OF_MEMORY);
        CountDownLatch setAside = new CountDownLatch(1);
        FutureTask<Report> run = start(gpu, spec(), "run again alone once they ended", setAside);

        open(gpu, "memcheck-app");
        assertThat(setAside.await(2, TimeUnit.MINUTES)).isTrue();
        open(gpu, "blocking");
        Report r = run.get(5, TimeUnit.MINUTES);

        assertThat(console).noneMatch(l -> l.contains("could not be written") || l.contains("had ended;"));
        assertThat(dir.resolve("run/sanitizer-memcheck-shared-card/coverage.json"))
                .content()
                .doesNotContain("\"reason\"");
        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.PASS);
    }
}
