package io.jenkins.plugins.gpusanitizer.steps;

import java.io.EOFException;

/**
 * Whether a failure of a remote call is the channel going away rather than the call's own answer:
 * remoting's {@code ChannelClosedException} and {@code org.jenkinsci.remoting.ChannelStateException} (IOExceptions), {@code
 * RequestAbortedException} and the other {@code RemotingSystemException}s (RuntimeExceptions), an
 * {@code EOFException} of a cut stream, or any of them as a cause. By name: this is agent and
 * controller code alike, and the names are remoting's public API (jenkinsci/remoting, {@code
 * hudson.remoting}).
 */
final class ChannelTrouble {
    private ChannelTrouble() {}

    static boolean is(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof EOFException) {
                return true;
            }
            for (Class<?> type = cause.getClass(); type != null; type = type.getSuperclass()) {
                String name = type.getName();
                if (name.equals("hudson.remoting.ChannelClosedException")
                        || name.equals("org.jenkinsci.remoting.ChannelStateException")
                        || name.equals("hudson.remoting.RemotingSystemException")) {
                    return true;
                }
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return false;
    }
}
