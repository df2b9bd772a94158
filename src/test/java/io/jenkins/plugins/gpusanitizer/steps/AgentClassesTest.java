package io.jenkins.plugins.gpusanitizer.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue #41, 6: what a run's thread needs after its channel closed is loaded before the run starts. A class loader
 * closed after the preload stands for the agent's class loader of a closed remoting channel: it still answers
 * with what it loaded and cannot load anything new. The run's end (the report read and rendered, report.css) then
 * still works; without the preload it fails as the agent did.
 */
class AgentClassesTest {
    private static final String RUN_REPORT = "io.jenkins.plugins.gpusanitizer.engine.run.RunReport";

    /** A loader of the engine and its libraries only (not this JVM's copy of them), closed at will. */
    private static URLClassLoader engineLoader() throws Exception {
        List<URL> urls = new java.util.ArrayList<>();
        for (Class<?> code : AgentClasses.CODE) {
            URL url = code.getProtectionDomain().getCodeSource().getLocation();
            if (!urls.contains(url)) {
                urls.add(url);
            }
        }
        return new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
    }

    @Test
    void theControllerListsTheEngineItsLibrariesAndTheAgentSide() {
        List<String> names = AgentClasses.names();
        assertThat(names)
                .contains(
                        RUN_REPORT,
                        "io.jenkins.plugins.gpusanitizer.engine.run.Runner",
                        "io.jenkins.plugins.gpusanitizer.engine.report.ReportJson",
                        "io.jenkins.plugins.gpusanitizer.engine.report.HtmlReport",
                        "io.jenkins.plugins.gpusanitizer.engine.model.BundledResources",
                        "com.fasterxml.jackson.databind.ObjectMapper",
                        "com.fasterxml.jackson.databind.ser.BeanSerializer",
                        "com.ctc.wstx.stax.WstxInputFactory",
                        AgentRun.class.getName(),
                        AgentProgress.class.getName(),
                        io.jenkins.plugins.gpusanitizer.results.Summaries.class.getName())
                .noneMatch(name -> name.startsWith("io.jenkins.plugins.gpusanitizer.cli."))
                .noneMatch(name -> name.contains("module-info") || name.startsWith("META-INF"));
    }

    @Test
    void afterThePreloadTheRunsEndNeedsNoOpenChannel() throws Exception {
        Path report = Records.unpacked("h200-2026-12-02/far").resolve("report.json");
        try (URLClassLoader agent = engineLoader()) {
            int loaded = AgentClasses.load(AgentClasses.names(), agent);
            assertThat(loaded).isGreaterThan(1000);
            agent.loadClass("io.jenkins.plugins.gpusanitizer.engine.run.Runner")
                    .getMethod("preloadResources")
                    .invoke(null);
            agent.close(); // the channel closed: nothing new can be loaded

            assertThat(Class.forName(RUN_REPORT, true, agent).getClassLoader()).isSameAs(agent);
            String page = endOfRun(agent, report);
            assertThat(page).contains("fused_scale", "<link rel=\"stylesheet\"");
            Method css = agent.loadClass("io.jenkins.plugins.gpusanitizer.engine.report.HtmlReport")
                    .getMethod("css");
            assertThat((String) css.invoke(null)).contains(".gs-report");
        }
    }

    @Test
    void withoutThePreloadTheRunsEndFailsAsOnTheAgent() throws Exception {
        try (URLClassLoader agent = engineLoader()) {
            agent.loadClass("io.jenkins.plugins.gpusanitizer.engine.run.Runner");
            agent.close();
            assertThatThrownBy(() -> Class.forName(RUN_REPORT, false, agent))
                    .isInstanceOf(ClassNotFoundException.class);
        }
    }

    /** What the run's end does: the report read back and rendered as a page (JSON, HTML, report.css). */
    private static String endOfRun(ClassLoader agent, Path report) throws Exception {
        Class<?> json = agent.loadClass("io.jenkins.plugins.gpusanitizer.engine.report.ReportJson");
        Object read = json.getMethod("read", Path.class).invoke(null, report);
        Class<?> html = agent.loadClass("io.jenkins.plugins.gpusanitizer.engine.report.HtmlReport");
        Object renderer = html.getConstructor().newInstance();
        Class<?> reportType = agent.loadClass("io.jenkins.plugins.gpusanitizer.engine.report.Report");
        String written = (String) json.getMethod("toJson", reportType).invoke(null, read);
        assertThat(written).contains("fused_scale");
        return (String) html.getMethod("page", reportType).invoke(renderer, read);
    }
}
