package io.jenkins.plugins.gpusanitizer.engine.model;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The files this jar carries (report.css, the probe, the supervisor and sampler scripts), read once and kept.
 * On a Jenkins agent this jar's classes and resources come from the controller through the remoting channel that
 * started the run; a run goes on across a controller restart, when that channel is closed and cannot be asked
 * again (issue #41, 6). {@code Runner.preloadResources} reads them all while it is open.
 */
public final class BundledResources {
    private static final Map<String, byte[]> READ = new ConcurrentHashMap<>();

    private BundledResources() {}

    /** The resource {@code name} next to {@code owner} (as {@link Class#getResourceAsStream}), or null when missing. */
    public static InputStream open(Class<?> owner, String name) throws IOException {
        String key = owner.getName() + ":" + name;
        byte[] bytes = READ.get(key);
        if (bytes == null) {
            try (InputStream in = owner.getResourceAsStream(name)) {
                if (in == null) {
                    return null;
                }
                bytes = in.readAllBytes();
            }
            byte[] first = READ.putIfAbsent(key, bytes);
            if (first != null) {
                bytes = first; // another thread read it meanwhile: one copy kept
            }
        }
        return new ByteArrayInputStream(bytes);
    }

    /** Reads the resource now, to keep; an IOException when this build lacks it. */
    public static void preload(Class<?> owner, String name) throws IOException {
        try (InputStream in = open(owner, name)) {
            if (in == null) {
                throw new IOException(name + " is missing from this build");
            }
        }
    }

    /** Whether the resource was read already (for tests). */
    public static boolean isRead(Class<?> owner, String name) {
        return READ.containsKey(owner.getName() + ":" + name);
    }
}
