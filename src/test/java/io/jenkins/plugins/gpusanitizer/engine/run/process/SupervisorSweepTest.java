package io.jenkins.plugins.gpusanitizer.engine.run.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.jenkins.plugins.gpusanitizer.engine.gate.Reason;
import io.jenkins.plugins.gpusanitizer.engine.report.ExecutionJson;
import io.jenkins.plugins.gpusanitizer.engine.report.PhaseJson;
import io.jenkins.plugins.gpusanitizer.engine.run.PhaseReasons;
import io.jenkins.plugins.gpusanitizer.engine.run.PhaseResult;
import io.jenkins.plugins.gpusanitizer.engine.run.RunDirectory;
import io.jenkins.plugins.gpusanitizer.engine.run.RunRecord;
import io.jenkins.plugins.gpusanitizer.testing.FileWait;
import io.jenkins.plugins.gpusanitizer.testing.Processes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Issue #26, 8, on the supervisor itself ({@code supervise.sh}, run as the runner runs it): what the sweep finds
 * of a phase and what it never touches. A job's grandchild that cleared its environment ({@code env -i}) and left the
 * job's process group or session is found, through the phase's session or, once orphaned, as a child of the
 * supervisor (a child subreaper); a process with the same command line outside the phase runs on, also when
 * {@code setsid} is missing and the phase shares the runner's session; a process of another user the supervisor
 * cannot kill (a job's {@code sudo}) is named with its uid.
 */
@EnabledOnOs(OS.LINUX)
@Execution(ExecutionMode.CONCURRENT) // real processes that mostly wait: the tests overlap
class SupervisorSweepTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);
    /**
     * The interpreters supervise.sh tries for the child subreaper, in its order: perl where it knows prctl's number
     * (x86_64, aarch64), the pythons of the system.
     */
    static final List<String> SUBREAPERS = List.of("amd64", "x86_64", "aarch64").contains(System.getProperty("os.arch"))
            ? List.of("/usr/bin/perl", "/usr/bin/python3", "/usr/local/bin/python3", "/opt/conda/bin/python3")
            : List.of("/usr/bin/python3", "/usr/local/bin/python3", "/opt/conda/bin/python3");

    /** Skips the test where neither perl nor a python3 of the system can make the supervisor a child subreaper. */
    static void assumeASubreaper() {
        assumeThat(SUBREAPERS.stream().anyMatch(p -> Files.isExecutable(Path.of(p))))
                .as("perl or a python3 of the system makes the supervisor a child subreaper")
                .isTrue();
    }

    @TempDir
    Path dir;

    private final List<Process> started = new ArrayList<>();

    /** A job's grandchild without the cookie: {@code env -i sh -c 'echo $$ > FILE; exec sleep 300'}. */
    private static String grandchild(Path pidFile) {
        return "env -i sh -c 'echo $$ > \"$1\"; exec sleep 300' grandchild '" + pidFile + "'";
    }

    /** The phase's folder, its job a bash script, settings as the runner writes them for a job's phase. */
    private Path phase(String job) throws IOException {
        return phase(job, true);
    }

    /**
     * The same, its supervisor no child subreaper when {@code subreaper} is false (as where the system has neither perl
     * nor python3).
     */
    private Path phase(String job, boolean subreaper) throws IOException {
        Path phase = Files.createDirectories(dir.resolve("run/phase"));
        Path script = dir.resolve("job.sh");
        Files.writeString(script, job);
        PhaseScript.writePhase(phase, null, Map.of(), List.of(), List.of("bash", script.toString()));
        PhaseScript.writeConf(phase, conf("sweep-test", subreaper));
        return phase;
    }

    /**
     * The runner's settings for a job's phase of this cookie's name; without {@code subreaper} its supervisor is no
     * child subreaper, as where the system has neither perl nor python3 (the runner itself always asks for one).
     */
    static Map<String, String> conf(String cookieName, boolean subreaper) {
        Map<String, String> conf =
                new LinkedHashMap<>(new PhaseSettings(600, null, false, 1, 1, Processes.cookie(cookieName), false, 1)
                        .conf(PhaseProcess.Owner.thisJvm()));
        assertThat(conf).as("the runner's settings").containsEntry("SUBREAPER", "1");
        if (!subreaper) {
            conf.put("SUBREAPER", "");
        }
        return conf;
    }

    /** Starts the supervisor with this PATH, through the prefix (a user switch), as the runner does: /bin/sh. */
    private Process supervise(Path phase, String path, String... prefix) throws IOException {
        Path supervisor = PhaseScript.installSupervisor(dir.resolve("run"));
        List<String> command = new ArrayList<>(List.of(prefix));
        command.addAll(List.of("/bin/sh", supervisor.toString(), phase.toString()));
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("supervisor.log").toFile());
        builder.environment().put("PATH", path);
        return builder.start();
    }

    /** Asks the supervisor to stop the phase once the pid file is written; returns the pid and the phase's record. */
    private Stopped stopOnce(Process supervisor, Path phase, Path pidFile) throws Exception {
        try {
            String pid = FileWait.content(pidFile, LIMIT);
            assertThat(pid).as("the job started its grandchild").matches("\\d+");
            Files.writeString(phase.resolve(PhaseProcess.STOP), "abort\n");
            assertThat(FileWait.all(LIMIT, phase.resolve(PhaseProcess.EXIT_STATUS)))
                    .as("the supervisor recorded the phase's end")
                    .isTrue();
            assertThat(supervisor.waitFor(30, TimeUnit.SECONDS)).isTrue();
            return new Stopped(Long.parseLong(pid), Files.readString(phase.resolve(PhaseProcess.EXIT_STATUS)));
        } finally {
            supervisor.destroyForcibly();
        }
    }

    private record Stopped(long pid, String status) {}

    /** A process of the test's, with the grandchild's command line. */
    private Process unrelated(String... launcher) throws IOException {
        List<String> command = new ArrayList<>(List.of(launcher));
        command.addAll(List.of("sh", "-c", "exec sleep 300"));
        Process process = new ProcessBuilder(command).start();
        started.add(process);
        return process;
    }

    /** The phase's daemon was named, killed and is gone; the process of another session with its command line runs on. */
    private static void assertSweptAlone(Stopped stopped, Process other) {
        assertThat(stopped.status())
                .contains("status=aborted")
                .contains("leftover process(es) of the phase killed: " + stopped.pid() + " (sleep 300)");
        // the same fact for the runner, as a pid rather than a sentence
        assertThat(PhaseProcess.pids(stopped.status()
                        .lines()
                        .filter(l -> l.startsWith("killed="))
                        .findFirst()
                        .orElseThrow()
                        .substring("killed=".length())))
                .contains(stopped.pid());
        assertThat(Processes.awaitGone(stopped.pid(), Duration.ofSeconds(10)))
                .as("the daemon " + stopped.pid())
                .isTrue();
        assertThat(Processes.running(other.pid()))
                .as("a process of another session with the same command line")
                .isTrue();
    }

    @AfterEach
    void endWhatTheTestStarted() {
        started.forEach(Process::destroyForcibly);
    }

    @Test
    void aDaemonThatLeftTheSessionAndTheCookieIsFoundAsTheSupervisorsChild() throws Exception {
        assumeASubreaper();
        Path pidFile = dir.resolve("daemon.pid");
        Path phase = phase("setsid -f " + grandchild(pidFile) + "\nexec sleep 1000\n");
        Process other = unrelated("setsid");

        Stopped stopped = stopOnce(supervise(phase, "/usr/bin:/bin"), phase, pidFile);

        assertThat(Files.readString(dir.resolve("supervisor.log")))
                .contains("a child subreaper")
                .contains("the phase is its descendants");
        assertSweptAlone(stopped, other);
    }

    /**
     * A supervisor that is no child subreaper (no perl or python3 of the system) reads every process: a daemon of the
     * job that left the session and whose parent ended (reparented to init) is found by the cookie it kept.
     */
    @Test
    void withoutASubreaperADaemonIsFoundByItsCookie() throws Exception {
        Path pidFile = dir.resolve("daemon.pid");
        Path phase = phase(
                "setsid -f sh -c 'echo $$ > \"$1\"; exec sleep 300' daemon '" + pidFile + "'\nexec sleep 1000\n",
                false);
        Process other = unrelated("setsid");

        Stopped stopped = stopOnce(supervise(phase, "/usr/bin:/bin"), phase, pidFile);

        assertThat(Files.readString(dir.resolve("supervisor.log"))).doesNotContain("subreaper");
        assertSweptAlone(stopped, other);
    }

    /**
     * Without setsid the phase runs in the supervisor's session, which is the runner's (here this JVM's): the session is
     * then never swept, and what the job left is found as the supervisor's descendant.
     */
    @Test
    void withoutSetsidTheSessionIsTheRunnersAndIsNeverSwept() throws Exception {
        assumeASubreaper();
        Path bin = Files.createDirectories(dir.resolve("bin"));
        for (String tool : List.of("sh", "bash", "sleep", "cat", "grep", "tr", "head", "mv", "rm", "env")) {
            Path real = Stream.of("/usr/bin/", "/bin/")
                    .map(folder -> Path.of(folder + tool))
                    .filter(Files::isExecutable)
                    .findFirst()
                    .orElseThrow();
            Files.writeString(bin.resolve(tool), "#!/bin/sh\nexec " + real + " \"$@\"\n");
            Files.setPosixFilePermissions(bin.resolve(tool), PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        Path pidFile = dir.resolve("grandchild.pid");
        Path phase = phase("set -m\n" + grandchild(pidFile) + " &\nset +m\nexec sleep 1000\n");
        Process sameSession = unrelated();

        Stopped stopped = stopOnce(supervise(phase, bin.toString()), phase, pidFile);

        assertThat(stopped.status())
                .contains("leftover process(es) of the phase killed: " + stopped.pid() + " (sleep 300)");
        assertThat(Processes.awaitGone(stopped.pid(), Duration.ofSeconds(10)))
                .as("the grandchild " + stopped.pid())
                .isTrue();
        assertThat(Processes.running(sameSession.pid()))
                .as("a process of the runner's session with the grandchild's command line")
                .isTrue();
    }

    /**
     * A job that runs a command as root (sudo) under a supervisor of another user: the supervisor cannot kill it and
     * says so, with its uid. Needs root to set the scene (a setuid copy of setpriv stands for sudo).
     */
    @Test
    void aProcessOfAnotherUserItCannotKillIsNamedWithItsUid() throws Exception {
        assumeThat(((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue())
                .as("root, to run the supervisor as uid 4711 and a setuid helper")
                .isZero();
        assumeThat(Files.isExecutable(Path.of("/usr/bin/setpriv"))).isTrue();
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path sudo = dir.resolve("as-root");
        Files.copy(Path.of("/usr/bin/setpriv"), sudo);
        assertThat(new ProcessBuilder("chmod", "4755", sudo.toString()).start().waitFor())
                .isZero();
        Path pidFile = dir.resolve("root-child.pid");
        Path phase =
                phase(sudo + " --reuid=0 --regid=0 --clear-groups " + grandchild(pidFile) + " &\nexec sleep 1000\n");
        assertThat(new ProcessBuilder(
                                "chown", "-R", "4711:4711", dir.resolve("run").toString())
                        .start()
                        .waitFor())
                .isZero();
        Files.setPosixFilePermissions(dir.resolve("job.sh"), PosixFilePermissions.fromString("rw-r--r--"));

        Stopped stopped = null;
        try {
            stopped = stopOnce(
                    supervise(
                            phase,
                            "/usr/bin:/bin",
                            "/usr/bin/setpriv",
                            "--reuid=4711",
                            "--regid=4711",
                            "--clear-groups"),
                    phase,
                    pidFile);

            assertThat(stopped.status()).contains("could not kill " + stopped.pid() + " (uid 0: sleep 300)");
            assertThat(Processes.running(stopped.pid()))
                    .as("beyond uid 4711's reach")
                    .isTrue();
        } finally {
            String pid = Files.exists(pidFile) ? Files.readString(pidFile).trim() : "";
            if (pid.matches("\\d+")) {
                new ProcessBuilder("kill", "-KILL", pid).start().waitFor();
            }
        }
    }

    /** What the sweep could not kill is a warning of the report, with the supervisor's words (pid, uid, command). */
    @Test
    void whatTheSweepCouldNotKillIsAWarningOfTheReport() {
        String note = "aborted; could not kill 4480 (uid 0: sleep 300)";
        PhaseJson blocking = new PhaseJson(
                "blocking",
                null,
                List.of("python3", "train.py"),
                Map.of(),
                "0",
                PhaseResult.ABORTED,
                143,
                15,
                2.0,
                null,
                false,
                false,
                List.of(),
                note);
        RunRecord record = new RunRecord(
                1,
                null,
                false,
                List.of(),
                true,
                null,
                new ExecutionJson(null, List.of(blocking), dir.toString(), null, null, null, null, null));

        List<Reason> reasons = PhaseReasons.of(record, new RunDirectory(dir), null);

        assertThat(reasons)
                .filteredOn(r -> r.code().equals("not-killed"))
                .singleElement()
                .satisfies(r -> assertThat(r.level()).isEqualTo(Reason.Level.WARNING))
                .satisfies(r -> assertThat(r.message()).contains("blocking: could not kill 4480 (uid 0: sleep 300)"));
    }
}
