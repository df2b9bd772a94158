package io.jenkins.plugins.gpusanitizer.engine.parse.memory;

import io.jenkins.plugins.gpusanitizer.engine.parse.BoundedLineReader;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputFiles;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * {@code gpu-pids.txt}, written by the memory sampler beside the regression run: the pid namespace it ran in,
 * then each pid nvidia-smi listed on the card, checked once, when first listed, while it was alive: the phase's
 * own ({@code ours session}: in the phase's session; {@code ours cookie}: a process that left it but carries the
 * phase's cookie), another's ({@code other}), or {@code gone} before it could be checked; and the per-process
 * nvidia-smi's exit status when it ended before the phase ({@code apps-sampler-exit N}).
 *
 * <pre>
 * pid-namespace pid:[4026531836]
 * 51377 ours session
 * 51234 other
 * </pre>
 *
 * @param pidNamespace the sampler's {@code /proc/self/ns/pid}, or {@code unknown}
 * @param ours         the phase's processes nvidia-smi listed
 * @param others       the other processes it listed
 * @param gone         those that ended before they could be checked
 * @param badLines     lines that say none of that
 * @param appsSamplerExit the per-process sampler's exit status when it ended before the phase, else null
 */
public record GpuPids(
        String pidNamespace, Set<Long> ours, Set<Long> others, Set<Long> gone, int badLines, String appsSamplerExit) {
    /**
     * The kernel's first pid namespace, the host's ({@code PROC_PID_INIT_INO}, 0xEFFFFFFC, in the Linux kernel's
     * include/linux/proc_ns.h): the driver lists pids as the host sees them, so only there are they the job's.
     */
    public static final String HOST_PID_NAMESPACE = "pid:[4026531836]";

    /** More distinct pids than this in one phase are not kept (counted as bad lines): the file is bounded. */
    static final int MAX_PIDS = 1 << 16;

    public GpuPids {
        ours = Collections.unmodifiableSet(new LinkedHashSet<>(ours));
        others = Collections.unmodifiableSet(new LinkedHashSet<>(others));
        gone = Collections.unmodifiableSet(new LinkedHashSet<>(gone));
    }

    /** Whether the sampler ran in the host's pid namespace, where nvidia-smi's pids are the job's pids. */
    public boolean hostPidNamespace() {
        return HOST_PID_NAMESPACE.equals(pidNamespace);
    }

    /** Whether the sampler ran in a namespace of its own (a container's): the pids nvidia-smi lists are not ours. */
    public boolean ownPidNamespace() {
        return pidNamespace.startsWith("pid:[") && !hostPidNamespace();
    }

    public static GpuPids read(Path file) {
        return InputFiles.read(file, in -> read(in, file));
    }

    static GpuPids read(InputStream in, Path name) throws IOException {
        BoundedLineReader lines = new BoundedLineReader(InputFiles.reader(in), 4096);
        String namespace = "unknown";
        Set<Long> ours = new LinkedHashSet<>();
        Set<Long> others = new LinkedHashSet<>();
        Set<Long> gone = new LinkedHashSet<>();
        int bad = 0;
        String appsExit = null;
        String line;
        while ((line = lines.readLine()) != null) {
            String[] f = line.trim().split("\\s+");
            if (f[0].isEmpty() || f[0].startsWith("#")) {
                continue;
            }
            if (f[0].equals("pid-namespace") && f.length == 2) {
                namespace = f[1];
                continue;
            }
            if (f[0].equals("apps-sampler-exit") && f.length == 2) {
                appsExit = f[1];
                continue;
            }
            long pid;
            try {
                pid = Long.parseLong(f[0]);
            } catch (NumberFormatException e) {
                bad++;
                continue;
            }
            Set<Long> into =
                    switch (f.length > 1 ? f[1] : "") {
                        case "ours" -> ours;
                        case "other" -> others;
                        case "gone" -> gone;
                        default -> null;
                    };
            if (into == null || pid <= 0 || ours.size() + others.size() + gone.size() >= MAX_PIDS) {
                bad++;
            } else {
                into.add(pid);
            }
        }
        return new GpuPids(namespace, ours, others, gone, bad, appsExit);
    }
}
