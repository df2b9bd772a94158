package io.jenkins.plugins.gpusanitizer.engine.parse.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The hand-cut {@code by thread} line reads what the pattern it replaced found, on any text. */
class ThreadLineTest {
    private static final Pattern BY_THREAD = Pattern.compile("^by thread \\(([^)]*)\\) in block \\(([^)]*)\\)");

    private static ThreadLine byPattern(String text) {
        Matcher m = BY_THREAD.matcher(text);
        if (!m.find()) {
            return null;
        }
        return new ThreadLine(
                "(" + m.group(1).replace(" ", "") + ")", "(" + m.group(2).replace(" ", "") + ")");
    }

    @Test
    void readsWhatThePatternFound() {
        assertThat(ThreadLine.parse("by thread (129,0,0) in block (2089,0,0)"))
                .isEqualTo(new ThreadLine("(129,0,0)", "(2089,0,0)"));
        assertThat(ThreadLine.parse("by thread (1, 2, 3) in block (4, 5, 6) and more"))
                .isEqualTo(new ThreadLine("(1,2,3)", "(4,5,6)"));
        String[] pieces = {"by thread (", ") in block (", ")", "(", " ", "1", ",", "x", "by", " in ", "\n", "é"};
        Random random = new Random(15);
        for (int n = 0; n < 200_000; n++) {
            StringBuilder sb = new StringBuilder();
            if (random.nextInt(4) > 0) {
                sb.append("by thread (");
            }
            for (int k = random.nextInt(8); k > 0; k--) {
                sb.append(pieces[random.nextInt(pieces.length)]);
            }
            String text = sb.toString();
            assertThat(ThreadLine.parse(text)).as(text).isEqualTo(byPattern(text));
        }
    }
}
