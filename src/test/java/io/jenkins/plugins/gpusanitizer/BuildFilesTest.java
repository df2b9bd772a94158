package io.jenkins.plugins.gpusanitizer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The build files the real plugin build reads and this machine cannot run (issue #12, 1): the root
 * POM packages (no {@code <description>}: maven-hpi-plugin wants index.jelly), its test dependencies
 * agree with the standalone build's, and the Jenkinsfile asks only for platforms the tests can pass on.
 * Run by CI as part of the standalone build.
 */
class BuildFilesTest {
    static final Path ROOT = Path.of(System.getProperty("gs.projectRoot", "."));

    /** The parent the root POM names; the versions below are read from its pom.xml. */
    static final String PLUGIN_POM = "6.2221.va_045130417c9";

    /**
     * What org.jenkins-ci.plugins:plugin 6.2221 manages (its junit-bom ${junit.version} and mockito-bom
     * ${mockito.version} imports): in the root POM these test dependencies carry no version.
     */
    static final Map<String, String> MANAGED_BY_PARENT = Map.of(
            "org.junit.jupiter", "6.1.3",
            "org.junit.platform", "6.1.3",
            "org.mockito", "5.23.0");

    /** Test dependencies the parent adds by itself (plugin-pom's own dependencies). */
    static final List<String> ADDED_BY_PARENT = List.of("org.junit.jupiter:junit-jupiter");

    record Dep(String groupId, String artifactId, String classifier, String version, String scope) {
        String key() {
            return groupId + ":" + artifactId + (classifier == null ? "" : ":" + classifier);
        }

        boolean jenkins() {
            return groupId.startsWith("org.jenkins-ci") || groupId.startsWith("io.jenkins");
        }
    }

    private static Element pom(Path file) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        try (InputStream in = Files.newInputStream(file)) {
            Document d = f.newDocumentBuilder().parse(in);
            return d.getDocumentElement();
        }
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

    private static Map<String, String> properties(Element project) {
        Map<String, String> p = new HashMap<>();
        Element props = child(project, "properties");
        if (props != null) {
            NodeList l = props.getChildNodes();
            for (int i = 0; i < l.getLength(); i++) {
                if (l.item(i) instanceof Element e) {
                    p.put(e.getTagName(), e.getTextContent().trim());
                }
            }
        }
        return p;
    }

    private static String resolve(String v, Map<String, String> props) {
        if (v == null) {
            return null;
        }
        Matcher m = Pattern.compile("\\$\\{([^}]+)}").matcher(v);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(b, Matcher.quoteReplacement(props.getOrDefault(m.group(1), m.group())));
        }
        m.appendTail(b);
        return b.toString();
    }

    /** The project's own dependencies (not its dependencyManagement), by groupId:artifactId[:classifier]. */
    static Map<String, Dep> dependencies(Path file) throws Exception {
        Element project = pom(file);
        Map<String, String> props = properties(project);
        Map<String, Dep> deps = new TreeMap<>();
        NodeList l = child(project, "dependencies").getElementsByTagName("dependency");
        for (int i = 0; i < l.getLength(); i++) {
            Element d = (Element) l.item(i);
            Dep dep = new Dep(
                    text(d, "groupId"),
                    text(d, "artifactId"),
                    text(d, "classifier"),
                    resolve(text(d, "version"), props),
                    text(d, "scope") == null ? "compile" : text(d, "scope"));
            deps.put(dep.key(), dep);
        }
        return deps;
    }

    @Test
    void theRootPomPackages() throws Exception {
        Element root = pom(ROOT.resolve("pom.xml"));
        assertThat(text(root, "packaging")).isEqualTo("hpi");
        assertThat(child(root, "description"))
                .as("maven-hpi-plugin (HpiMojo) takes the description from src/main/resources/index.jelly")
                .isNull();
        assertThat(ROOT.resolve("src/main/resources/index.jelly")).isRegularFile();
        Element parent = child(root, "parent");
        assertThat(text(parent, "artifactId")).isEqualTo("plugin");
        assertThat(text(parent, "version"))
                .as("MANAGED_BY_PARENT holds the versions of this parent: update both")
                .isEqualTo(PLUGIN_POM);
    }

    @Test
    void testDependenciesAgreeBetweenTheRootAndTheStandaloneBuild() throws Exception {
        Map<String, Dep> root = dependencies(ROOT.resolve("pom.xml"));
        Map<String, Dep> standalone = dependencies(ROOT.resolve("standalone/pom.xml"));
        List<String> problems = new ArrayList<>();
        for (Dep s : standalone.values()) {
            if (!s.scope().equals("test") || ADDED_BY_PARENT.contains(s.key())) {
                continue;
            }
            Dep r = root.get(s.key());
            if (r == null || !r.scope().equals("test")) {
                problems.add(s.key() + ": a test dependency of standalone/pom.xml, missing from pom.xml's tests");
                continue;
            }
            String managed = MANAGED_BY_PARENT.get(s.groupId());
            if (managed != null) {
                if (r.version() != null) {
                    problems.add(s.key() + ": managed by the parent, pom.xml must not give a version");
                }
                if (!managed.equals(s.version())) {
                    problems.add(s.key() + ": standalone " + s.version() + ", the parent manages " + managed);
                }
            } else if (!s.version().equals(r.version())) {
                problems.add(s.key() + ": standalone " + s.version() + ", pom.xml " + r.version());
            }
        }
        for (Dep r : root.values()) {
            if (r.jenkins()) {
                if (r.version() != null) {
                    problems.add(r.key() + ": a Jenkins artifact, its version comes from the BOM");
                }
            } else if (r.scope().equals("test") && !standalone.containsKey(r.key())) {
                problems.add(r.key() + ": a test dependency of pom.xml, missing from standalone/pom.xml");
            } else if (r.version() == null && !MANAGED_BY_PARENT.containsKey(r.groupId())) {
                problems.add(r.key() + ": no version, but neither the parent nor the BOM manages it");
            }
        }
        assertThat(problems).isEmpty();
        Map<String, String> props = properties(pom(ROOT.resolve("standalone/pom.xml")));
        assertThat(props.get("junit.version")).isEqualTo(MANAGED_BY_PARENT.get("org.junit.jupiter"));
        assertThat(props.get("mockito.version")).isEqualTo(MANAGED_BY_PARENT.get("org.mockito"));
    }

    /** The BOM the root POM imports; the managed list recorded from it is bom-6916-managed.txt. */
    static final String BOM = "6916.v15ec97679743";

    /** groupId:artifactId[:classifier] lines of a recorded managed list (test resource; # comments). */
    private static List<String> managedList(String resource) throws Exception {
        try (InputStream in = BuildFilesTest.class.getResourceAsStream(resource)) {
            assertThat(in).as(resource).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .lines()
                    .map(String::trim)
                    .filter(l -> !l.isEmpty() && !l.startsWith("#"))
                    .toList();
        }
    }

    /**
     * A dependency without a version resolves only if the BOM or the parent manages exactly that
     * groupId:artifactId: a wrong groupId (io.jenkins.plugins:jackson2-api, issue #29) fails here and not
     * first on a machine that can reach repo.jenkins-ci.org.
     */
    @Test
    void everyDependencyWithoutAVersionIsManagedByTheBomOrTheParent() throws Exception {
        Element root = pom(ROOT.resolve("pom.xml"));
        Element bom = (Element) child(child(root, "dependencyManagement"), "dependencies")
                .getElementsByTagName("dependency")
                .item(0);
        assertThat(text(bom, "version"))
                .as("bom-6916-managed.txt is that BOM's list: regenerate it with the version")
                .isEqualTo(BOM);
        assertThat(text(child(root, "parent"), "version"))
                .as("plugin-pom-6.2221-managed.txt is that parent's list")
                .isEqualTo(PLUGIN_POM);
        List<String> managed = new ArrayList<>(managedList("/jenkins/bom-6916-managed.txt"));
        managed.addAll(managedList("/jenkins/plugin-pom-6.2221-managed.txt"));
        assertThat(managed).contains("org.jenkins-ci.plugins:jackson2-api", "org.mockito:mockito-core");
        List<String> unmanaged = dependencies(ROOT.resolve("pom.xml")).values().stream()
                .filter(d -> d.version() == null)
                .map(Dep::key)
                .filter(key -> !managed.contains(key))
                .toList();
        assertThat(unmanaged)
                .as("dependencies of pom.xml without a version that nothing manages")
                .isEmpty();
    }

    /**
     * maven-hpi-plugin (AbstractHpiMojo, strictBundledArtifacts) fails the build unless
     * {@code hpi.bundledArtifacts} lists exactly the artifactIds it puts in WEB-INF/lib: the root pom's
     * compile and runtime dependencies that are not Jenkins plugins (nor core), with their own compile and
     * runtime dependencies, less exclusions. Computed here from the poms in the local repository (the
     * standalone build resolved the same libraries) and the recorded managed lists.
     */
    @Test
    void hpiBundledArtifactsListsTheJarsTheHpiWouldBundle() throws Exception {
        Element root = pom(ROOT.resolve("pom.xml"));
        assertThat(properties(root).get("hpi.strictBundledArtifacts")).isEqualTo("true");
        // unset is the empty list (AbstractHpiMojo's List parameter; maven-hpi-plugin PR #771)
        Set<String> declared = new TreeSet<>();
        for (String a :
                properties(root).getOrDefault("hpi.bundledArtifacts", "").split(",")) {
            if (!a.isBlank()) {
                declared.add(a.trim());
            }
        }
        Set<String> plugins = new HashSet<>(managedList("/jenkins/bom-6916-managed.txt"));
        plugins.addAll(managedList("/jenkins/plugin-pom-6.2221-managed.txt"));
        Set<String> bundled = new TreeSet<>();
        NodeList l = child(root, "dependencies").getElementsByTagName("dependency");
        for (int i = 0; i < l.getLength(); i++) {
            Element d = (Element) l.item(i);
            String scope = text(d, "scope") == null ? "compile" : text(d, "scope");
            String key = text(d, "groupId") + ":" + text(d, "artifactId");
            if (!List.of("compile", "runtime").contains(scope) || plugins.contains(key)) {
                continue;
            }
            assertThat(text(d, "version"))
                    .as(key + ": not managed, so it needs a version")
                    .isNotNull();
            Set<String> excluded = new HashSet<>();
            Element exclusions = child(d, "exclusions");
            if (exclusions != null) {
                NodeList x = exclusions.getElementsByTagName("exclusion");
                for (int j = 0; j < x.getLength(); j++) {
                    excluded.add(text((Element) x.item(j), "groupId") + ":" + text((Element) x.item(j), "artifactId"));
                }
            }
            bundle(text(d, "groupId"), text(d, "artifactId"), text(d, "version"), excluded, plugins, bundled);
        }
        assertThat(declared)
                .as("hpi.bundledArtifacts in pom.xml against what the .hpi would bundle")
                .isEqualTo(bundled.stream()
                        .map(k -> k.substring(k.indexOf(':') + 1))
                        .collect(toTreeSet()));
    }

    private static java.util.stream.Collector<String, ?, TreeSet<String>> toTreeSet() {
        return java.util.stream.Collectors.toCollection(TreeSet::new);
    }

    /** Adds an artifact and its compile/runtime dependencies (read from its pom) to {@code bundled}. */
    private static void bundle(
            String groupId,
            String artifactId,
            String version,
            Set<String> excluded,
            Set<String> plugins,
            Set<String> bundled)
            throws Exception {
        String key = groupId + ":" + artifactId;
        if (excluded.contains(key) || plugins.contains(key) || !bundled.add(key)) {
            return;
        }
        Path repo =
                Path.of(System.getProperty("gs.localRepository", System.getProperty("user.home") + "/.m2/repository"));
        Path file = repo.resolve(groupId.replace('.', '/') + "/" + artifactId + "/" + version + "/" + artifactId + "-"
                + version + ".pom");
        assertThat(file)
                .as("the pom of a bundled library (resolve it with the standalone build)")
                .isRegularFile();
        Element project = pom(file);
        Map<String, String> props = properties(project);
        props.put("project.version", version);
        Element deps = child(project, "dependencies");
        if (deps == null) {
            return;
        }
        NodeList l = deps.getElementsByTagName("dependency");
        for (int i = 0; i < l.getLength(); i++) {
            Element d = (Element) l.item(i);
            String scope = text(d, "scope") == null ? "compile" : text(d, "scope");
            if (!List.of("compile", "runtime").contains(scope) || "true".equals(text(d, "optional"))) {
                continue;
            }
            String v = resolve(text(d, "version"), props);
            assertThat(v)
                    .as(key + " depends on " + text(d, "artifactId") + " without a version")
                    .isNotNull();
            bundle(text(d, "groupId"), text(d, "artifactId"), v, excluded, plugins, bundled);
        }
    }

    /** The files the jenkinsci hosting review asks for (archetypes common-files, RequiredFilesVerifier). */
    @Test
    void theHostingFilesArePresent() throws Exception {
        Element root = pom(ROOT.resolve("pom.xml"));
        Element license = child(child(root, "licenses"), "license");
        assertThat(text(license, "name")).isEqualTo("MIT License");
        assertThat(Files.readString(ROOT.resolve("LICENSE.md"), StandardCharsets.UTF_8))
                .startsWith("The MIT License");
        assertThat(Files.readString(ROOT.resolve(".github/CODEOWNERS"), StandardCharsets.UTF_8)
                        .trim())
                .isEqualTo("* @jenkinsci/" + text(root, "artifactId") + "-plugin-developers");
        assertThat(ROOT.resolve(".github/workflows/jenkins-security-scan.yml")).isRegularFile();
        assertThat(ROOT.resolve(".github/workflows/cd.yaml")).isRegularFile();
        assertThat(ROOT.resolve(".github/renovate.json")).isRegularFile();
        assertThat(Files.readString(ROOT.resolve(".mvn/extensions.xml"), StandardCharsets.UTF_8))
                .contains("<artifactId>git-changelist-maven-extension</artifactId>");
        assertThat(Files.readAllLines(ROOT.resolve(".mvn/maven.config"), StandardCharsets.UTF_8))
                .contains("-Pconsume-incrementals", "-Pmight-produce-incrementals", "-Dchangelist.format=%d.v%s");
        assertThat(text(root, "version")).isEqualTo("${changelist}");
        // mvn -f standalone/pom.xml looks for .mvn from standalone/ upwards: this one keeps it off the root's
        assertThat(ROOT.resolve("standalone/.mvn")).isDirectory();
    }

    /**
     * bin/demo reads its inputs as plain files of corpus/h200 (c=...): each must stay out of the packed corpus
     * (corpus/h200.zip.xz), else the demo fails on a fresh clone (issue #27: its memory curve went into the archive
     * once).
     */
    @Test
    void theDemosInputsAreFilesOfTheClone() throws Exception {
        String demo = Files.readString(ROOT.resolve("bin/demo"));
        Matcher c = Pattern.compile("(?m)^c=(\\S+)$").matcher(demo);
        assertThat(c.find()).as("bin/demo names its corpus folder as c=...").isTrue();
        Matcher input = Pattern.compile("\"\\$c/([^\"]+)\"").matcher(demo);
        List<String> inputs = new ArrayList<>();
        while (input.find()) {
            inputs.add(input.group(1));
        }
        assertThat(inputs).hasSizeGreaterThanOrEqualTo(5);
        for (String f : inputs) {
            assertThat(ROOT.resolve(c.group(1)).resolve(f))
                    .as("bin/demo's input")
                    .isRegularFile();
        }
    }

    @Test
    void theJenkinsfileAsksOnlyForLinux() throws Exception {
        String jenkinsfile = Files.readString(ROOT.resolve("Jenkinsfile"), StandardCharsets.UTF_8);
        assertThat(jenkinsfile).contains("buildPlugin(").doesNotContainIgnoringCase("windows");
        Matcher platforms = Pattern.compile("platform:\\s*'([^']+)'").matcher(jenkinsfile);
        List<String> found = new ArrayList<>();
        while (platforms.find()) {
            found.add(platforms.group(1));
        }
        assertThat(found).isNotEmpty().containsOnly("linux");
    }

    /**
     * The standalone build's second SpotBugs execution reads the Jenkins layer from target/test-classes and
     * leaves out its unit tests by name (standalone/spotbugs-jenkins-layer-exclude.xml: {@code *Test} and the
     * test helpers it names): so every test source there is a *Test or a helper the filter names, and no main
     * class is either (it would go unanalysed).
     */
    @Test
    void theSpotBugsFilterTellsTheJenkinsLayerFromItsTests() throws Exception {
        String filter =
                Files.readString(ROOT.resolve("standalone/spotbugs-jenkins-layer-exclude.xml"), StandardCharsets.UTF_8);
        Matcher named =
                Pattern.compile("\\(([A-Za-z|]+)\\)\\(\\\\\\$\\.\\*\\)\\?\" />").matcher(filter);
        List<String> helpers = new ArrayList<>();
        while (named.find()) {
            helpers.addAll(List.of(named.group(1).split("\\|")));
        }
        helpers.removeAll(List.of("steps", "results"));
        for (String layer : List.of("steps", "results")) {
            String pkg = "io/jenkins/plugins/gpusanitizer/" + layer;
            assertThat(javaFiles(ROOT.resolve("src/test/java").resolve(pkg)))
                    .isNotEmpty()
                    .allMatch(
                            name -> name.endsWith("Test.java") || helpers.contains(name.replace(".java", "")),
                            "a unit test's name, or a test helper the filter names");
            assertThat(javaFiles(ROOT.resolve("src/main/java").resolve(pkg)))
                    .noneMatch(name -> helpers.contains(name.replace(".java", "")));
            assertThat(javaFiles(ROOT.resolve("src/main/java").resolve(pkg)))
                    .isNotEmpty()
                    .noneMatch(name -> name.endsWith("Test.java"));
        }
        assertThat(Files.readString(
                        ROOT.resolve("standalone/spotbugs-jenkins-layer-exclude.xml"), StandardCharsets.UTF_8))
                .contains(
                        "<Class name=\"~io\\.jenkins\\.plugins\\.gpusanitizer\\.(steps|results)\\..*Test(\\$.*)?\" />");
    }

    private static List<String> javaFiles(Path dir) throws Exception {
        try (var walk = Files.walk(dir)) {
            return walk.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(".java"))
                    .toList();
        }
    }
}
