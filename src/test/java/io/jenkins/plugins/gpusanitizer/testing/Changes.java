package io.jenkins.plugins.gpusanitizer.testing;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * What a test waits for on other threads: they call {@link #changed} after each change they make, and {@link #await}
 * looks at the condition again then, never on a timer. A change made before the wait began is seen at once.
 */
public final class Changes {
    private final Object lock = new Object();

    /** Wakes the waiters: something they look at changed. */
    public void changed() {
        synchronized (lock) {
            lock.notifyAll();
        }
    }

    /** Returns once the condition holds, or false after {@code limit} (the caller asserts what it needs). */
    public boolean await(Duration limit, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        synchronized (lock) {
            while (!condition.getAsBoolean()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
            return true;
        }
    }
}
