package io.jenkins.plugins.gpusanitizer.engine.run;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** Another process on the machine holding a GPU: takes the lock, says so, and sleeps until killed. */
public final class GpuLockHolder {
    private GpuLockHolder() {}

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        GpuLock lock = GpuLock.take(
                dir,
                List.of(args[1]),
                GpuLock.Holder.of(Map.of("BUILD_TAG", "jenkins-other-job-7"), dir.resolve("other-run")),
                5,
                new ProgressLog(line -> {}, new Secrets(Map.of())));
        System.out.println("taken");
        System.out.flush();
        Thread.sleep(120_000);
        lock.close();
    }
}
