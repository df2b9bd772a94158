package io.jenkins.plugins.gpusanitizer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
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

    @Test
    void theFormCoversEveryParameterAndEachHasHelp() throws IOException {
        String config = Files.readString(RES.resolve("GpuSanitizeStep/config.jelly"), StandardCharsets.UTF_8);
        Matcher m = Pattern.compile("field=\"(\\w+)\"").matcher(config);
        Set<String> fields = new TreeSet<>();
        while (m.find()) {
            fields.add(m.group(1));
        }
        Set<String> parameters = new TreeSet<>();
        parameters.add("command");
        for (Method method : GpuSanitizeStep.class.getMethods()) {
            if (method.isAnnotationPresent(DataBoundSetter.class)) {
                String n = method.getName().substring(3);
                parameters.add(Character.toLowerCase(n.charAt(0)) + n.substring(1));
            }
        }
        assertThat(fields).isEqualTo(parameters);
        List<String> missingHelp = new ArrayList<>();
        for (String field : fields) {
            if (!Files.isRegularFile(RES.resolve("GpuSanitizeStep/help-" + field + ".html"))) {
                missingHelp.add(field);
            }
        }
        assertThat(missingHelp).isEmpty();
        assertThat(RES.resolve("GpuSanitizeStep/help.html")).isRegularFile();
        assertThat(Arrays.stream(GpuSanitizeStep.class.getConstructors())
                        .anyMatch(c -> c.isAnnotationPresent(org.kohsuke.stapler.DataBoundConstructor.class)
                                && c.getParameterCount() == 1))
                .isTrue();
    }
}
