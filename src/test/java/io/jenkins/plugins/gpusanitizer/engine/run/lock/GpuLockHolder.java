package io.jenkins.plugins.gpusanitizer.engine.run.lock;

import io.jenkins.plugins.gpusanitizer.engine.run.ProgressLog;
import io.jenkins.plugins.gpusanitizer.engine.run.Secrets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Another process on the machine wanting a GPU. {@code DIR GPU}: takes the lock, says "taken", and sleeps
 * until killed. {@code DIR GPU try}: tries for a second and says "taken" or "not taken: CODE".
 */
public final class GpuLockHolder {
    private GpuLockHolder() {}

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        boolean justTry = args.length > 2 && args[2].equals("try");
        GpuLock lock;
        try {
            lock = GpuLock.take(
                    dir,
                    List.of(args[1]),
                    GpuLock.Holder.of(Map.of("BUILD_TAG", "jenkins-other-job-7"), dir.resolve("other-run")),
                    justTry ? 1 : 5,
                    new ProgressLog(line -> {}, new Secrets(Map.of())));
        } catch (GpuLock.NotTaken e) {
            System.out.println("not taken: " + e.code);
            return;
        }
        System.out.println("taken");
        System.out.flush();
        if (!justTry) {
            Thread.sleep(120_000);
        }
        lock.close();
    }
}
