package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostContentionTest {
    @TempDir
    Path dir;

    /** A real Python job binding a port another process holds: its own stderr names the port in use. */
    @Test
    void pythonBindingAHeldPortIsContention() throws Exception {
        try (ServerSocket held = new ServerSocket(0)) {
            int port = held.getLocalPort();
            Path stderr = dir.resolve("stderr.log");
            Process p = new ProcessBuilder(
                            "python3",
                            "-c",
                            "import socket\ns=socket.socket()\ns.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,0)\n"
                                    + "s.bind(('127.0.0.1'," + port + "))\ns.listen()")
                    .redirectError(stderr.toFile())
                    .start();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isNotZero();
            assertThat(HostContention.why(stderr)).contains("Address already in use");
        }
    }

    @Test
    void torchStoreNamesThePort() throws Exception {
        Path stderr = dir.resolve("stderr.log");
        Files.writeString(
                stderr,
                "[W socket.cpp:464] [c10d] The server socket has failed to bind to [::]:12355 (errno: 98 - Address"
                        + " already in use).\n",
                StandardCharsets.UTF_8);
        assertThat(HostContention.why(stderr)).isEqualTo("it could not take port 12355 (Address already in use)");
    }

    @Test
    void otherFailuresAndMissingFilesAreNot() throws Exception {
        Path stderr = dir.resolve("stderr.log");
        Files.writeString(stderr, "RuntimeError: CUDA error: an illegal memory access was encountered\n");
        assertThat(HostContention.why(stderr)).isNull();
        assertThat(HostContention.why(dir.resolve("absent.log"))).isNull();
    }

    /**
     * Situation 8: a real {@code flock -n} guard while another process holds the lock exits 1 without a word and
     * before the job's Python starts; a job that printed its failure, or whose probe wrote a line, is not taken for it.
     */
    @Test
    void aLockGuardThatStoppedTheJobSilentlyIsContention() throws Exception {
        Path lock = dir.resolve("train.lock");
        Process holder = new ProcessBuilder("flock", lock.toString(), "sh", "-c", "echo held; exec sleep 60").start();
        try {
            // the holder has the lock once it printed (its output is the order, not a sleep)
            assertThat(new java.io.BufferedReader(
                                    new java.io.InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))
                            .readLine())
                    .isEqualTo("held");
            Path stderr = dir.resolve("stderr.log");
            Process guarded = new ProcessBuilder("sh", "-c", "exec flock -n '" + lock + "' python3 -c 'print(1)'")
                    .redirectError(stderr.toFile())
                    .redirectOutput(dir.resolve("stdout.log").toFile())
                    .start();
            assertThat(guarded.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(guarded.exitValue()).isEqualTo(1);
            Path probe = dir.resolve("probe.jsonl");
            assertThat(HostContention.silentBeforeTheJob(stderr, probe, guarded.exitValue()))
                    .isEqualTo("it failed before its job started (exit 1, nothing on stderr, no process of it loaded"
                            + " the probe)");

            Files.writeString(probe, "{\"type\":\"probe\",\"mode\":\"blocking\"}\n");
            assertThat(HostContention.silentBeforeTheJob(stderr, probe, 1))
                    .as("the job started")
                    .isNull();
            Files.delete(probe);
            Files.writeString(stderr, "Traceback (most recent call last):\nValueError: bad flag\n");
            assertThat(HostContention.silentBeforeTheJob(stderr, probe, 1))
                    .as("it said why")
                    .isNull();
        } finally {
            holder.destroyForcibly();
        }
    }
}
