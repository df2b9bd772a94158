package io.jenkins.plugins.gpusanitizer.testing;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A JVM a test starts as a process of its own (the CLI, a lock holder). */
public final class ChildJvm {
    private ChildJvm() {}

    /**
     * The java command as bin/gpu-sanitize starts it (the serial collector and C1 alone: a short-lived CLI; about
     * half the CPU of a default JVM's start here), behind {@code env --default-signal}: a JVM whose parent ignores
     * SIGINT (a shell's background job, nohup) inherits that and never installs its handler, so a test that sends
     * INT would wait out its limit. Coreutils' env (8.31+) resets the stop signals to their defaults; without it the
     * JVM starts as it is.
     */
    public static List<String> java() {
        List<String> cmd = new ArrayList<>();
        if (ENV_RESETS_SIGNALS) {
            cmd.addAll(List.of("env", "--default-signal=HUP,INT,QUIT,TERM"));
        }
        cmd.addAll(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1"));
        return cmd;
    }

    private static final boolean ENV_RESETS_SIGNALS = Processes.succeeds("env", "--default-signal=INT", "true");
}
