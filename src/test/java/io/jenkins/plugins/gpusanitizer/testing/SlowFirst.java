package io.jenkins.plugins.gpusanitizer.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;

/**
 * Starts the test classes that take longest first (src/test/resources/slow-test-classes.txt, written by
 * bench/slow-test-classes.sh), the others after them in JUnit's order: classes run at once, and a long one that began
 * near the end would finish alone with a core idle. Set as the default class order in standalone/pom.xml; a stale
 * list changes the order only.
 */
public final class SlowFirst implements ClassOrderer {
    static final String PACKAGE = "io.jenkins.plugins.gpusanitizer.";
    static final String LIST = "/slow-test-classes.txt";

    /** The listed classes, relative to {@link #PACKAGE}, longest first. */
    static List<String> slowest() {
        try (InputStream in = SlowFirst.class.getResourceAsStream(LIST)) {
            if (in == null) {
                return List.of();
            }
            return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))
                    .lines()
                    .map(String::strip)
                    .filter(l -> !l.isEmpty() && !l.startsWith("#"))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static final List<String> SLOWEST = slowest();

    @Override
    public void orderClasses(ClassOrdererContext context) {
        // a stable sort: the classes not listed keep JUnit's order among themselves
        context.getClassDescriptors().sort(Comparator.comparingInt(d -> rank(d.getTestClass())));
    }

    static int rank(Class<?> test) {
        String name = test.getName();
        int at = name.startsWith(PACKAGE) ? SLOWEST.indexOf(name.substring(PACKAGE.length())) : -1;
        return at < 0 ? SLOWEST.size() : at;
    }
}
