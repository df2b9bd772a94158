package io.jenkins.plugins.gpusanitizer.engine.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The probe's {@code work} records with backward passes, and its {@code state} records (files a process opened
 * outside its run's copy of the working directory), read as the probe writes them (issue #47).
 */
class ProbeWorkRecordsTest {
    @TempDir
    Path dir;

    private ProbeLog parse(String... lines) throws IOException {
        Path f = dir.resolve("probe.jsonl");
        Files.writeString(f, String.join("\n", lines) + "\n");
        return new ProbeParser().parse("regression", f);
    }

    @Test
    void handWrittenUpdatesCountBackwardPassesWithoutAnOptimizerStep() throws IOException {
        ProbeLog log = parse(
                "{\"type\":\"probe\",\"pid\":7,\"t\":0.1}",
                "{\"type\":\"work\",\"event\":\"cuda\",\"pid\":7,\"ts\":1.0}",
                "{\"type\":\"work\",\"event\":\"progress\",\"steps\":0,\"backward\":12,\"pid\":7,\"ts\":2.0}",
                "{\"type\":\"work\",\"event\":\"exit\",\"steps\":0,\"backward\":40,\"cuda\":true,\"pid\":7,\"ts\":3.0}");

        ProbeLog.Work w = log.work().get(7L);
        assertThat(w.steps()).isZero();
        assertThat(w.backward()).isEqualTo(40);
        assertThat(w.worked()).isTrue();
        assertThat(w.exited()).isTrue();
    }

    @Test
    void aProbeThatDidNotCountBackwardPassesReadsAsNone() throws IOException {
        ProbeLog log = parse("{\"type\":\"work\",\"event\":\"exit\",\"steps\":5,\"cuda\":true,\"pid\":3}");

        assertThat(log.work().get(3L).backward()).isZero();
        assertThat(log.work().get(3L).worked()).isTrue();
    }

    @Test
    void stateRecordsAreKeptOncePerEventAndPathInTheOrderFirstSeen() throws IOException {
        ProbeLog log = parse(
                "{\"type\":\"state\",\"event\":\"read\",\"path\":\"/tmp/test-clm/checkpoint-20/trainer_state.json\","
                        + "\"where\":\"tmp\",\"ts\":5.5,\"pid\":9}",
                "{\"type\":\"state\",\"event\":\"read\",\"path\":\"/tmp/test-clm/checkpoint-20/trainer_state.json\","
                        + "\"where\":\"tmp\",\"ts\":6.5,\"pid\":9}",
                "{\"type\":\"state\",\"event\":\"write\",\"path\":\"/ws/outputs/model.pt\",\"where\":\"workspace\","
                        + "\"ts\":7,\"pid\":9}",
                "{\"type\":\"state\",\"event\":\"read\",\"path\":\"/home/ci/.cache/x\",\"pid\":9}");

        assertThat(log.state())
                .extracting(ProbeLog.StateAccess::event, ProbeLog.StateAccess::path, ProbeLog.StateAccess::where)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(
                                "read", "/tmp/test-clm/checkpoint-20/trainer_state.json", "tmp"),
                        org.assertj.core.groups.Tuple.tuple("write", "/ws/outputs/model.pt", "workspace"),
                        org.assertj.core.groups.Tuple.tuple("read", "/home/ci/.cache/x", "other"));
        assertThat(log.state().get(0).ts()).isEqualTo(5.5);
        assertThat(log.badLines()).isZero();
    }

    @Test
    void aStateRecordWithoutAnAbsolutePathOrAKnownEventIsABadLine() throws IOException {
        ProbeLog log = parse(
                "{\"type\":\"state\",\"event\":\"read\",\"path\":\"relative/ckpt.pt\",\"where\":\"other\",\"pid\":1}",
                "{\"type\":\"state\",\"event\":\"stat\",\"path\":\"/tmp/x\",\"where\":\"tmp\",\"pid\":1}",
                "{\"type\":\"state\",\"event\":\"read\",\"where\":\"tmp\",\"pid\":1}");

        assertThat(log.state()).isEmpty();
        assertThat(log.badLines()).isEqualTo(3);
    }

    @Test
    void theStateKeptIsBounded() throws IOException {
        String[] lines = new String[ProbeParser.MAX_STATE + 5];
        for (int i = 0; i < lines.length; i++) {
            lines[i] = "{\"type\":\"state\",\"event\":\"read\",\"path\":\"/data/f" + i
                    + "\",\"where\":\"other\",\"pid\":1}";
        }
        ProbeLog log = parse(lines);

        assertThat(log.state()).hasSize(ProbeParser.MAX_STATE);
        assertThat(log.state().get(0).path()).isEqualTo("/data/f0");
    }
}
