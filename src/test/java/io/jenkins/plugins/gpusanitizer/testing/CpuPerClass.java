package io.jenkins.plugins.gpusanitizer.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;

/**
 * With {@code -Dgs.cpuReport=FILE} (bench/test-cpu.sh), appends each test class's CPU seconds (this JVM's and its
 * reaped children's, from /proc/self/stat) and wall seconds to FILE. Exact only when classes run one at a time
 * ({@code -Dgs.testParallelism=1}); without the property it does nothing.
 */
public final class CpuPerClass implements TestExecutionListener {
    private static final String REPORT = System.getProperty("gs.cpuReport");
    private final Map<String, long[]> started = new ConcurrentHashMap<>();

    @Override
    public void executionStarted(TestIdentifier id) {
        if (REPORT != null && id.getSource().orElse(null) instanceof ClassSource) {
            started.put(id.getUniqueId(), new long[] {cpuTicks(), System.nanoTime()});
        }
    }

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
        long[] start = started.remove(id.getUniqueId());
        if (start == null || !(id.getSource().orElse(null) instanceof ClassSource source)) {
            return;
        }
        double cpu = (cpuTicks() - start[0]) / 100.0;
        double wall = (System.nanoTime() - start[1]) / 1e9;
        String line = String.format("%.2f\t%.2f\t%s\t%s%n", cpu, wall, result.getStatus(), source.getClassName());
        try {
            Files.writeString(
                    Path.of(REPORT),
                    line,
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** utime + stime + cutime + cstime of this JVM, in clock ticks (USER_HZ, 100 on Linux). */
    private static long cpuTicks() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
