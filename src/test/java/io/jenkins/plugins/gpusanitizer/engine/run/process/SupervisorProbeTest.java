package io.jenkins.plugins.gpusanitizer.engine.run.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.jenkins.plugins.gpusanitizer.testing.FileWait;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the supervisor ({@code supervise.sh}) learns of the system once per run and keeps beside itself
 * ({@code bin/supervise.sh.probed}), and how its main loop waits: a run's first phase probes (fractional sleep,
 * {@code grep -z}, whether a SIGCHLD trap ends a wait, the perl or python3 that makes it a child subreaper, the shell's
 * binary); the phases after it take the kept findings, but only from their own mount namespace and only values the
 * script could have written. The interpreter hands the job the environment it would have had without it.
 * Under dash the loop's tick is ended by the phase's end, not waited out.
 */
@EnabledOnOs(OS.LINUX)
class SupervisorProbeTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);
    private static final List<String> SUBREAPERS = SupervisorSweepTest.SUBREAPERS;

    @TempDir
    Path dir;

    private Path run() {
        return dir.resolve("run");
    }

    private Path probed() {
        return run().resolve("bin/supervise.sh.probed");
    }

    /**
     * A phase whose job is this shell text, with the runner's settings; its supervisor no child subreaper unless
     * {@code subreaper} (as where the system has neither perl nor python3: it then reads every process).
     */
    private Path phase(String name, String job, boolean subreaper) throws IOException {
        Path phase = Files.createDirectories(run().resolve(name));
        PhaseScript.writePhase(phase, null, Map.of(), List.of(), List.of("/bin/sh", "-c", job));
        PhaseScript.writeConf(phase, SupervisorSweepTest.conf("probe-test-" + name, subreaper));
        return phase;
    }

    /** Starts the supervisor as the runner does, with this shell and PATH. */
    private Process supervise(Path phase, String shell, String path) throws IOException {
        return supervise(phase, shell, path, null);
    }

    /** The same, with ENV (and PATH) the supervisor's whole environment when ENV is not null. */
    private Process supervise(Path phase, String shell, String path, Map<String, String> env) throws IOException {
        Path supervisor = PhaseScript.installSupervisor(run());
        ProcessBuilder builder = new ProcessBuilder(shell, supervisor.toString(), phase.toString())
                .redirectErrorStream(true)
                .redirectOutput(phase.resolve("supervisor.log").toFile());
        if (env != null) {
            builder.environment().clear();
            builder.environment().putAll(env);
        }
        builder.environment().put("PATH", path);
        return builder.start();
    }

    /** Runs the phase to its end; returns its exit.status. */
    private String runToEnd(Path phase, String shell, String path) throws Exception {
        return runToEnd(phase, shell, path, Map.of());
    }

    /** Runs the phase to its end, the supervisor's environment PATH and ENV alone; returns its exit.status. */
    private String runToEnd(Path phase, String shell, String path, Map<String, String> env) throws Exception {
        Process supervisor = supervise(phase, shell, path, env);
        try {
            assertThat(supervisor.waitFor(LIMIT.toSeconds(), TimeUnit.SECONDS))
                    .as("the supervisor ended")
                    .isTrue();
            return Files.readString(phase.resolve(PhaseProcess.EXIT_STATUS));
        } finally {
            supervisor.destroyForcibly();
        }
    }

    /** A folder of wrappers that note each call's arguments in LOG, then run the real tool. */
    private Path logging(Path log, String... tools) throws IOException {
        Path bin = Files.createDirectories(dir.resolve("logging-bin"));
        for (String tool : tools) {
            String real = List.of("/usr/bin/", "/bin/").stream()
                    .map(folder -> folder + tool)
                    .filter(p -> Files.isExecutable(Path.of(p)))
                    .findFirst()
                    .orElseThrow();
            Path wrapper = bin.resolve(tool);
            Files.writeString(
                    wrapper, "#!/bin/sh\necho \"" + tool + " $*\" >> '" + log + "'\nexec " + real + " \"$@\"\n");
            Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        return bin;
    }

    private static String namespace() throws IOException {
        try (var lines = Files.lines(Path.of("/proc/self/mountinfo"))) {
            return lines.findFirst().orElseThrow().strip();
        }
    }

    private static List<String> calls(Path log) throws IOException {
        return Files.exists(log) ? Files.readAllLines(log) : List.of();
    }

    @Test
    void aRunsFirstPhaseProbesAndTheNextTakeWhatItFound() throws Exception {
        Path log = dir.resolve("calls.txt");
        String path = logging(log, "grep", "tr") + ":/usr/bin:/bin";

        assertThat(runToEnd(phase("first", "true", true), "/bin/sh", path)).contains("status=passed");

        List<String> kept = Files.readAllLines(probed());
        assertThat(kept).contains("namespace " + namespace());
        assertThat(kept).anyMatch(l -> l.matches("shell(-bash)? 0\\.1:1:[01]"));
        if (SUBREAPERS.stream().anyMatch(p -> Files.isExecutable(Path.of(p)))) {
            assertThat(kept)
                    .anyMatch(l -> l.matches("reaper (/usr/bin/perl|(/usr/bin|/usr/local/bin|/opt/conda/bin)/python3)"))
                    .anyMatch(l -> l.matches("exe /.+"));
        }
        assertThat(calls(log)).as("the first phase probed grep -z").contains("grep -qxzF a");

        // kept findings are taken as they are: "no grep -z" sends the cookie scan through tr, and nothing is probed
        Files.writeString(probed(), "namespace " + namespace() + "\nshell 0.1:0:0\nshell-bash 0.1:0:0\n");
        Files.delete(log);
        assertThat(runToEnd(phase("second", "true", false), "/bin/sh", path)).contains("status=passed");
        assertThat(calls(log)).doesNotContain("grep -qxzF a").anyMatch(l -> l.startsWith("tr "));

        // findings of another mount namespace (a container's, the host's) are probed again here, and replaced
        Files.writeString(probed(), "namespace 1 0 0:1 / / rw - overlay overlay rw\nshell 0.1:0:0\n");
        Files.delete(log);
        assertThat(runToEnd(phase("third", "true", false), "/bin/sh", path)).contains("status=passed");
        assertThat(calls(log)).contains("grep -qxzF a").noneMatch(l -> l.startsWith("tr "));
        assertThat(Files.readAllLines(probed())).contains("namespace " + namespace());
    }

    @Test
    void aKeptInterpreterOrShellOutsideTheCandidatesIsNeverRun() throws Exception {
        SupervisorSweepTest.assumeASubreaper();
        Path marker = dir.resolve("ran.txt");
        Path forged = dir.resolve("python3");
        Files.writeString(forged, "#!/bin/sh\necho ran >> '" + marker + "'\nexec /usr/bin/python3 \"$@\"\n");
        Files.setPosixFilePermissions(forged, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path shell = dir.resolve("sh");
        Files.writeString(shell, "#!/bin/sh\necho ran >> '" + marker + "'\nexec /bin/sh \"$@\"\n");
        Files.setPosixFilePermissions(shell, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.createDirectories(probed().getParent());
        Files.writeString(probed(), "namespace " + namespace() + "\nreaper " + forged + "\nexe " + shell + "\n");

        Path phase = phase("job", "true", true);
        assertThat(runToEnd(phase, "/bin/sh", "/usr/bin:/bin")).contains("status=passed");

        assertThat(marker).doesNotExist();
        assertThat(Files.readString(phase.resolve("supervisor.log"))).contains("a child subreaper (through /");
        assertThat(Files.readAllLines(probed()))
                .noneMatch(l -> l.contains(forged.toString()))
                .noneMatch(l -> l.contains(shell.toString()));
    }

    /**
     * Whichever interpreter makes the supervisor a child subreaper (perl where it can, else python3; here each in
     * turn, named in the kept findings), the job starts with the environment and the ignored signals it has without
     * one: perl's PERL_BADLANG, python's LC_CTYPE and SIGPIPE do not reach it.
     */
    @Test
    void theSubreapersInterpreterLeavesTheJobsEnvironmentAsItWas() throws Exception {
        String job = "env | LC_ALL=C sort | grep -v '^GPU_SANITIZE_COOKIE=' > \"$0.env\";"
                + " grep '^SigIgn:' /proc/$$/status >> \"$0.env\"";
        Path plain = phase("plain", job.replace("$0", run().resolve("plain").toString()), false);
        for (String withBadlang : List.of("", "7")) {
            Map<String, String> env = new java.util.LinkedHashMap<>(Map.of("LANG", "C", "SPACED", "a  b"));
            if (!withBadlang.isEmpty()) {
                env.put("PERL_BADLANG", withBadlang);
            }
            Files.deleteIfExists(probed());
            assertThat(runToEnd(plain, "/bin/sh", "/usr/bin:/bin", env)).contains("status=passed");
            String expected = Files.readString(run().resolve("plain.env"));
            assertThat(expected).contains("SPACED=a  b");
            for (String reaper : SUBREAPERS) {
                if (!Files.isExecutable(Path.of(reaper))) {
                    continue;
                }
                String name = "with-" + Path.of(reaper).getFileName() + withBadlang;
                Path phase = phase(name, job.replace("$0", run().resolve(name).toString()), true);
                Files.writeString(probed(), "namespace " + namespace() + "\nreaper " + reaper + "\n");
                assertThat(runToEnd(phase, "/bin/sh", "/usr/bin:/bin", env)).contains("status=passed");
                assertThat(Files.readString(phase.resolve("supervisor.log")))
                        .contains("a child subreaper (through " + reaper + ")");
                assertThat(run().resolve(name + ".env")).as(reaper).hasContent(expected);
            }
        }
    }

    /**
     * dash: the loop's tick (a {@code sleep 0.5} that the PATH here makes 300 s) is ended by the phase's end: the
     * supervisor records the phase within the test's bound and says it ended by itself. The test opens the job's gate
     * only once the supervisor waits on that tick (the tick reads its system call: wait4, or rt_sigsuspend while a trap is
     * set), so nothing here is ordered by time.
     */
    @Test
    void underDashThePhasesEndEndsTheTickAtOnce() throws Exception {
        Path dash = List.of(Path.of("/usr/bin/dash"), Path.of("/bin/dash")).stream()
                .filter(Files::isExecutable)
                .findFirst()
                .orElse(null);
        assumeThat(dash).as("dash").isNotNull();
        assumeThat(System.getProperty("os.arch"))
                .as("the system calls' numbers are x86_64's")
                .isIn("amd64", "x86_64");
        Path log = dir.resolve("ticks.txt");
        Path waiting = dir.resolve("waiting");
        Path bin = Files.createDirectories(dir.resolve("tick-bin"));
        // the tick notes when its parent, the supervisor, sits in wait4 or rt_sigsuspend (x86_64's system calls 61
        // and 130: dash waits so while a trap is set); /proc has no change events, so the stand-in polls it
        Files.writeString(
                bin.resolve("sleep"),
                "#!/bin/sh\n[ \"$*\" = 0.5 ] || exec /usr/bin/sleep \"$@\"\necho \"start $*\" >> '" + log + "'\n"
                        + "trap 'kill $! 2> /dev/null; echo killed >> \"" + log + "\"; exit 143' TERM\n"
                        + "n=0\nwhile [ $n -lt 3000 ]; do\n  read -r call _ < /proc/$PPID/syscall\n"
                        + "  case $call in 61 | 130) : > '" + waiting + "'; break ;; esac\n"
                        + "  /usr/bin/sleep 0.02\n  n=$((n + 1))\ndone\n"
                        + "/usr/bin/sleep 300 &\nwait $!\necho done >> '" + log + "'\n");
        Files.setPosixFilePermissions(bin.resolve("sleep"), PosixFilePermissions.fromString("rwxr-xr-x"));
        Path gate = dir.resolve("gate");
        Path phase = phase("job", "while [ ! -e '" + gate + "' ]; do /usr/bin/sleep 0.05; done", false);

        Process supervisor = supervise(phase, dash.toString(), bin + ":/usr/bin:/bin");
        try {
            assertThat(FileWait.containing(log, "start 0.5", LIMIT))
                    .as("the tick started")
                    .isTrue();
            assertThat(FileWait.all(LIMIT, waiting))
                    .as("the supervisor waits on its tick")
                    .isTrue();
            Files.writeString(gate, "");
            assertThat(supervisor.waitFor(LIMIT.toSeconds(), TimeUnit.SECONDS))
                    .as("the supervisor ended")
                    .isTrue();
        } finally {
            supervisor.destroyForcibly();
        }
        assertThat(Files.readString(phase.resolve(PhaseProcess.EXIT_STATUS))).contains("status=passed");
        assertThat(Files.readAllLines(log)).containsExactly("start 0.5", "killed");
    }
}
