package io.jenkins.plugins.gpusanitizer.engine.findings;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.model.Frame;
import io.jenkins.plugins.gpusanitizer.engine.model.Kind;
import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.parse.text.SanitizerTextParser;
import io.jenkins.plugins.gpusanitizer.engine.parse.xml.SanitizerXmlParser;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class DefectGrouperTest {

    private static List<Defect> text(String file) {
        DefectGrouper g = new DefectGrouper(FrameClassifier.defaults());
        new SanitizerTextParser().parse(Corpus.file(file), null, g);
        return g.defects();
    }

    private static List<Defect> xml(String file) {
        DefectGrouper g = new DefectGrouper(FrameClassifier.defaults());
        new SanitizerXmlParser().parse(Corpus.file(file), null, g);
        return g.defects();
    }

    private static List<Defect> run(String name) throws IOException {
        DefectGrouper g = new DefectGrouper(FrameClassifier.defaults());
        new SanitizerTextParser().parse(Corpus.stream(Corpus.textRun(name)), Path.of(name), null, g);
        return g.defects();
    }

    @Test
    void hundredThreadsOneDefect() {
        List<Defect> d = text("far-oob/memcheck.log");
        assertThat(d).singleElement().satisfies(x -> {
            assertThat(x.records()).isEqualTo(100);
            assertThat(x.kernel()).isEqualTo("scale_shift");
            assertThat(x.hostLocation().file()).isEqualTo("train_lstm.py");
            assertThat(x.hostLocation().line()).isEqualTo(32);
            assertThat(x.hostLocation().function()).isEqualTo("buggy_scale");
            assertThat(x.examples())
                    .hasSize(DefectGrouper.MAX_EXAMPLES)
                    .first()
                    .isEqualTo("thread (0,0,0) block (3,0,0)");
            assertThat(x.inVendorLibrary()).isFalse();
        });
    }

    @Test
    void textAndXmlOfTheSameRunGiveTheSameDefect() {
        Defect t = text("far-oob/memcheck.log").get(0);
        Defect x = xml("far-oob/memcheck.xml").get(0);
        assertThat(x.id()).isEqualTo(t.id());
        assertThat(x.records()).isEqualTo(t.records());
        assertThat(x.hostLocation().file()).isEqualTo("/home/ci/workspace/lab/train_lstm.py");
        assertThat(x.hostLocation().sameLine(t.hostLocation())).isTrue();
        List<Defect> nt = text("near-oob/memcheck-nocache.log");
        List<Defect> nx = xml("near-oob/memcheck-nocache.xml");
        assertThat(nx)
                .extracting(Defect::id)
                .containsExactlyElementsOf(nt.stream().map(Defect::id).toList());
    }

    @Test
    void cppTextAndXmlAgreeDespiteParameterListsAndHostStubs() throws IOException {
        Defect t = run("mc-misaligned").get(0);
        DefectGrouper g = new DefectGrouper(FrameClassifier.defaults());
        new SanitizerXmlParser().parse(Corpus.file("cpp-probe/xml/g.xml"), null, g);
        Defect x = g.defects().get(0);
        assertThat(t.kernel()).isEqualTo("misaligned(int *)");
        assertThat(x.kernel()).isEqualTo("misaligned");
        assertThat(t.hostLocation().function()).isEqualTo("main");
        assertThat(x.hostLocation().function()).isEqualTo("main");
        assertThat(x.id()).isEqualTo(t.id());
    }

    @Test
    void distinctBugsStayDistinct() throws IOException {
        assertThat(run("mc-misaligned"))
                .extracting(Defect::kind)
                .containsExactly(Kind.MISALIGNED, Kind.API_ERROR, Kind.API_ERROR);
        assertThat(run("rc-race-full"))
                .singleElement()
                .satisfies(d -> assertThat(d.records()).isEqualTo(63));
        assertThat(run("mc-leak")).singleElement().satisfies(d -> {
            assertThat(d.kind()).isEqualTo(Kind.LEAK);
            assertThat(d.records()).as("two leaks from one call site in main").isEqualTo(2);
        });
    }

    @Test
    void followOnApiErrorsAreSuppressedOnlyAfterADeviceError() throws IOException {
        List<Defect> after = run("mc-misaligned");
        FollowOnApiErrorRule rule = new FollowOnApiErrorRule();
        assertThat(after.stream().filter(d -> rule.matches(d, after))).hasSize(2);
        List<Defect> alone = run("mc-apierr");
        assertThat(alone.stream().filter(d -> rule.matches(d, alone))).isEmpty();
    }

    @Test
    void vendorLaunchedKernelsAreNoiseForInitcheckButLabelledForMemcheck() {
        // frames as compute-sanitizer 2025.3 prints them for a kernel cuDNN launches from torch's LSTM
        List<Frame> cudnn = List.of(
                Frame.nativeFrame("cuLaunchKernel", null, 0, "libcuda.so.1"),
                Frame.nativeFrame(null, null, 0, "libcudnn_engines_precompiled.so.9"),
                Frame.nativeFrame("cudnnRNNForward", null, 0, "libcudnn_adv.so.9"),
                Frame.nativeFrame("at::native::_cudnn_rnn(...)", null, 0, "libtorch_cuda.so"),
                Frame.python("forward", "train_lstm.py", 72));
        FrameClassifier fc = FrameClassifier.defaults();
        SanitizerRecord init = new SanitizerRecord(
                Tool.INITCHECK,
                Kind.UNINITIALIZED_READ,
                "Uninitialized __global__ memory read of size 4 bytes",
                "RNN_blockPersist_fp_LSTM",
                "0x1a0",
                null,
                "(0,0,0)",
                "(0,0,0)",
                null,
                cudnn,
                true);
        assertThat(fc.launchingVendorModule(init)).isEqualTo("libcudnn_engines_precompiled.so.9");
        DefectGrouper g = new DefectGrouper(fc);
        g.accept(init);
        g.accept(new SanitizerRecord(
                Tool.MEMCHECK,
                Kind.OUT_OF_BOUNDS,
                "Invalid __global__ read of size 4 bytes",
                "RNN_blockPersist_fp_LSTM",
                "0x1a0",
                null,
                "(1,0,0)",
                "(0,0,0)",
                null,
                cudnn,
                true));
        List<Defect> defects = g.defects();
        VendorNoiseRule rule = new VendorNoiseRule();
        assertThat(defects).hasSize(2).allMatch(Defect::inVendorLibrary);
        assertThat(defects.get(0).hostLocation().line())
                .as("the user's Python frame is still named")
                .isEqualTo(72);
        assertThat(rule.matches(defects.get(0), defects)).isTrue();
        assertThat(rule.matches(defects.get(1), defects))
                .as("memcheck access errors are kept")
                .isFalse();
        SanitizerRecord own = new SanitizerRecord(
                Tool.INITCHECK,
                Kind.UNINITIALIZED_READ,
                "x",
                "mine",
                "0x1",
                null,
                null,
                null,
                null,
                List.of(
                        Frame.nativeFrame("cuLaunchKernel", null, 0, "libcuda.so.1"),
                        Frame.nativeFrame("launch", null, 0, "my_ext.so")),
                true);
        assertThat(fc.launchingVendorModule(own)).isNull();
    }

    @Test
    void userSuppressionSpec() {
        Defect d = text("far-oob/memcheck.log").get(0);
        assertThat(PatternSuppression.parse("tool=memcheck;kernel=^scale_").matches(d, List.of(d)))
                .isTrue();
        assertThat(PatternSuppression.parse("kind=misaligned").matches(d, List.of(d)))
                .isFalse();
        assertThat(PatternSuppression.parse("frame=buggy_scale;reason=known, fixed upstream")
                        .reason())
                .isEqualTo("known, fixed upstream");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> PatternSuppression.parse("reason=everything"))
                .hasMessageContaining("matches everything");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> PatternSuppression.parse("kernel=("))
                .hasMessageContaining("bad regex for kernel");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> PatternSuppression.parse("tool=valgrind"))
                .hasMessageContaining("unknown tool 'valgrind'");
    }

    @Test
    void kernelNames() {
        assertThat(KernelNames.simple("oob_write(int *, int)")).isEqualTo("oob_write");
        assertThat(
                        KernelNames.simple(
                                "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int, T2, T3)"))
                .isEqualTo("at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>");
        assertThat(KernelNames.simple("scale_shift")).isEqualTo("scale_shift");
    }
}
