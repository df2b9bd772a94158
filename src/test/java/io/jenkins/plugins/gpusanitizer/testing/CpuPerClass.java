package io.jenkins.plugins.gpusanitizer.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * With {@code -Dgs.cpuReport=FILE} (bench/test-cpu.sh), appends each test class's CPU seconds (this JVM's and its
 * reaped children's, from /proc/self/stat), wall seconds, status, class, then the JVM's and the children's CPU apart. Exact only when classes run one at a time
 * ({@code -Dgs.testParallelism=1}); without the property it does nothing. Registered for every class through
 * JUnit's extension auto-detection (standalone/pom.xml).
 */
public final class CpuPerClass implements BeforeAllCallback, AfterAllCallback {
    private static final String REPORT = System.getProperty("gs.cpuReport");
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(CpuPerClass.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        if (REPORT != null) {
            long[] cpu = cpuTicks();
            context.getStore(NS).put("start", new long[] {cpu[0], cpu[1], System.nanoTime()});
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        long[] start = REPORT == null ? null : context.getStore(NS).get("start", long[].class);
        if (start == null) {
            return;
        }
        long[] cpu = cpuTicks();
        double self = (cpu[0] - start[0]) / 100.0;
        double children = (cpu[1] - start[1]) / 100.0;
        double wall = (System.nanoTime() - start[2]) / 1e9;
        String status = context.getExecutionException().isPresent() ? "FAILED" : "SUCCESSFUL";
        String line = String.format(
                "%.2f\t%.2f\t%s\t%s\t%.2f\t%.2f%n",
                self + children, wall, status, context.getRequiredTestClass().getName(), self, children);
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

    /** This JVM's utime + stime and its reaped children's cutime + cstime, in clock ticks (USER_HZ, 100 on Linux). */
    private static long[] cpuTicks() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return new long[] {
                Long.parseLong(f[11]) + Long.parseLong(f[12]), Long.parseLong(f[13]) + Long.parseLong(f[14])
            };
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
