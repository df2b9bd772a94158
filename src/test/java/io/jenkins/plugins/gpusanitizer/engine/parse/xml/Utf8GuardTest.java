package io.jenkins.plugins.gpusanitizer.engine.parse.xml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.CharConversionException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class Utf8GuardTest {
    private static byte[] bytes(String s, int... tail) {
        byte[] head = s.getBytes(StandardCharsets.UTF_8);
        byte[] all = new byte[head.length + tail.length];
        System.arraycopy(head, 0, all, 0, head.length);
        for (int i = 0; i < tail.length; i++) {
            all[head.length + i] = (byte) tail[i];
        }
        return all;
    }

    /** Reads {@code in} a few bytes at a time (sequences split across reads), up to the failure. */
    private static byte[] readUntilFailure(InputStream in, ByteArrayOutputStream got) throws IOException {
        byte[] b = new byte[3];
        for (int n; (n = in.read(b, 0, b.length)) >= 0; ) {
            got.write(b, 0, n);
        }
        return got.toByteArray();
    }

    @Test
    void validUtf8PassesThroughWhateverTheReadSize() throws IOException {
        byte[] doc = "<?xml version=\"1.0\"?><r>é € 𝄞 ascii</r>".getBytes(StandardCharsets.UTF_8);
        assertThat(readUntilFailure(new Utf8Guard(new ByteArrayInputStream(doc)), new ByteArrayOutputStream()))
                .isEqualTo(doc);
    }

    @Test
    void theBytesBeforeAnInvalidSequenceAreReadAndThenTheReadFails() {
        String good = "<r><record>1</record>\n";
        for (int[] bad : new int[][] {
            {0xC3, '('}, // a lead byte without its continuation
            {0xFF}, // never in UTF-8
            {0xED, 0xA0, 0x80}, // a surrogate
            {0xC0, 0xAF}, // an overlong form
            {0xF4, 0x90, 0x80, 0x80} // past U+10FFFF
        }) {
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            assertThatThrownBy(() -> readUntilFailure(new Utf8Guard(new ByteArrayInputStream(bytes(good, bad))), got))
                    .isInstanceOf(CharConversionException.class)
                    .hasMessageStartingWith("invalid UTF-8 byte");
            assertThat(new String(got.toByteArray(), StandardCharsets.UTF_8)).startsWith(good);
        }
    }

    @Test
    void aDocumentThatSaysItIsNotUtf8PassesThroughUnchecked() throws IOException {
        byte[] latin1 = bytes("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><r>", 0xE9, '<', '/', 'r', '>');
        assertThat(readUntilFailure(new Utf8Guard(new ByteArrayInputStream(latin1)), new ByteArrayOutputStream()))
                .isEqualTo(latin1);
        byte[] utf16 = "\uFEFF<r>x</r>".getBytes(StandardCharsets.UTF_16BE);
        assertThat(readUntilFailure(new Utf8Guard(new ByteArrayInputStream(utf16)), new ByteArrayOutputStream()))
                .isEqualTo(utf16);
    }
}
