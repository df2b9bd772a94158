package io.jenkins.plugins.gpusanitizer.engine.run.lock;

import io.jenkins.plugins.gpusanitizer.engine.report.OutputFile;
import io.jenkins.plugins.gpusanitizer.engine.run.RunException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.UUID;

/**
 * Which runner drives a run directory. A run whose phases outlive its JVM (a durable Jenkins step) is
 * resumed by a new runner after a restart; when the old one still lives (the agent's JVM survived,
 * its controller did not), it must neither start more phases nor write the results: the lease file
 * names the newest runner, and the older one steps back quietly — without stopping the phases, which
 * the new one follows. Its second line says who that runner is (pid, host, since when, and whether the
 * phases follow it or run detached), for the person who finds processes running and wonders whose.
 */
public final class RunLease {
    public static final String FILE = "runner.lease";

    private final Path file;
    private final String token = UUID.randomUUID().toString();
    private final boolean detached;

    public RunLease(Path runRoot, boolean detached) {
        this.file = runRoot.resolve(FILE);
        this.detached = detached;
    }

    /** Takes the run directory over (a new run, or a resumed one). */
    public void take() throws IOException {
        OutputFile.writeString(file, token + "\n" + owner() + "\n");
    }

    private String owner() {
        return "runner: pid " + ProcessHandle.current().pid() + " on " + LocalHost.name() + " since " + Instant.now()
                + (detached
                        ? "; its phases run detached and outlive it (a durable step resumes them)"
                        : "; its phases end when it dies");
    }

    /** Whether this runner still drives the run (true when the lease cannot be read: never step back on doubt). */
    boolean held() {
        try {
            return !Files.exists(file)
                    || Files.readAllLines(file, StandardCharsets.UTF_8).stream()
                            .findFirst()
                            .orElse("")
                            .strip()
                            .equals(token);
        } catch (IOException e) {
            return true;
        }
    }

    /** @throws Superseded when a resumed runner took the run over */
    public void check() {
        if (!held()) {
            throw new Superseded();
        }
    }

    /** This runner was replaced by a resumed one: it ends without touching the phases or the results. */
    public static final class Superseded extends RunException {
        private static final long serialVersionUID = 1L;

        Superseded() {
            super("a resumed run took this run directory over");
        }
    }
}
