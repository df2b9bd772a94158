package io.jenkins.plugins.gpusanitizer.engine.run;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.jenkins.plugins.gpusanitizer.engine.report.OutputFile;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The GPUs of a run, taken exclusively on this machine: one lock file per GPU index in a shared folder,
 * locked with the operating system's file lock, so that parallel builds on one agent (several executors,
 * {@code gpus} defaulting to 0) wait for each other instead of sharing a card silently — a sanitizer run
 * beside another job measures the wrong memory curve. Beside each lock a holder file says whose it is.
 *
 * <p>The OS drops the lock when the holding process dies, SIGKILL included, so a killed run never blocks
 * the next one; {@link #close()} releases it on every other path. Several GPUs are locked in sorted order,
 * so two runs that want overlapping sets cannot deadlock.
 *
 * <p>The OS lock (fcntl) belongs to the process, not to the channel, and closing <em>any</em> channel of
 * the process on that file drops it. A Jenkins agent runs many builds in one JVM, so a run there first
 * claims the file within the JVM ({@link #CLAIMED}) and opens a channel only once it has the claim: a
 * waiting run that gives up can then never free the GPU of the run it waited for.
 */
final class GpuLock implements AutoCloseable {
    static final String DIR_ENV = "GPU_SANITIZE_LOCK_DIR";
    static final Path DEFAULT_DIR = Path.of("/tmp/gpu-sanitize-locks");
    private static final long POLL_MS = 500;
    private static final long REMIND_MS = 60_000;
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The lock files a run of this JVM holds or is trying: at most one channel per file in the JVM. */
    private static final Set<Path> CLAIMED = ConcurrentHashMap.newKeySet();

    /**
     * Who holds a GPU: enough for a person to find the build or the process.
     *
     * @param build   the Jenkins build ({@code BUILD_TAG}), null for the CLI
     * @param command the job's command, its secrets masked, shortened; null when unknown
     */
    record Holder(long pid, String host, String build, String command, String runDirectory, String since) {
        static Holder of(Map<String, String> env, Path runDirectory, String command) {
            return new Holder(
                    ProcessHandle.current().pid(),
                    LocalHost.name(),
                    env.get("BUILD_TAG"),
                    command == null ? null : ProgressLog.abbreviate(command),
                    runDirectory.toString(),
                    Instant.now().toString());
        }

        String describe() {
            String who = build != null ? build + ", " : command != null ? "'" + command + "', " : "";
            return who
                    + "gpu-sanitize pid " + pid + " on " + host + " since " + since + " (run directory " + runDirectory
                    + ")";
        }
    }

    /** The GPUs could not be taken: the run does not start, and the report says why (never a pass). */
    static final class NotTaken extends Exception {
        private static final long serialVersionUID = 1L;
        final String code;

        NotTaken(String code, String message) {
            super(message);
            this.code = code;
        }
    }

    private final List<Held> held = new ArrayList<>();
    private final Path directory;

    private record Held(String gpu, Path lockFile, FileChannel channel, FileLock lock, Path holderFile) {}

    private GpuLock(Path directory) {
        this.directory = directory;
    }

    /** No lock at all (--no-gpu-lock). */
    static GpuLock none() {
        return new GpuLock(null);
    }

    /** The folder of the locks (its real path); null without a lock. */
    Path directory() {
        return directory;
    }

    /** The GPUs held, in the order taken (sorted). */
    List<String> gpus() {
        return held.stream().map(Held::gpu).toList();
    }

    static Path directory(Map<String, String> env) {
        String dir = env.get(DIR_ENV);
        return dir == null || dir.isBlank() ? DEFAULT_DIR : Path.of(dir);
    }

    /**
     * Takes every GPU of the list, waiting up to the timeout for each; says in the log when it waits, for
     * whom, and when it got them.
     *
     * @throws NotTaken when the lock folder is unusable or a GPU stayed taken past the timeout
     * @throws InterruptedException when the run was aborted while waiting
     */
    static GpuLock take(Path dir, List<String> gpus, Holder me, int timeoutSeconds, ProgressLog progress)
            throws NotTaken, InterruptedException {
        GpuLock lock = new GpuLock(prepare(dir));
        try {
            long deadline = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
            for (String gpu : new TreeSet<>(gpus)) {
                lock.held.add(takeOne(lock.directory, gpu, me, deadline, timeoutSeconds, progress));
            }
            return lock;
        } catch (NotTaken | InterruptedException | RuntimeException e) {
            lock.close();
            throw e;
        }
    }

    /** The folder, created when missing; its real path (the in-JVM claim must see one file under one name). */
    private static Path prepare(Path dir) throws NotTaken {
        try {
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir);
                // shared by every user who runs builds on this machine
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
                stick(dir);
            }
        } catch (IOException | UnsupportedOperationException e) {
            if (!Files.isDirectory(dir)) {
                throw new NotTaken("gpu-lock", "cannot create the GPU lock folder " + dir + ": " + why(e) + hint());
            }
        }
        try {
            return dir.toRealPath();
        } catch (IOException e) {
            throw new NotTaken("gpu-lock", "cannot use the GPU lock folder " + dir + ": " + why(e) + hint());
        }
    }

    /**
     * The sticky bit, as on /tmp: every user may lock, only a file's owner may delete it (a lock file deleted
     * under a holder would let the next run lock a new file beside it). NIO cannot set it; chmod can.
     */
    private static void stick(Path dir) {
        try {
            new ProcessBuilder("chmod", "+t", dir.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start()
                    .waitFor(5, TimeUnit.SECONDS);
        } catch (IOException e) {
            // no chmod: the folder stays as NIO made it
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Held takeOne(
            Path dir, String gpu, Holder me, long deadline, int timeoutSeconds, ProgressLog progress)
            throws NotTaken, InterruptedException {
        String name = "gpu-" + gpu.replaceAll("[^A-Za-z0-9._-]", "_");
        Path lockFile = dir.resolve(name + ".lock");
        Path holderFile = lockFile.resolveSibling(name + ".holder.json");
        long start = System.nanoTime();
        long nextWord = 0;
        while (true) {
            Held taken = tryTake(gpu, lockFile, holderFile);
            if (taken != null) {
                writeHolder(holderFile, me);
                long waited = (System.nanoTime() - start) / 1_000_000_000L;
                if (nextWord > 0) {
                    progress.say("GPU " + gpu + " taken after " + waited + " s of waiting");
                }
                return taken;
            }
            long now = System.nanoTime();
            if (now >= deadline) {
                throw new NotTaken(
                        "gpu-lock-timeout",
                        "GPU " + gpu + " stayed in use by " + holder(holderFile) + " for the whole GPU lock timeout of "
                                + timeoutSeconds + " s: no phase ran");
            }
            if (now >= nextWord) {
                progress.say("GPU " + gpu + " is in use by " + holder(holderFile) + "; waiting (up to "
                        + (deadline - now + 999_999_999L) / 1_000_000_000L + " s more, " + lockFile + ")");
                nextWord = now + REMIND_MS * 1_000_000L;
            }
            Thread.sleep(POLL_MS);
        }
    }

    /**
     * The lock, or null while another run holds it: one of this JVM (the claim is taken) or another process
     * (the OS lock is taken; our channel is closed again, safe because this JVM holds no lock on the file).
     */
    private static Held tryTake(String gpu, Path lockFile, Path holderFile) throws NotTaken {
        if (!CLAIMED.add(lockFile)) {
            return null;
        }
        FileChannel channel = null;
        Held taken = null;
        try {
            channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            try {
                Files.setPosixFilePermissions(lockFile, PosixFilePermissions.fromString("rw-rw-rw-"));
            } catch (IOException | UnsupportedOperationException e) {
                // someone else's file: locking it is all we need
            }
            FileLock lock = tryLock(channel);
            if (lock != null) {
                taken = new Held(gpu, lockFile, channel, lock, holderFile);
            }
            return taken;
        } catch (IOException e) {
            throw new NotTaken("gpu-lock", "cannot lock " + lockFile + ": " + why(e) + hint());
        } finally {
            if (taken == null) {
                closeQuietly(channel);
                CLAIMED.remove(lockFile);
            }
        }
    }

    /** Null when held elsewhere; overlapping only when another class loader of this JVM holds it. */
    private static FileLock tryLock(FileChannel channel) throws IOException {
        try {
            return channel.tryLock();
        } catch (OverlappingFileLockException e) {
            return null;
        }
    }

    private static String why(Exception e) {
        return e instanceof AccessDeniedException ? "permission denied" : String.valueOf(e.getMessage());
    }

    /** Written as reports are (never through a link someone planted in the shared folder). */
    private static void writeHolder(Path holderFile, Holder me) {
        try {
            OutputFile.write(holderFile, out -> JSON.writeValue(out, me));
        } catch (IOException e) {
            // the holder file only informs whoever waits; the lock is what counts
        }
    }

    private static String holder(Path holderFile) {
        try {
            return JSON.readValue(holderFile.toFile(), Holder.class).describe();
        } catch (IOException e) {
            return "another process (no readable " + holderFile.getFileName() + ")";
        }
    }

    private static String hint() {
        return " (" + DIR_ENV + " moves the folder; --no-gpu-lock / gpuLock: false runs without it)";
    }

    @Override
    public void close() {
        for (Held h : held) {
            try {
                Files.deleteIfExists(h.holderFile());
            } catch (IOException e) {
                // a stale holder file is harmless: only the lock counts
            }
            try {
                h.lock().release();
            } catch (IOException e) {
                // closing the channel below releases it too
            }
            closeQuietly(h.channel());
            CLAIMED.remove(h.lockFile());
        }
        held.clear();
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel == null) {
            return;
        }
        try {
            channel.close();
        } catch (IOException e) {
            // nothing left to do: the OS drops the lock with the process at the latest
        }
    }
}
