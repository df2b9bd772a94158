package io.jenkins.plugins.gpusanitizer.steps;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue #12, 5: an abort while the agent runs asks the agent to stop and lets the step's thread finish
 * (copy back, attach) instead of ending the step at once; bounded by an interrupt and a last resort.
 */
class StopControlTest {
    private final ScheduledExecutorService timer = Executors.newScheduledThreadPool(2);
    private final Exception cause = new InterruptedException("aborted by the user");

    @AfterEach
    void stopTimer() {
        timer.shutdownNow();
    }

    @Test
    void beforeTheAgentRunsTheDefaultStopApplies() {
        StopControl c = new StopControl();
        assertThat(c.stop(cause, timer, () -> {})).isFalse();
        assertThat(c.cause()).isNull();
    }

    @Test
    void whileTheAgentRunsItIsAskedToStopAndTheStepEndsWhenItsThreadDoes() throws Exception {
        StopControl c = new StopControl(1);
        CountDownLatch asked = new CountDownLatch(1);
        AtomicInteger lastResort = new AtomicInteger();
        c.onAgent(Thread.currentThread(), 30, asked::countDown);
        assertThat(c.stop(cause, timer, lastResort::incrementAndGet)).isTrue();
        assertThat(asked.await(10, TimeUnit.SECONDS)).as("agent asked to stop").isTrue();
        assertThat(c.cause()).isSameAs(cause);
        // the agent answers at once with its partial report: the thread copies back, attaches and ends
        c.offAgent();
        c.finished();
        assertThat(Thread.interrupted()).as("not interrupted").isFalse();
        assertThat(lastResort).hasValue(0);
        assertThat(StopControl.asException(cause)).isSameAs(cause);
    }

    @Test
    void aSecondAbortStopsTheDefaultWay() {
        StopControl c = new StopControl();
        c.onAgent(Thread.currentThread(), 30, () -> {});
        assertThat(c.stop(cause, timer, () -> {})).isTrue();
        assertThat(c.stop(new InterruptedException("again"), timer, () -> {})).isFalse();
        assertThat(c.cause()).isSameAs(cause);
        c.finished();
    }

    @Test
    void anAgentThatDoesNotAnswerIsInterruptedAfterTheGraceThenTheStepIsEnded() throws Exception {
        StopControl c = new StopControl(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        CountDownLatch ended = new CountDownLatch(1);
        Thread worker = new Thread(() -> {
            try {
                Thread.sleep(60_000); // waiting for an agent that never answers
            } catch (InterruptedException e) {
                interrupted.countDown();
                try {
                    Thread.sleep(60_000); // and a copy-back that hangs too
                } catch (InterruptedException again) {
                    // ends with the test
                }
            }
        });
        worker.start();
        c.onAgent(worker, 1, () -> {});
        assertThat(c.stop(cause, timer, ended::countDown)).isTrue();
        assertThat(interrupted.await(10, TimeUnit.SECONDS))
                .as("interrupted after the grace")
                .isTrue();
        c.offAgent();
        assertThat(ended.await(10, TimeUnit.SECONDS))
                .as("step ended by the last resort")
                .isTrue();
        worker.interrupt();
        worker.join(10_000);
    }

    @Test
    void anAbortDuringTheCopyBackLetsItFinish() throws Exception {
        StopControl c = new StopControl(60);
        c.onAgent(Thread.currentThread(), 60, () -> {});
        c.offAgent(); // the agent answered; copy-back and attach are running
        AtomicInteger asked = new AtomicInteger();
        assertThat(c.stop(cause, timer, asked::incrementAndGet)).isTrue();
        c.finished();
        Thread.sleep(100);
        assertThat(asked).hasValue(0);
        assertThat(c.cause()).isSameAs(cause);
        assertThat(StopControl.asException(new Error("x")))
                .isInstanceOf(Exception.class)
                .hasCauseInstanceOf(Error.class);
    }
}
