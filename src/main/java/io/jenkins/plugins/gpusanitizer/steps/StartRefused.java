package io.jenkins.plugins.gpusanitizer.steps;

import java.io.IOException;

/**
 * The build's launcher ran the start command and it failed (no {@code sh} in the container, a Windows
 * agent): trying again after a reconnect would fail the same way, unlike a start the channel lost.
 */
final class StartRefused extends IOException {
    private static final long serialVersionUID = 1L;

    StartRefused(String message) {
        super(message);
    }
}
