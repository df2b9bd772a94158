package io.jenkins.plugins.gpusanitizer.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.RootBuild;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class SlowFirstTest {
    /** The test source of a listed class. */
    private static Path source(String name) {
        return RootBuild.ROOT.resolve("src/test/java/" + (SlowFirst.PACKAGE + name).replace('.', '/') + ".java");
    }

    /**
     * Issue #41: the plugin build (root pom.xml) compiles no CLI test (its compiler testExcludes), so a listed class
     * may be absent there; it must be one of those, read from the root pom, and its source must exist.
     */
    private static boolean leftOutOfThePluginBuild(String name) throws Exception {
        return !RootBuild.testSources().contains(source(name));
    }

    @Test
    void theListNamesTestClassesOfThisBuildLongestFirst() throws Exception {
        assertThat(SlowFirst.slowest()).hasSizeGreaterThanOrEqualTo(10).doesNotHaveDuplicates();
        for (String name : SlowFirst.slowest()) {
            assertThat(source(name)).as(name).isRegularFile();
            Class<?> test;
            try {
                test = Class.forName(SlowFirst.PACKAGE + name);
            } catch (ClassNotFoundException e) {
                assertThat(leftOutOfThePluginBuild(name))
                        .as(name + " is missing from this build but not excluded from the plugin build")
                        .isTrue();
                continue;
            }
            assertThat(SlowFirst.rank(test)).isEqualTo(SlowFirst.slowest().indexOf(name));
        }
        assertThat(SlowFirst.rank(SlowFirstTest.class))
                .isEqualTo(SlowFirst.slowest().size());
    }

    @Test
    void thePluginBuildLeavesOutTheListedCliTestsOnly() throws Exception {
        List<String> leftOut = SlowFirst.slowest().stream()
                .filter(name -> {
                    try {
                        return leftOutOfThePluginBuild(name);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                })
                .toList();
        assertThat(leftOut)
                .contains("cli.StopSignalTest")
                .doesNotContain("engine.run.RunnerTest", "steps.DurableRunTest")
                .allMatch(name -> name.startsWith("cli."));
    }
}
