package io.jenkins.plugins.gpusanitizer;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.steps.GpuSanitizeStep;
import io.jenkins.plugins.gpusanitizer.steps.SanitizerTool;
import io.jenkins.plugins.gpusanitizer.steps.Suppression;
import io.jenkins.plugins.gpusanitizer.testing.StepForm;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.MessageFormat;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.kohsuke.stapler.DataBoundSetter;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NamedNodeMap;
import org.w3c.dom.NodeList;

/**
 * The static rules of the real build's InjectedTest, checked here with the JDK's XML parser: every
 * Jelly file escapes by default, no inline script or event attribute (Jenkins' CSP), properties files
 * decode and have no duplicate keys; and the Snippet Generator form covers every step parameter,
 * each with a help file.
 */
class JellyViewsTest {
    static final Path RES =
            Path.of(System.getProperty("gs.projectRoot", "."), "src/main/resources/io/jenkins/plugins/gpusanitizer");

    private static List<Path> files(String glob) throws IOException {
        try (Stream<Path> s = Files.walk(RES)) {
            return s.filter(p -> p.getFileName().toString().matches(glob))
                    .sorted()
                    .toList();
        }
    }

    @Test
    void everyJellyFileEscapesByDefaultAndHasNoInlineScript() throws Exception {
        List<Path> jelly = files(".*\\.jelly");
        assertThat(jelly).hasSizeGreaterThanOrEqualTo(4);
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        for (Path p : jelly) {
            String text = Files.readString(p, StandardCharsets.UTF_8);
            assertThat(text).as(p.toString()).startsWith("<?jelly escape-by-default='true'?>");
            Document d;
            try (InputStream in = Files.newInputStream(p)) {
                d = f.newDocumentBuilder().parse(in);
            }
            NodeList all = d.getElementsByTagName("*");
            for (int i = 0; i < all.getLength(); i++) {
                Element e = (Element) all.item(i);
                if (e.getLocalName().equals("script")) {
                    assertThat(e.hasAttribute("src") || "application/json".equals(e.getAttribute("type")))
                            .as(p + ": inline <script>")
                            .isTrue();
                }
                NamedNodeMap attrs = e.getAttributes();
                for (int j = 0; j < attrs.getLength(); j++) {
                    String name = attrs.item(j).getNodeName();
                    assertThat(name.toLowerCase().startsWith("on"))
                            .as(p + ": event attribute " + name)
                            .isFalse();
                    assertThat(attrs.item(j).getNodeValue().trim().toLowerCase())
                            .as(p + ": javascript: URL")
                            .doesNotStartWith("javascript:");
                }
                if (e.hasAttribute("checkUrl")) {
                    assertThat(e.hasAttribute("checkDependsOn"))
                            .as(p + ": checkUrl without checkDependsOn")
                            .isTrue();
                }
            }
        }
    }

    @Test
    void propertiesFilesDecodeAndHaveNoDuplicateKeys() throws IOException {
        for (Path p : files(".*\\.properties")) {
            byte[] bytes = Files.readAllBytes(p);
            try {
                StandardCharsets.UTF_8
                        .newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .decode(java.nio.ByteBuffer.wrap(bytes));
            } catch (CharacterCodingException e) {
                // ISO-8859-1 decodes anything: acceptable as the other allowed encoding
            }
            Set<String> keys = new HashSet<>();
            for (String line : new String(bytes, StandardCharsets.ISO_8859_1).split("\n")) {
                if (line.isBlank() || line.startsWith("#") || line.startsWith("!")) {
                    continue;
                }
                String key = line.split("(?<!\\\\)[=:]", 2)[0].trim();
                assertThat(keys.add(key)).as(p + ": duplicate key " + key).isTrue();
            }
        }
    }

    /**
     * The parameters of a describable: its {@code @DataBoundConstructor}'s and its {@code
     * @DataBoundSetter}s, the deprecated ones (kept for old snippets, not in the form) apart.
     */
    private static Set<String> parameters(Class<?> type, boolean deprecated) {
        Set<String> parameters = new TreeSet<>();
        for (Method method : type.getMethods()) {
            if (method.isAnnotationPresent(DataBoundSetter.class)
                    && method.isAnnotationPresent(Deprecated.class) == deprecated) {
                String n = method.getName().substring(3);
                parameters.add(Character.toLowerCase(n.charAt(0)) + n.substring(1));
            }
        }
        return parameters;
    }

    private static Set<String> formFields(String config) throws IOException {
        Matcher m = Pattern.compile("field=\"(\\w+)\"")
                .matcher(Files.readString(RES.resolve(config), StandardCharsets.UTF_8));
        Set<String> fields = new TreeSet<>();
        while (m.find()) {
            fields.add(m.group(1));
        }
        return fields;
    }

    @Test
    void theFormCoversEveryParameterAndEachHasHelp() throws IOException {
        Set<String> fields = formFields("steps/GpuSanitizeStep/config.jelly");
        Set<String> parameters = parameters(GpuSanitizeStep.class, false);
        parameters.add("command");
        assertThat(fields).isEqualTo(parameters);
        // the deprecated string forms stay out of the form, documented beside their list forms
        assertThat(parameters(GpuSanitizeStep.class, true)).containsExactly("suppressions", "toolActions", "tools");
        List<String> missingHelp = new ArrayList<>();
        for (String field : fields) {
            if (!Files.isRegularFile(RES.resolve("steps/GpuSanitizeStep/help-" + field + ".html"))) {
                missingHelp.add(field);
            }
        }
        for (String field : parameters(GpuSanitizeStep.class, true)) {
            if (!Files.isRegularFile(RES.resolve("steps/GpuSanitizeStep/help-" + field + ".html"))) {
                missingHelp.add(field);
            }
        }
        assertThat(missingHelp).isEmpty();
        assertThat(RES.resolve("steps/GpuSanitizeStep/help.html")).isRegularFile();
        assertThat(Arrays.stream(GpuSanitizeStep.class.getConstructors())
                        .anyMatch(c -> c.isAnnotationPresent(org.kohsuke.stapler.DataBoundConstructor.class)
                                && c.getParameterCount() == 1))
                .isTrue();
    }

    /** #16: each option describable has its own form, one field per parameter, each with help. */
    @Test
    void theOptionFormsCoverTheirParameters() throws IOException {
        Map<Class<?>, Set<String>> expected = Map.of(
                SanitizerTool.class, Set.of("tool", "action"),
                Suppression.class, Set.of("id", "tool", "kind", "kernel", "message", "frame", "reason"));
        for (Map.Entry<Class<?>, Set<String>> option : expected.entrySet()) {
            String folder = "steps/" + option.getKey().getSimpleName() + "/";
            Set<String> parameters = parameters(option.getKey(), false);
            if (option.getKey() == SanitizerTool.class) {
                parameters.add("tool"); // the constructor's
            }
            assertThat(parameters).as(folder).isEqualTo(option.getValue());
            assertThat(formFields(folder + "config.jelly")).as(folder).isEqualTo(option.getValue());
            for (String field : option.getValue()) {
                assertThat(RES.resolve(folder + "help-" + field + ".html")).isRegularFile();
            }
        }
    }

    /** The widgets of config.jelly by field: element (f:number, f:checkbox, ...) inside its f:entry. */
    private static Map<String, Element> widgets() throws Exception {
        return new TreeMap<>(StepForm.widgets());
    }

    private static Method setter(String field) {
        String name = "set" + Character.toUpperCase(field.charAt(0)) + field.substring(1);
        return Arrays.stream(GpuSanitizeStep.class.getMethods())
                .filter(m -> m.getName().equals(name) && m.isAnnotationPresent(DataBoundSetter.class))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no @DataBoundSetter for " + field));
    }

    private static Object getter(Object step, String field) throws Exception {
        String cap = Character.toUpperCase(field.charAt(0)) + field.substring(1);
        for (String prefix : List.of("get", "is")) {
            try {
                return step.getClass().getMethod(prefix + cap).invoke(step);
            } catch (NoSuchMethodException e) {
                // try the other prefix
            }
        }
        throw new AssertionError("no getter for " + field);
    }

    /**
     * What Stapler binds from an untouched field of the Snippet Generator's form (rendered with no
     * instance): the widget's default= (f:number's and f:textbox's '' and f:checkbox's unchecked
     * without one), converted to the setter's type as the form submission is.
     */
    private static Object untouched(Element widget, Class<?> type) {
        Object submitted = StepForm.untouched(widget);
        if (submitted == null) {
            return List.of(); // no item added
        }
        if (submitted instanceof Boolean) {
            return submitted;
        }
        String v = (String) submitted;
        if (type == int.class) {
            return v.isEmpty() ? 0 : Integer.parseInt(v);
        }
        if (type == double.class) {
            return v.isEmpty() ? 0.0 : Double.parseDouble(v);
        }
        if (type == Double.class) {
            return v.isEmpty() ? null : Double.valueOf(v);
        }
        return v;
    }

    /**
     * Issue #12, 4: the Snippet Generator renders config.jelly with no instance, so an untouched form
     * must bind to the step's defaults: then the generated snippet names no parameter but the command
     * (it carried printLimit: 0, timeouts of 0, regressionMultiple: 0.0, tools: '' and
     * defaultSuppressions: false).
     */
    @Test
    void theUntouchedSnippetGeneratorFormBindsToTheDefaults() throws Exception {
        GpuSanitizeStep fresh = new GpuSanitizeStep("python3 train.py");
        GpuSanitizeStep bound = new GpuSanitizeStep("python3 train.py");
        List<String> differ = new ArrayList<>();
        for (Map.Entry<String, Element> w : widgets().entrySet()) {
            String field = w.getKey();
            if (field.equals("command")) {
                continue;
            }
            Method set = setter(field);
            set.invoke(bound, untouched(w.getValue(), set.getParameterTypes()[0]));
            if (!java.util.Objects.equals(getter(bound, field), getter(fresh, field))) {
                differ.add(field + "=" + getter(bound, field) + " (default " + getter(fresh, field) + ")");
            }
        }
        assertThat(differ).isEmpty();
    }

    /** Every number and checkbox repeats its parameter's default; decimal fields take step="any". */
    @Test
    void numbersAndCheckboxesCarryTheDefaultsAndDecimalsAcceptDecimals() throws Exception {
        GpuSanitizeStep fresh = new GpuSanitizeStep("python3 train.py");
        for (Map.Entry<String, Element> w : widgets().entrySet()) {
            Element e = w.getValue();
            String field = w.getKey();
            Object dflt = field.equals("command") ? null : getter(fresh, field);
            switch (e.getLocalName()) {
                case "number" -> {
                    Class<?> type = setter(field).getParameterTypes()[0];
                    if (dflt == null) {
                        assertThat(e.hasAttribute("default")).as(field).isFalse();
                    } else {
                        assertThat(Double.parseDouble(e.getAttribute("default")))
                                .as(field)
                                .isEqualTo(((Number) dflt).doubleValue());
                    }
                    boolean decimal = type == double.class || type == Double.class;
                    assertThat(e.getAttribute("step")).as(field).isEqualTo(decimal ? "any" : "");
                }
                case "checkbox" ->
                    assertThat(e.hasAttribute("default")
                                    && e.getAttribute("default").equals("true"))
                            .as(field)
                            .isEqualTo(dflt);
                case "repeatableProperty" -> assertThat(dflt).as(field).isNull();
                case "textbox", "textarea" -> {
                    if (dflt == null) {
                        assertThat(e.hasAttribute("default")).as(field).isFalse();
                    } else {
                        assertThat(e.getAttribute("default")).as(field).isEqualTo(dflt);
                    }
                }
                default -> throw new AssertionError(field + ": unexpected widget " + e.getLocalName());
            }
        }
    }

    /**
     * Stapler formats every ${%...} text found in a view's properties with MessageFormat (and
     * localizer does the same for Messages.properties): a single apostrophe starts a quote and vanishes.
     * So a literal apostrophe must be doubled; and every ${%...} key of a view has its entry.
     */
    @Test
    void localizedTextsKeepTheirApostrophesAndExist() throws Exception {
        Pattern key = Pattern.compile("\\$\\{%([^(}]+)[(}]");
        for (Path jelly : files(".*\\.jelly")) {
            if (jelly.getFileName().toString().equals("index.jelly")
                    && jelly.getParent().equals(RES.getParent())) {
                continue;
            }
            Path props = jelly.resolveSibling(jelly.getFileName().toString().replace(".jelly", ".properties"));
            Properties p = new Properties();
            if (Files.isRegularFile(props)) {
                try (InputStream in = Files.newInputStream(props)) {
                    p.load(in);
                }
            }
            Matcher m = key.matcher(Files.readString(jelly, StandardCharsets.UTF_8));
            while (m.find()) {
                String k = m.group(1);
                assertThat(p.getProperty(k))
                        .as(jelly + ": no entry for ${%" + k + "}")
                        .isNotNull();
                String formatted = new MessageFormat(p.getProperty(k)).format(new Object[] {"0", "1", "2"});
                if (k.contains(" ") || k.contains("'")) { // the key is the English text itself
                    assertThat(formatted)
                            .as(jelly + ": ${%" + k + "} as Stapler shows it")
                            .isEqualTo(k);
                }
            }
        }
        for (Path props : files(".*\\.properties")) {
            Properties p = new Properties();
            try (InputStream in = Files.newInputStream(props)) {
                p.load(in);
            }
            for (String k : p.stringPropertyNames()) {
                assertThat(p.getProperty(k).replace("''", ""))
                        .as(props + ": " + k + " has a single apostrophe (MessageFormat drops it; write '')")
                        .doesNotContain("'");
            }
        }
    }

    /** maven-hpi-plugin's HpiMojo refuses to package without it: the plugin's description. */
    @Test
    void thePluginDescriptionIsIndexJelly() throws IOException {
        Path index = RES.getParent().getParent().getParent().getParent().resolve("index.jelly");
        assertThat(index).isRegularFile();
        assertThat(Files.readString(index, StandardCharsets.UTF_8))
                .startsWith("<?jelly escape-by-default='true'?>\n<div>")
                .contains("compute-sanitizer");
    }
}
