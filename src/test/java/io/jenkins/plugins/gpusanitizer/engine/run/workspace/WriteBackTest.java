package io.jenkins.plugins.gpusanitizer.engine.run.workspace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The write-back's rules as a table (issue #47): a working directory (baseline), what the plain run did in its copy,
 * what someone else did to the working directory meanwhile → the working directory afterwards and the conflicts
 * listed. Real trees on disk, copied as the runner copies them, snapshots and write-back as the runner takes them.
 */
class WriteBackTest {
    @TempDir
    Path dir;

    /** A change to a tree. */
    interface Step {
        void on(Path tree) throws IOException;
    }

    private static final Step NOTHING = t -> {};

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of(
                        "new file and an empty new folder",
                        (Step) t -> write(t, "train.py", "x"),
                        (Step) t -> {
                            write(t, "outputs/metrics.json", "{}");
                            mkdirs(t.resolve("outputs/samples"));
                        },
                        NOTHING,
                        Map.of(
                                "train.py", "file x 644",
                                "outputs", "dir 755",
                                "outputs/metrics.json", "file {} 644",
                                "outputs/samples", "dir 755"),
                        List.of()),
                Arguments.of(
                        "checkpoint rotation: the oldest removed, a new one created",
                        (Step) t -> {
                            write(t, "ckpt/checkpoint-10/model.bin", "10");
                            write(t, "ckpt/checkpoint-20/model.bin", "20");
                        },
                        (Step) t -> {
                            delete(t.resolve("ckpt/checkpoint-10"));
                            write(t, "ckpt/checkpoint-30/model.bin", "30");
                        },
                        NOTHING,
                        Map.of(
                                "ckpt", "dir 755",
                                "ckpt/checkpoint-20", "dir 755",
                                "ckpt/checkpoint-20/model.bin", "file 20 644",
                                "ckpt/checkpoint-30", "dir 755",
                                "ckpt/checkpoint-30/model.bin", "file 30 644"),
                        List.of()),
                Arguments.of(
                        "chmod 755 export/serve.sh: the mode alone changed",
                        (Step) t -> write(t, "export/serve.sh", "#!/bin/sh"),
                        (Step) t -> Files.setPosixFilePermissions(
                                t.resolve("export/serve.sh"), PosixFilePermissions.fromString("rwxr-xr-x")),
                        NOTHING,
                        Map.of("export", "dir 755", "export/serve.sh", "file #!/bin/sh 755"),
                        List.of()),
                Arguments.of(
                        "a folder replaced by a file",
                        (Step) t -> write(t, "logs/a.txt", "a"),
                        (Step) t -> {
                            delete(t.resolve("logs"));
                            write(t, "logs", "now a file");
                        },
                        NOTHING,
                        Map.of("logs", "file now a file 644"),
                        List.of()),
                Arguments.of(
                        "a file replaced by a folder",
                        (Step) t -> write(t, "model", "weights"),
                        (Step) t -> {
                            Files.delete(t.resolve("model"));
                            write(t, "model/weights.bin", "w");
                        },
                        NOTHING,
                        Map.of("model", "dir 755", "model/weights.bin", "file w 644"),
                        List.of()),
                Arguments.of(
                        "links: a new relative one, a changed one, one into the copy written back to the original",
                        (Step) t -> {
                            write(t, "ckpt/a", "a");
                            write(t, "ckpt/b", "b");
                            Files.createSymbolicLink(t.resolve("best"), Path.of("ckpt/a"));
                        },
                        (Step) t -> {
                            Files.createSymbolicLink(t.resolve("latest"), Path.of("ckpt/b"));
                            Files.delete(t.resolve("best"));
                            Files.createSymbolicLink(t.resolve("best"), Path.of("ckpt/b"));
                            Files.createSymbolicLink(t.resolve("abs"), t.resolve("ckpt/a"));
                        },
                        NOTHING,
                        Map.of(
                                "ckpt", "dir 755",
                                "ckpt/a", "file a 644",
                                "ckpt/b", "file b 644",
                                "best", "link ckpt/b",
                                "latest", "link ckpt/b",
                                "abs", "link ORIGINAL/ckpt/a"),
                        List.of()),
                Arguments.of(
                        "what another step wrote meanwhile stays (a parallel branch's reports/flake8.xml)",
                        (Step) t -> write(t, "train.py", "x"),
                        (Step) t -> write(t, "out/model.pt", "m"),
                        (Step) t -> write(t, "reports/flake8.xml", "<lint/>"),
                        Map.of(
                                "train.py", "file x 644",
                                "out", "dir 755",
                                "out/model.pt", "file m 644",
                                "reports", "dir 755",
                                "reports/flake8.xml", "file <lint/> 644"),
                        List.of()),
                Arguments.of(
                        "a file both changed: the working directory's kept, a conflict listed",
                        (Step) t -> write(t, "metrics.json", "old"),
                        (Step) t -> write(t, "metrics.json", "run's"),
                        (Step) t -> write(t, "metrics.json", "someone else's"),
                        Map.of("metrics.json", "file someone else's 644"),
                        List.of("metrics.json")),
                Arguments.of(
                        "a file the run removed that changed meanwhile: kept, a conflict",
                        (Step) t -> write(t, "notes.txt", "old"),
                        (Step) t -> Files.delete(t.resolve("notes.txt")),
                        (Step) t -> write(t, "notes.txt", "newer notes"),
                        Map.of("notes.txt", "file newer notes 644"),
                        List.of("notes.txt")),
                Arguments.of(
                        "a folder the run removed that someone wrote into meanwhile: its old file goes, it stays",
                        (Step) t -> write(t, "tmp/x", "x"),
                        (Step) t -> delete(t.resolve("tmp")),
                        (Step) t -> write(t, "tmp/other", "o"),
                        Map.of("tmp", "dir 755", "tmp/other", "file o 644"),
                        List.of("tmp")),
                Arguments.of(
                        "a file the run wrote where someone removed its folder meanwhile: not resurrected",
                        (Step) t -> write(t, "runs/old", "x"),
                        (Step) t -> write(t, "runs/new", "n"),
                        (Step) t -> delete(t.resolve("runs")),
                        Map.of(),
                        List.of("runs/new")),
                Arguments.of(
                        "a file the run removed, untouched meanwhile: removed",
                        (Step) t -> {
                            write(t, "a.txt", "a");
                            write(t, "b.txt", "b");
                        },
                        (Step) t -> Files.delete(t.resolve("a.txt")),
                        NOTHING,
                        Map.of("b.txt", "file b 644"),
                        List.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void theWorkingDirectoryGetsThePlainRunsChangesAndKeepsEveryoneElses(
            String name, Step baseline, Step run, Step meanwhile, Map<String, String> expected, List<String> conflicts)
            throws IOException {
        Path original = Files.createDirectories(dir.resolve("ws"));
        baseline.on(original);
        Result r = writeBack(original, run, meanwhile);

        Map<String, String> want = new TreeMap<>();
        expected.forEach((k, v) -> want.put(k, v.replace("ORIGINAL", original.toString())));
        assertThat(tree(original)).isEqualTo(want);
        assertThat(r.outcome.conflicts()).extracting(WriteBack.Problem::path).containsExactlyElementsOf(conflicts);
        assertThat(r.outcome.failed()).isEmpty();
        try (var left = Files.list(original)) {
            assertThat(left.map(p -> p.getFileName().toString())).noneMatch(n -> n.contains(".gpu-sanitize-"));
        }
    }

    private record Result(WorkspaceChanges changes, WriteBack.Outcome outcome) {}

    /** The runner's steps: baseline, copy, the copy's snapshot, the run, the original meanwhile, the write-back. */
    private Result writeBack(Path original, Step run, Step meanwhile) throws IOException {
        settle(original);
        WorkspaceSnapshot base = WorkspaceSnapshot.of(original, Set.of(), p -> null);
        Path copy = dir.resolve("copies/regression");
        new TreeCopy(Set.of(), Set.of()).copy(original, copy);
        WorkspaceSnapshot start = WorkspaceSnapshot.of(copy, Set.of(), p -> null);
        run.on(copy);
        meanwhile.on(original);
        WorkspaceChanges changes = WorkspaceChanges.between(start, WorkspaceSnapshot.of(copy, Set.of(), p -> null));
        WorkspaceSnapshot now = WorkspaceSnapshot.of(original, Set.of(), p -> null);
        return new Result(changes, new WriteBack(original, copy, List.of(copy), original).apply(changes, base, now));
    }

    @Test
    void aPathTheEndSnapshotCouldNotReadIsNeverRemoved() {
        var file = new WorkspaceSnapshot.PathState(WorkspaceSnapshot.Type.FILE, 1, 1, 0644, null);
        var folder = new WorkspaceSnapshot.PathState(WorkspaceSnapshot.Type.DIR, 0, 0, 0755, null);
        WorkspaceSnapshot start = new WorkspaceSnapshot(
                Map.of("outputs", folder, "outputs/.cache", folder, "outputs/.cache/blob", file, "gone.txt", file),
                List.of());
        WorkspaceSnapshot end = new WorkspaceSnapshot(
                Map.of("outputs", folder),
                List.of(new WorkspaceSnapshot.Skipped("outputs/.cache", "cannot be listed (permission denied)")));

        WorkspaceChanges changes = WorkspaceChanges.between(start, end);

        assertThat(changes.entries()).extracting(WorkspaceChanges.Entry::path).containsExactly("gone.txt");
        assertThat(changes.unread()).extracting(WorkspaceSnapshot.Skipped::path).containsExactly("outputs/.cache");
    }

    @Test
    void anUnreadableFolderIsSkippedWithItsReasonAndNeverRemoved() throws IOException {
        // root reads whatever its mode: the denial is only real for another user
        assumeFalse("root".equals(System.getProperty("user.name")), "running as root: chmod 000 denies nothing");
        Path original = Files.createDirectories(dir.resolve("ws"));
        write(original, "train.py", "x");
        write(original, "outputs/.cache/blob", "b");
        Files.setPosixFilePermissions(original.resolve("outputs/.cache"), PosixFilePermissions.fromString("---------"));
        try {
            WorkspaceSnapshot base = WorkspaceSnapshot.of(original, Set.of(), p -> null);
            assertThat(base.skipped())
                    .singleElement()
                    .satisfies(s -> assertThat(s.path()).isEqualTo("outputs/.cache"))
                    .satisfies(s -> assertThat(s.reason()).contains("permission denied"));
            Result r = writeBack(original, t -> write(t, "outputs/metrics.json", "{}"), NOTHING);
            assertThat(r.outcome.written()).containsExactly("outputs/metrics.json");
            assertThat(Files.isDirectory(original.resolve("outputs/.cache"), LinkOption.NOFOLLOW_LINKS))
                    .isTrue();
        } finally {
            Files.setPosixFilePermissions(
                    original.resolve("outputs/.cache"), PosixFilePermissions.fromString("rwx------"));
        }
    }

    @Test
    void socketsFifosAndGateRunDirectoriesAreLeftOutOfTheCopyWithAReason() throws IOException, InterruptedException {
        Path original = Files.createDirectories(dir.resolve("ws"));
        write(original, "train.py", "x");
        Files.createDirectories(original.resolve("outputs"));
        Process mkfifo =
                new ProcessBuilder("mkfifo", original.resolve("outputs/pipe").toString()).start();
        assertThat(mkfifo.waitFor()).isZero();
        write(original, "gpu-sanitize-run-1/" + RunWorkspaces.RUN_MARKER, "");
        write(original, "gpu-sanitize-run-1/workspaces/regression/train.py", "x");
        write(original, "training@tmp/durable-1234/script.sh", "x");
        try (ServerSocketChannel socket = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            socket.bind(UnixDomainSocketAddress.of(original.resolve("outputs/agent.sock")));

            WorkspaceSnapshot base = WorkspaceSnapshot.of(original, Set.of(), RunWorkspaces::neverCopied);
            assertThat(base.skipped())
                    .extracting(s -> s.path() + ": " + s.reason())
                    .containsExactlyInAnyOrder(
                            "outputs/pipe: a fifo: not copied",
                            "outputs/agent.sock: a socket: not copied",
                            "gpu-sanitize-run-1: a gate's run directory: never copied",
                            "training@tmp: a Jenkins temporary folder: never copied");
            Path copy = dir.resolve("copy");
            Set<Path> leftOut = new java.util.HashSet<>();
            base.skipped().forEach(s -> leftOut.add(original.resolve(s.path())));
            new TreeCopy(leftOut, Set.of()).copy(original, copy);
            assertThat(tree(copy)).containsOnlyKeys("train.py", "outputs");
        }
    }

    // --- trees

    /** A file of mode 644 in folders of 755, whatever this machine's umask. */
    private static void write(Path tree, String path, String text) throws IOException {
        Path file = tree.resolve(path);
        mkdirs(file.getParent());
        Files.writeString(file, text, StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    }

    private static void mkdirs(Path folder) throws IOException {
        if (!Files.isDirectory(folder)) {
            mkdirs(folder.getParent());
            Files.createDirectory(folder);
            Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    private static void delete(Path path) throws IOException {
        if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
            try (var listing = Files.list(path)) {
                for (Path p : listing.toList()) {
                    delete(p);
                }
            }
        }
        Files.delete(path);
    }

    /**
     * The baseline's files an hour old, as a checkout is by the time a gate runs: a run's rewrite of the same size is
     * then a new modification time whatever the clock's tick.
     */
    private static void settle(Path tree) throws IOException {
        FileTime old = FileTime.fromMillis(System.currentTimeMillis() - 3_600_000);
        try (var all = Files.walk(tree)) {
            for (Path p : all.toList()) {
                if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                    Files.setLastModifiedTime(p, old);
                }
            }
        }
    }

    /** Every path under the tree: "file CONTENT MODE", "dir MODE" or "link TARGET". */
    static Map<String, String> tree(Path root) throws IOException {
        Map<String, String> out = new TreeMap<>();
        try (var all = Files.walk(root)) {
            for (Path p : all.filter(p -> !p.equals(root)).toList()) {
                String rel = root.relativize(p).toString();
                if (Files.isSymbolicLink(p)) {
                    out.put(rel, "link " + Files.readSymbolicLink(p));
                } else if (Files.isDirectory(p)) {
                    out.put(rel, "dir " + mode(p));
                } else {
                    out.put(rel, "file " + Files.readString(p, StandardCharsets.UTF_8) + " " + mode(p));
                }
            }
        }
        return out;
    }

    private static String mode(Path p) throws IOException {
        return Integer.toOctalString(WorkspaceSnapshot.mode(
                Files.readAttributes(p, java.nio.file.attribute.PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS)));
    }
}
