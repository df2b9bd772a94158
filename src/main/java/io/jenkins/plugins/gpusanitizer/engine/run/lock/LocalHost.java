package io.jenkins.plugins.gpusanitizer.engine.run.lock;

import java.io.IOException;
import java.net.InetAddress;

/** This machine's name, for the files that tell a person whose processes and locks they are looking at. */
final class LocalHost {
    private LocalHost() {}

    static String name() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "unknown host";
        }
    }
}
