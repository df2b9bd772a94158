package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.report.PhaseJson;
import io.jenkins.plugins.gpusanitizer.engine.report.ReasonJson;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.report.WorkJson;
import io.jenkins.plugins.gpusanitizer.engine.run.workspace.Isolation;
import io.jenkins.plugins.gpusanitizer.testing.RealPython;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Issue #47, situations 1-6 and 10: ordinary jobs in ordinary Jenkins layouts through real processes (this machine's
 * Python, the stand-in torch and GPU tools). Each clean job is a PASS with every run's work shown, and the working
 * directory afterwards is what one plain run of the job leaves there (paths, content, modes, empty folders) — run for
 * real beside it in a layout of its own — plus what others wrote.
 */
@Execution(ExecutionMode.CONCURRENT) // real processes that mostly wait: the tests overlap
class WorkspaceSituationsTest {
    private static final String PYTHON = RealPython.path();
    private static final String GATE_DIR = "gpu-sanitize-run";

    @TempDir
    Path dir;

    private final List<String> console = Collections.synchronizedList(new ArrayList<>());

    /**
     * Where a job runs.
     *
     * @param workDir   the working directory, as Jenkins spells it
     * @param tree      the Jenkins workspace: what is compared after the gate
     * @param workspace {@code $WORKSPACE}, or null (a CLI outside Jenkins)
     */
    record Where(Path workDir, Path tree, String workspace) {}

    /** A checkout with an earlier build's output: the job, its export script (644), an old checkpoint. */
    private static Path checkout(Path ws) throws IOException {
        Files.createDirectories(ws);
        try (InputStream in = WorkspaceSituationsTest.class.getResourceAsStream("/workspace-jobs/clm_job.py")) {
            Files.copy(in, ws.resolve("clm_job.py"), StandardCopyOption.REPLACE_EXISTING);
        }
        write(ws.resolve("export/serve.sh"), "#!/bin/sh\nexec python3 serve.py\n");
        write(ws.resolve("outputs/checkpoint-2/model.bin"), "trained 2 steps\n");
        // an hour old, as a checkout is by the time a gate runs
        FileTime old = FileTime.fromMillis(System.currentTimeMillis() - 3_600_000);
        try (var all = Files.walk(ws)) {
            for (Path p : all.filter(Files::isRegularFile).toList()) {
                Files.setLastModifiedTime(p, old);
            }
        }
        return ws;
    }

    private static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text, StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    }

    /** The last gate's run directory. */
    private Path out;

    /** The folder of the last gate's copies. */
    private Path copies() {
        return out.resolve("workspaces");
    }

    private Report gate(Where where, String command, ProgressListener also) throws IOException {
        return gate(where, command, also, spec -> spec);
    }

    private Report gate(
            Where where, String command, ProgressListener also, java.util.function.UnaryOperator<RunSpec> tweak)
            throws IOException {
        // the step's run directory lies in the working directory's @tmp folder (in the Jenkins workspace for a
        // dir('training') block); the CLI's default in the working directory
        out = where.workspace() != null
                ? where.workDir().resolveSibling(where.workDir().getFileName() + "@tmp/gpu-sanitize/1-gate")
                : where.tree().resolve(GATE_DIR + (Files.exists(where.tree().resolve(GATE_DIR)) ? "-2" : ""));
        FakeGpu gpu = new FakeGpu(dir.resolve("gpu")).clean();
        Map<String, String> extra = new LinkedHashMap<>();
        extra.put("PYTHONPATH", RealPython.fakeTorch());
        if (where.workspace() != null) {
            extra.put("WORKSPACE", where.workspace());
        }
        RunSpec spec = new RunSpec()
                .command(List.of(command))
                .python(gpu.tools.resolve("python3").toString())
                .workDir(where.workDir().toString())
                .isolation(Isolation.DEFAULT)
                .outDir(out.toString())
                .extraEnv(extra)
                .overlapBlocking(true)
                .killGraceSeconds(1)
                .toolWriteGraceSeconds(5)
                .samplerIntervalMs(100);
        return new Runner(tweak.apply(spec), gpu.env(), line -> {
                    console.add(line);
                    also.line(line);
                })
                .run();
    }

    /** The job run once, plainly, in a layout of its own: the working directory it leaves. */
    private Map<String, String> plainRun(Function<Path, Where> layout, Function<Where, String> command)
            throws IOException, InterruptedException {
        Where where = layout.apply(dir.resolve("plain"));
        ProcessBuilder pb = new ProcessBuilder("sh", "-c", command.apply(where))
                .directory(where.workDir().toFile())
                .redirectErrorStream(true);
        pb.environment().put("PYTHONPATH", RealPython.fakeTorch());
        if (where.workspace() != null) {
            pb.environment().put("WORKSPACE", where.workspace());
        }
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return tree(where.tree());
    }

    /**
     * A PASS where each run trained the job's 8 steps. The blocking run beside the sanitizer run is the one exception
     * the gate makes by design: when the sanitizer run ends clean first (which run ends first is the machine's to
     * decide: on CI's the blocking run was cut still importing), it is cut, and the regression run runs the whole job.
     */
    private static void assertEveryRunTrained(Report r) {
        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.PASS);
        assertThat(r.work())
                .extracting(WorkJson::run)
                .containsExactlyInAnyOrder("sanitizer-memcheck", "blocking", "regression");
        List<String> trained = RunnerTest.runsToTheEnd(r);
        assertThat(r.work())
                .filteredOn(w -> trained.contains(w.run()))
                .hasSize(trained.size())
                .allSatisfy(w -> assertThat(w.optimizerSteps()).as(w.run()).isEqualTo(8));
    }

    private static Where plainCheckout(Path base) {
        try {
            return new Where(checkout(base.resolve("ws")), base.resolve("ws"), null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // 1 + 3

    @Test
    void aParallelBranchsReportStaysAndTheRunsRotationModeAndEmptyFolderComeBack() throws Exception {
        Where where = plainCheckout(dir.resolve("real"));
        Function<Where, String> command = w -> PYTHON + " clm_job.py";
        boolean[] written = {false};
        Report r = gate(where, command.apply(where), line -> {
            // the lint branch of a parallel block writes while the runs go (their copies were taken before)
            if (line.contains(" started on GPU ") && !written[0]) {
                written[0] = true;
                try {
                    write(where.tree().resolve("reports/flake8.xml"), "<lint/>\n");
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        });

        assertEveryRunTrained(r);
        Map<String, String> expected = new TreeMap<>(plainRun(WorkspaceSituationsTest::plainCheckout, command));
        // what the lint branch wrote, as it wrote it
        Map<String, String> now = tree(where.tree());
        expected.put("reports", now.get("reports"));
        expected.put("reports/flake8.xml", "file <lint/>\n 644");
        assertThat(now).isEqualTo(expected);
        assertThat(expected)
                .containsEntry("export/serve.sh", "file #!/bin/sh\nexec python3 serve.py\n 755")
                .containsKey("outputs/samples")
                .containsKey("outputs/checkpoint-8/model.bin")
                .doesNotContainKey("outputs/checkpoint-2");
        assertThat(console).anyMatch(l -> l.contains("reports/flake8.xml") && l.contains("kept"));
        assertThat(Files.readString(out.resolve("workspace-writeback.json")))
                .contains("\"othersCount\" : 2", "reports/flake8.xml", "\"conflictCount\" : 0");
    }

    // 2

    @Test
    void theWorkspacesAbsolutePathInTheCommandLineLeadsEachRunIntoItsCopy() throws Exception {
        Where where = plainCheckout(dir.resolve("real"));
        Function<Where, String> command = w -> PYTHON + " clm_job.py --output_dir " + w.tree() + "/outputs";
        Report r = gate(where, command.apply(where), line -> {});

        assertEveryRunTrained(r);
        for (String run : RunnerTest.runsToTheEnd(r)) {
            Path copy = copies().resolve(run);
            assertThat(copy.resolve("outputs/runs/events.out.tfevents")).as(run).exists();
            assertThat(copy.resolve("outputs/checkpoint-2")).as(run).doesNotExist();
        }
        assertThat(tree(where.tree())).isEqualTo(plainRun(WorkspaceSituationsTest::plainCheckout, command));
        assertThat(console).noneMatch(l -> l.contains("while the gate ran"));
    }

    // 4

    private static Where monorepo(Path base) {
        try {
            Path ws = base.resolve("ws");
            checkout(ws.resolve("training"));
            write(ws.resolve("README.md"), "the monorepo\n");
            return new Where(ws.resolve("training"), ws, ws.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aMonorepoJobsArtifactsBesideItsFolderReachTheRealWorkspace() throws Exception {
        Where where = monorepo(dir.resolve("real"));
        Function<Where, String> command = w -> PYTHON + " clm_job.py --output_dir ../artifacts/clm";
        Report r = gate(where, command.apply(where), line -> {});

        assertEveryRunTrained(r);
        Map<String, String> expected = plainRun(WorkspaceSituationsTest::monorepo, command);
        assertThat(expected).containsKey("artifacts/clm/checkpoint-8/model.bin");
        assertThat(tree(where.tree())).isEqualTo(expected);
        // each run wrote its own artifacts/, none a shared one beside the copies
        for (String run : RunnerTest.runsToTheEnd(r)) {
            assertThat(copies().resolve(run + "/artifacts/clm/runs")).as(run).exists();
        }
        assertThat(copies().resolve("artifacts")).doesNotExist();
        assertThat(console).anyMatch(l -> l.endsWith("training@tmp: a Jenkins temporary folder: never copied"));
    }

    // 5

    @Test
    void aSecondGateNeverCopiesTheFirstGatesRunDirectory() throws Exception {
        Where where = plainCheckout(dir.resolve("real"));
        String command = PYTHON + " clm_job.py";
        assertEveryRunTrained(gate(where, command, line -> {}));
        Report second = gate(where, command, line -> {});

        assertEveryRunTrained(second);
        for (String run : RunnerTest.runsToTheEnd(second)) {
            Path copy = where.tree().resolve(GATE_DIR + "-2/workspaces/" + run);
            assertThat(copy.resolve("clm_job.py")).exists();
            assertThat(copy.resolve(GATE_DIR)).as(run).doesNotExist();
        }
        assertThat(console)
                .anyMatch(l -> l.endsWith("not copied into the runs' workspaces: " + GATE_DIR
                        + ": a gate's run directory: never copied"));
    }

    // 6

    private static Where besideADataset(Path base) {
        try {
            write(base.resolve("datasets/coco128/labels.txt"), "person car dog\n");
            return plainCheckout(base);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aDatasetBesideTheCheckoutIsReadThroughDotDotFromEachCopy() throws Exception {
        Where where = besideADataset(dir.resolve("real"));
        Function<Where, String> command = w -> PYTHON + " clm_job.py --data ../datasets/coco128";
        Report r = gate(where, command.apply(where), line -> {});

        assertEveryRunTrained(r);
        assertThat(Files.readString(where.tree().resolve("outputs/runs/events.out.tfevents")))
                .isEqualTo("steps 8 rows 3\n");
        assertThat(tree(where.tree())).isEqualTo(plainRun(WorkspaceSituationsTest::besideADataset, command));
    }

    // 10

    /** {@code $WORKSPACE} through a symbolic link: /var/lib/jenkins -> /data/jenkins. */
    private static Where linkedWorkspace(Path base) {
        try {
            Path real = checkout(base.resolve("data/jenkins/workspace/job"));
            Files.createSymbolicLink(base.resolve("var-lib-jenkins"), base.resolve("data/jenkins"));
            Path logical = base.resolve("var-lib-jenkins/workspace/job");
            return new Where(logical, real, logical.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aSymlinkedWorkspaceIsMovedIntoEachCopyInBothSpellings() throws Exception {
        Where where = linkedWorkspace(dir.resolve("real"));
        // $WORKSPACE in the variables, the logical path in argv: both name each run's copy
        Function<Where, String> command = w -> PYTHON + " clm_job.py --output_dir \"$WORKSPACE/outputs\" && " + PYTHON
                + " clm_job.py --steps 8 --output_dir " + w.workspace() + "/outputs2";
        Report r = gate(where, command.apply(where), line -> {});

        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.PASS);
        for (String run : RunnerTest.runsToTheEnd(r)) {
            Path copy = copies().resolve(run);
            assertThat(copy.resolve("outputs/checkpoint-8")).as(run).exists();
            assertThat(copy.resolve("outputs2/checkpoint-8")).as(run).exists();
        }
        assertThat(tree(where.tree())).isEqualTo(plainRun(WorkspaceSituationsTest::linkedWorkspace, command));
    }

    @Test
    void aRunWritingIntoTheWorkspaceThroughAPathInItsConfigIsReportedWithThePath() throws Exception {
        Where where = linkedWorkspace(dir.resolve("real"));
        // the config names the workspace by its absolute path: no variable or argument to move
        write(where.tree().resolve("train.json"), "{\"output_dir\": \"" + where.workspace() + "/from-config\"}\n");
        Report r = gate(where, PYTHON + " clm_job.py --config train.json", line -> {});

        assertEveryRunTrained(r);
        assertThat(r.reasons())
                .filteredOn(x -> x.code().equals("workspace-others"))
                .extracting(ReasonJson::message)
                .singleElement()
                .satisfies(m -> assertThat(m).contains("from-config/checkpoint-8", "a config file", "$WORKSPACE"));
    }

    // review item 2: only a run that ended by itself with exit 0 is written back, not one timed out or stopped

    @Test
    void aPlainRunThatTimedOutIsNotWrittenBack() throws Exception {
        Where where = plainCheckout(dir.resolve("real"));
        Map<String, String> before = tree(where.tree());
        // a job that saved half a checkpoint and then hangs (a stuck data loader): every run times out
        String hangs = PYTHON + " -c \"import os, threading; os.makedirs('outputs', exist_ok=True); "
                + "open('outputs/partial.bin', 'w').write('half'); threading.Event().wait()\"";
        Report r = gate(
                where,
                hangs,
                line -> {},
                spec -> spec.timeoutSeconds(Phase.SANITIZER, 3)
                        .timeoutSeconds(Phase.BLOCKING, 3)
                        .timeoutSeconds(Phase.REGRESSION, 3));

        assertThat(r.verdict()).isEqualTo(Verdict.ERROR);
        assertThat(r.execution().phases())
                .filteredOn(p -> p.name().equals("regression"))
                .extracting(PhaseJson::status)
                .isNotEmpty()
                .allSatisfy(status -> assertThat(status).isIn(PhaseResult.TIMED_OUT, PhaseResult.STOPPED_AT_TARGET));
        assertThat(copies().resolve("regression/outputs/partial.bin")).exists();
        assertThat(tree(where.tree())).isEqualTo(before);
        assertThat(console).anyMatch(l -> l.contains("no plain run of the job ended by itself with exit 0"));
    }

    // --- helpers

    /** Every path of the tree but a gate's run directory: "file CONTENT MODE", "dir MODE" or "link TARGET". */
    static Map<String, String> tree(Path root) throws IOException {
        Map<String, String> out = new TreeMap<>();
        try (var all = Files.walk(root)) {
            for (Path p : all.filter(p -> !p.equals(root)).toList()) {
                String rel = root.relativize(p).toString();
                if (rel.startsWith(GATE_DIR) || rel.contains("@tmp")) {
                    continue;
                }
                String mode =
                        PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
                if (Files.isSymbolicLink(p)) {
                    out.put(rel, "link " + Files.readSymbolicLink(p));
                } else if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                    out.put(rel, "dir " + octal(mode));
                } else {
                    String text = Files.readString(p, StandardCharsets.UTF_8);
                    // a long file by its length and hash: the comparison stays readable when it fails
                    out.put(
                            rel,
                            "file " + (text.length() > 80 ? text.length() + " chars #" + text.hashCode() : text) + " "
                                    + octal(mode));
                }
            }
        }
        return out;
    }

    private static String octal(String rwx) {
        int mode = 0;
        for (int i = 0; i < 9; i++) {
            mode = (mode << 1) | (rwx.charAt(i) == '-' ? 0 : 1);
        }
        return Integer.toOctalString(mode);
    }
}
