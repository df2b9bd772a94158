package io.jenkins.plugins.gpusanitizer.steps;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.Reader;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The compile-only Messages stand-in has exactly the methods localizer generates from Messages.properties. */
class MessagesStubTest {
    @Test
    void oneMethodPerKeyWithOneParameterPerPlaceholder() throws IOException {
        Path file = Path.of(
                System.getProperty("gs.projectRoot", "."),
                "src/main/resources/io/jenkins/plugins/gpusanitizer/steps/Messages.properties");
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.ISO_8859_1)) {
            p.load(r);
        }
        Map<String, Integer> expected = new TreeMap<>();
        Pattern placeholder = Pattern.compile("\\{(\\d+)}");
        for (String key : p.stringPropertyNames()) {
            Matcher m = placeholder.matcher(p.getProperty(key));
            int args = 0;
            while (m.find()) {
                args = Math.max(args, Integer.parseInt(m.group(1)) + 1);
            }
            expected.put(key.replace('.', '_'), args);
        }
        Map<String, Integer> actual = Arrays.stream(Messages.class.getDeclaredMethods())
                .filter(m -> Modifier.isStatic(m.getModifiers())
                        && Modifier.isPublic(m.getModifiers())
                        && !m.getName().startsWith("_"))
                .collect(Collectors.toMap(Method::getName, Method::getParameterCount, (a, b) -> a, TreeMap::new));
        assertThat(actual).isEqualTo(expected);
    }
}
