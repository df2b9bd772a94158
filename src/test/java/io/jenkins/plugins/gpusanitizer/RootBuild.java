package io.jenkins.plugins.gpusanitizer;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The source set of the plugin build (root pom.xml): src/main/java and src/test/java less the
 * maven-compiler-plugin excludes that pom names, read from it rather than repeated here. The standalone
 * build compiles this set on its own (against the Jenkins API stubs) so that code of the set that uses
 * an excluded class, such as a test importing the CLI, fails here and not first in the plugin build
 * (issue #29, 0).
 */
public final class RootBuild {
    public static final Path ROOT = Path.of(System.getProperty("gs.projectRoot", "."));

    /** Where the standalone build wants the set compiled to; unset in the plugin build, which compiles it itself. */
    public static final String DIR_PROPERTY = "gs.rootBuildDir";

    private RootBuild() {}

    /** The ant-style patterns of the root pom's compiler {@code <excludes>} ("excludes") or {@code <testExcludes>}. */
    public static List<String> compilerExcludes(String list) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        Element project;
        try (InputStream in = Files.newInputStream(ROOT.resolve("pom.xml"))) {
            project = f.newDocumentBuilder().parse(in).getDocumentElement();
        }
        List<String> patterns = new ArrayList<>();
        NodeList plugins = child(child(project, "build"), "plugins").getElementsByTagName("plugin");
        for (int i = 0; i < plugins.getLength(); i++) {
            Element plugin = (Element) plugins.item(i);
            Element configuration = child(plugin, "configuration");
            if (!"maven-compiler-plugin".equals(text(plugin, "artifactId")) || configuration == null) {
                continue;
            }
            Element excludes = child(configuration, list);
            if (excludes != null) {
                NodeList l = excludes.getChildNodes();
                for (int j = 0; j < l.getLength(); j++) {
                    if (l.item(j) instanceof Element e) {
                        patterns.add(e.getTextContent().trim());
                    }
                }
            }
        }
        return patterns;
    }

    /** An ant-style pattern (as plexus' SourceInclusionScanner reads it) as a regular expression. */
    static Pattern antPattern(String pattern) {
        String p = pattern.endsWith("/") ? pattern + "**" : pattern;
        StringBuilder regex = new StringBuilder();
        for (int i = 0; i < p.length(); i++) {
            char c = p.charAt(i);
            if (p.startsWith("**/", i)) {
                regex.append("(?:.*/)?");
                i += 2;
            } else if (p.startsWith("**", i)) {
                regex.append(".*");
                i++;
            } else if (c == '*') {
                regex.append("[^/]*");
            } else if (c == '?') {
                regex.append("[^/]");
            } else {
                regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(regex.toString());
    }

    private static List<Path> sources(Path dir, List<String> excludes) throws IOException {
        List<Pattern> patterns = excludes.stream().map(RootBuild::antPattern).toList();
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(f -> f.toString().endsWith(".java"))
                    .filter(f -> {
                        String relative = dir.relativize(f).toString().replace(File.separatorChar, '/');
                        return patterns.stream()
                                .noneMatch(p -> p.matcher(relative).matches());
                    })
                    .sorted()
                    .toList();
        }
    }

    /** The main sources the plugin build compiles. */
    public static List<Path> mainSources() throws Exception {
        return sources(ROOT.resolve("src/main/java"), compilerExcludes("excludes"));
    }

    /**
     * The test sources the plugin build compiles, less the {@code *ITest}s: they need
     * jenkins-test-harness, which only the plugin build has (the standalone build leaves them out too).
     */
    public static List<Path> testSources() throws Exception {
        List<String> excludes = new ArrayList<>(compilerExcludes("testExcludes"));
        excludes.add("**/*ITest.java");
        return sources(ROOT.resolve("src/test/java"), excludes);
    }

    /** The top-level class each source file declares. */
    public static List<String> mainClassNames(List<Path> sources) {
        Path base = ROOT.resolve("src/main/java");
        return sources.stream()
                .map(f -> base.relativize(f).toString().replace(File.separatorChar, '/'))
                .filter(f -> !f.endsWith("package-info.java"))
                .map(f -> f.substring(0, f.length() - ".java".length()).replace('/', '.'))
                .collect(Collectors.toList());
    }

    /**
     * This JVM's classpath without the standalone build's own output, which holds the excluded classes:
     * what is left is the dependencies, as in the plugin build.
     */
    public static String dependencyClasspath() {
        return Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> !e.isEmpty())
                .filter(e -> {
                    Path p = Path.of(e).normalize();
                    return !(p.endsWith("target/classes") || p.endsWith("target/test-classes"));
                })
                .collect(Collectors.joining(File.pathSeparator));
    }

    /** What a javac run printed and whether it succeeded. */
    public record Compilation(boolean ok, String messages) {}

    /** Compiles {@code sources} into {@code out} (emptied first) against {@code classpath}. */
    public static Compilation javac(List<Path> sources, String classpath, Path out) throws IOException {
        if (Files.isDirectory(out)) {
            try (Stream<Path> old = Files.walk(out)) {
                for (Path p : old.sorted((a, b) -> b.compareTo(a)).toList()) {
                    Files.delete(p);
                }
            }
        }
        Files.createDirectories(out);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        List<String> args = new ArrayList<>(List.of(
                "--release",
                "17",
                "-encoding",
                "UTF-8",
                "-proc:none",
                "-nowarn",
                "-d",
                out.toString(),
                "-cp",
                classpath));
        sources.forEach(s -> args.add(s.toString()));
        ByteArrayOutputStream messages = new ByteArrayOutputStream();
        int rc = javac.run(null, messages, messages, args.toArray(String[]::new));
        return new Compilation(rc == 0, messages.toString(StandardCharsets.UTF_8));
    }

    /** The set compiled: main (with the API stubs standing in for Jenkins) and then the tests. */
    public record Compiled(Path main, Path test, Compilation mainCompile, Compilation testCompile) {}

    private static Compiled compiled;

    /** Compiles the set once per test JVM into {@code gs.rootBuildDir}. */
    public static synchronized Compiled compiled() throws Exception {
        if (compiled == null) {
            Path dir = Path.of(System.getProperty(DIR_PROPERTY));
            List<Path> main = new ArrayList<>(mainSources());
            try (Stream<Path> stubs = Files.walk(ROOT.resolve("standalone/stubs/src"))) {
                stubs.filter(f -> f.toString().endsWith(".java")).forEach(main::add);
            }
            String classpath = dependencyClasspath();
            Compilation mainCompile = javac(main, classpath, dir.resolve("classes"));
            Compilation testCompile = javac(
                    testSources(),
                    dir.resolve("classes") + File.pathSeparator + classpath,
                    dir.resolve("test-classes"));
            compiled = new Compiled(dir.resolve("classes"), dir.resolve("test-classes"), mainCompile, testCompile);
        }
        return compiled;
    }

    private static Element child(Element e, String name) {
        for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element c && c.getTagName().equals(name)) {
                return c;
            }
        }
        return null;
    }

    private static String text(Element e, String name) {
        Element c = child(e, name);
        return c == null ? null : c.getTextContent().trim();
    }
}
