package io.jenkins.plugins.gpusanitizer.engine.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.parse.text.SanitizerTextParser;
import io.jenkins.plugins.gpusanitizer.engine.parse.xml.SanitizerXmlParser;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class NearestAllocationTest {

    private static List<SanitizerRecord> text(String file) {
        List<SanitizerRecord> out = new ArrayList<>();
        new SanitizerTextParser().parse(Corpus.file(file), null, out::add);
        return out;
    }

    @Test
    void theTextRecordOfANearOverrunNamesTheAllocationItRanPast() {
        // near-oob: 64 floats written past a 6,400-byte buffer, caching allocator off (H200)
        NearestAllocation n = NearestAllocation.parse(
                        text("near-oob/memcheck-nocache.log").get(0).detail())
                .orElseThrow();
        assertThat(n.named()).isTrue();
        assertThat(n.relation()).isEqualTo(NearestAllocation.Relation.AFTER);
        assertThat(n.size()).isEqualTo(6400);
        assertThat(NearestAllocation.hex(n.address()) - NearestAllocation.hex(n.base()))
                .as("memcheck counts the first byte past the end as 1 byte after")
                .isEqualTo(n.size() + n.distance() - 1);
    }

    @Test
    void aFarWriteNamesANearestAllocationHundredsOfGigabytesAway() {
        NearestAllocation n = NearestAllocation.parse(
                        text("far-oob/memcheck.log").get(0).detail())
                .orElseThrow();
        assertThat(n.relation()).isEqualTo(NearestAllocation.Relation.AFTER);
        assertThat(n.distance()).isGreaterThan(1L << 30);
    }

    @Test
    void theXmlRecordHasTheAddressButNoAllocation() {
        List<SanitizerRecord> out = new ArrayList<>();
        new SanitizerXmlParser().parse(Corpus.file("far-oob/memcheck.xml"), null, out::add);
        NearestAllocation n = NearestAllocation.parse(out.get(0).detail()).orElseThrow();
        assertThat(n.address()).isEqualTo("0x7f564080a980");
        assertThat(n.named()).isFalse();
    }

    @Test
    void manualShapesBeforeAndInside() {
        assertThat(NearestAllocation.parse("Address 0x87654320 is out of bounds and is 137,179,965,340,896 bytes"
                        + " before the nearest allocation at 0x7cc43a800000 of size 1,024 bytes"))
                .hasValueSatisfying(n -> {
                    assertThat(n.relation()).isEqualTo(NearestAllocation.Relation.BEFORE);
                    assertThat(n.distance()).isEqualTo(137_179_965_340_896L);
                    assertThat(n.size()).isEqualTo(1024);
                });
        assertThat(NearestAllocation.parse("Address 0x7cc43aa00001 is misaligned and is inside the nearest"
                        + " allocation at 0x7cc43aa00000 of size 4 bytes"))
                .hasValueSatisfying(n -> {
                    assertThat(n.relation()).isEqualTo(NearestAllocation.Relation.INSIDE);
                    assertThat(n.base()).isEqualTo("0x7cc43aa00000");
                });
        assertThat(NearestAllocation.parse("Leaked 400 bytes")).isEmpty();
        assertThat(NearestAllocation.parse(null)).isEmpty();
    }
}
