package io.jenkins.plugins.gpusanitizer.steps;

import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import io.jenkins.plugins.gpusanitizer.engine.run.process.LocalProcessStarter;
import io.jenkins.plugins.gpusanitizer.engine.run.process.ProcessStarter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The two ends of a channel, replayed in one JVM for the durability tests: a {@link Controller}'s starter
 * (what {@code channel.export} hands the agent: it works while that controller's channel is up, then
 * fails as remoting's proxy of a closed channel does) and a {@link Link} whose calls run the real agent
 * callables ({@link AgentRun.Start}, {@link AgentRun.Poll}, ...) in this JVM, on the caller's thread as
 * remoting runs them on a request thread, after a round trip through Java serialization (what the
 * agent receives is a copy), and fail once the channel is cut.
 */
final class AgentSide {
    private AgentSide() {}

    /** One controller JVM's exported starter: starts processes here until its channel is cut. */
    static final class Controller implements ProcessStarter {
        private final ProcessStarter local = new LocalProcessStarter();
        private volatile boolean up = true;
        final AtomicInteger started = new AtomicInteger();
        final AtomicInteger refusedWhileDown = new AtomicInteger();

        void cut() {
            up = false;
        }

        @Override
        public void start(String script, String directory, Map<String, String> env, String workDir)
                throws IOException, InterruptedException {
            if (!up) {
                refusedWhileDown.incrementAndGet();
                throw new IOException("hudson.remoting.ChannelClosedException: channel is already closed");
            }
            local.start(script, directory, env, workDir);
            started.incrementAndGet();
        }

        @Override
        public void killAll() {
            // what the supervisors started is killed through the run's stop file
        }

        @Override
        public String describe() {
            return "a replayed controller";
        }
    }

    /** The controller's end of one channel to the agent. */
    static final class Link implements AgentLink {
        private final File workspace;
        private final RunSpec spec;
        private final Map<String, String> env;
        private final Controller controller;
        private boolean handedOver;
        private volatile boolean up = true;
        final AtomicInteger calls = new AtomicInteger();

        Link(File workspace, RunSpec spec, Map<String, String> env, Controller controller) {
            this.workspace = workspace;
            this.spec = spec;
            this.env = env;
            this.controller = controller;
        }

        /** The channel closes: this link's calls and its controller's starter fail from now on. */
        void cut() {
            up = false;
            controller.cut();
        }

        @Override
        public void start(boolean resume) throws IOException, InterruptedException {
            check();
            // the spec travels as a copy; the starter stays the controller's (exported, not copied)
            new AgentRun.Start(copy(spec), env, controller, resume).invoke(workspace, null);
            handedOver = true;
        }

        @Override
        public AgentProgress poll(int offset) throws IOException, InterruptedException {
            check();
            AgentProgress progress =
                    new AgentRun.Poll(spec.outDir(), offset, handedOver ? null : controller).invoke(workspace, null);
            handedOver = true;
            return copy(progress);
        }

        @Override
        public boolean stop() throws IOException {
            check();
            return new AgentRun.Stop(spec.outDir()).invoke(workspace, null);
        }

        @Override
        public void forget() throws IOException {
            check();
            new AgentRun.Forget(spec.outDir()).invoke(workspace, null);
        }

        @Override
        public String agent() {
            return "gpu-agent";
        }

        private void check() throws IOException {
            calls.incrementAndGet();
            if (!up) {
                throw new IOException("hudson.remoting.ChannelClosedException: channel is already closed");
            }
        }
    }

    /** What a Java-serialization round trip makes of an object: the Pipeline's save and load, a remoting call. */
    @SuppressWarnings("unchecked")
    static <T extends Serializable> T copy(T object) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
                out.writeObject(object);
            }
            try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
                return (T) in.readObject();
            }
        } catch (IOException | ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }
}
