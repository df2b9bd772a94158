package io.jenkins.plugins.gpusanitizer.steps;

import hudson.FilePath;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import io.jenkins.plugins.gpusanitizer.engine.run.process.ProcessStarter;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@link AgentLink} over one remoting channel: each call is a {@link FilePath#actAsync} that must answer
 * within {@link #CALL_TIMEOUT_SECONDS} (a half-open channel must not hold the timer thread; durable-task
 * bounds its calls the same way, {@code DurableTaskStep.REMOTE_TIMEOUT}). The controller's starter is
 * exported once per link and handed to the agent with the start or the link's first poll.
 */
final class ChannelAgentLink implements AgentLink {
    static final long CALL_TIMEOUT_SECONDS = 20;

    private final FilePath workspace;
    private final String agent;
    private final RunSpec spec;
    private final Map<String, String> env;
    private final ProcessStarter starter;
    private boolean starterHandedOver;

    /**
     * @param starter the controller's starter, already exported over this channel
     * @param env     the job's environment (a start needs it; it is not kept with the step)
     */
    ChannelAgentLink(FilePath workspace, String agent, RunSpec spec, Map<String, String> env, ProcessStarter starter) {
        this.workspace = workspace;
        this.agent = agent;
        this.spec = spec;
        this.env = env;
        this.starter = starter;
    }

    @Override
    public void start(boolean resume) throws IOException, InterruptedException {
        call(new AgentRun.Start(spec, env, starter, resume));
        starterHandedOver = true;
    }

    @Override
    public AgentProgress poll(int offset) throws IOException, InterruptedException {
        AgentProgress progress = call(new AgentRun.Poll(spec.outDir(), offset, starterHandedOver ? null : starter));
        starterHandedOver = true;
        return progress;
    }

    @Override
    public boolean stop() throws IOException, InterruptedException {
        return call(new AgentRun.Stop(spec.outDir()));
    }

    @Override
    public void forget() throws IOException, InterruptedException {
        call(new AgentRun.Forget(spec.outDir()));
    }

    @Override
    public String agent() {
        return agent;
    }

    private <T> T call(FilePath.FileCallable<T> callable) throws IOException, InterruptedException {
        Future<T> answer = workspace.actAsync(callable);
        try {
            return answer.get(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            answer.cancel(true);
            throw new IOException(agent + " did not answer within " + CALL_TIMEOUT_SECONDS + " s", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IOException(cause);
        }
    }
}
