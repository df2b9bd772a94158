package io.jenkins.plugins.gpusanitizer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * The standalone build compiles and tests exactly the plugin build's source set (issue #29, 0): the
 * root pom's excludes applied to main and test, the API stubs standing in for Jenkins. Runs where the
 * standalone build sets {@code gs.rootBuildDir}; the plugin build compiles that set itself.
 */
@EnabledIfSystemProperty(named = RootBuild.DIR_PROPERTY, matches = ".+")
class RootBuildTest {
    @Test
    void theRootPomExcludesTheCliFromMainAndTests() throws Exception {
        assertThat(RootBuild.compilerExcludes("excludes")).containsExactly("io/jenkins/plugins/gpusanitizer/cli/**");
        assertThat(RootBuild.compilerExcludes("testExcludes"))
                .containsExactly("io/jenkins/plugins/gpusanitizer/cli/**");
        assertThat(RootBuild.mainSources())
                .isNotEmpty()
                .noneMatch(f -> f.toString().contains("/gpusanitizer/cli/"))
                .anyMatch(f -> f.endsWith("io/jenkins/plugins/gpusanitizer/steps/GpuSanitizeStep.java"));
        assertThat(RootBuild.testSources())
                .noneMatch(f -> f.toString().contains("/gpusanitizer/cli/"))
                .noneMatch(f -> f.toString().endsWith("ITest.java"))
                .anyMatch(f -> f.endsWith("io/jenkins/plugins/gpusanitizer/BuildFilesTest.java"));
    }

    @Test
    void antPatternsMatchAsMavenReadsThem() {
        assertThat(RootBuild.antPattern("a/b/**").matcher("a/b/c/D.java").matches())
                .isTrue();
        assertThat(RootBuild.antPattern("a/b/**").matcher("a/bc/D.java").matches())
                .isFalse();
        assertThat(RootBuild.antPattern("**/*ITest.java")
                        .matcher("x/y/FooITest.java")
                        .matches())
                .isTrue();
        assertThat(RootBuild.antPattern("**/*ITest.java")
                        .matcher("FooITest.java")
                        .matches())
                .isTrue();
        assertThat(RootBuild.antPattern("a/*.java").matcher("a/b/C.java").matches())
                .isFalse();
    }

    @Test
    void theRootSetCompilesOnItsOwn() throws Exception {
        RootBuild.Compiled compiled = RootBuild.compiled();
        assertThat(compiled.mainCompile().ok())
                .as(compiled.mainCompile().messages())
                .isTrue();
        assertThat(compiled.testCompile().ok())
                .as(compiled.testCompile().messages())
                .isTrue();
        assertThat(compiled.main().resolve("io/jenkins/plugins/gpusanitizer/cli"))
                .doesNotExist();
        assertThat(compiled.test().resolve("io/jenkins/plugins/gpusanitizer/BuildFilesTest.class"))
                .isRegularFile();
    }

    /** The check bites: a test of the set that imports the CLI does not compile against it. */
    @Test
    void aTestImportingTheCliDoesNotCompileInTheRootSet(@TempDir Path dir) throws Exception {
        RootBuild.Compiled compiled = RootBuild.compiled();
        Path source = dir.resolve("src/io/jenkins/plugins/gpusanitizer/engine/run/UsesCliTest.java");
        Files.createDirectories(source.getParent());
        Files.writeString(
                source,
                "package io.jenkins.plugins.gpusanitizer.engine.run;\n"
                        + "import io.jenkins.plugins.gpusanitizer.cli.GpuSanitizeCli;\n"
                        + "class UsesCliTest { Class<?> c = GpuSanitizeCli.class; }\n");
        RootBuild.Compilation c = RootBuild.javac(
                List.of(source),
                compiled.main() + File.pathSeparator + RootBuild.dependencyClasspath(),
                dir.resolve("out"));
        assertThat(c.ok()).isFalse();
        assertThat(c.messages()).contains("package io.jenkins.plugins.gpusanitizer.cli does not exist");
    }
}
