package io.jenkins.plugins.gpusanitizer.testing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SlowFirstTest {
    @Test
    void theListNamesTestClassesOfThisBuildLongestFirst() throws Exception {
        assertThat(SlowFirst.slowest()).hasSizeGreaterThanOrEqualTo(10).doesNotHaveDuplicates();
        for (String name : SlowFirst.slowest()) {
            Class<?> test = Class.forName(SlowFirst.PACKAGE + name);
            assertThat(SlowFirst.rank(test)).isEqualTo(SlowFirst.slowest().indexOf(name));
        }
        assertThat(SlowFirst.rank(SlowFirstTest.class))
                .isEqualTo(SlowFirst.slowest().size());
    }
}
