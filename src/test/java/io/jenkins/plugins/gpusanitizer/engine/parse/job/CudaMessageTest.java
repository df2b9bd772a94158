package io.jenkins.plugins.gpusanitizer.engine.parse.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** CUDA errors a job printed without a traceback: it caught them (and then, say, hung). */
class CudaMessageTest {
    private final TracebackParser parser = new TracebackParser();

    @Test
    void stdoutMessagesAreFoundWithTheirLineAndCount() {
        var messages = parser.messages(Corpus.fixture("hang.stdout"));
        assertThat(messages).singleElement().satisfies(m -> {
            assertThat(m.stream()).isEqualTo("stdout");
            assertThat(m.line()).isEqualTo(3);
            assertThat(m.count()).isEqualTo(2);
            assertThat(m.text()).isEqualTo("retrying after: CUDA error: an illegal memory access was encountered");
            assertThat(m.errorClass()).isEqualTo(CudaErrorClass.ILLEGAL_ADDRESS);
        });
    }

    @Test
    void driverSpellingOnStderrClassifiesTheFailure() {
        CudaFailure f = parser.parse(Corpus.fixture("hang.stderr"));
        assertThat(f.errorClass()).isEqualTo(CudaErrorClass.ILLEGAL_ADDRESS);
        assertThat(f.withoutTraceback()).isTrue();
        assertThat(f.messages()).singleElement().satisfies(m -> {
            assertThat(m.stream()).isEqualTo("stderr");
            assertThat(m.line()).isEqualTo(1);
            assertThat(m.text()).contains("CUDA_ERROR_INVALID_ADDRESS_SPACE");
        });
    }

    @Test
    void stdoutMessagesGiveTheClassWhenStderrHasNone() throws IOException {
        CudaFailure quiet = parser.parse(Corpus.stream("step 0\n"), "stderr.log");
        assertThat(quiet.errorClass()).isEqualTo(CudaErrorClass.NONE);
        CudaFailure f =
                quiet.withMessages(parser.messages(Corpus.fixture("hang.stdout")), TracebackParser.MAX_MESSAGES);
        assertThat(f.errorClass()).isEqualTo(CudaErrorClass.ILLEGAL_ADDRESS);
        assertThat(f.message()).startsWith("retrying after: CUDA error");
        assertThat(f.withoutTraceback()).isTrue();
    }

    @Test
    void tracebackMessagesAndHintsAreNotLooseMessages() {
        // the exception's own message lines (Search for `cudaErrorIllegalAddress' ...) belong to its traceback
        CudaFailure f = parser.parse(Corpus.file("far-oob/async.stderr"));
        assertThat(f.messages()).isEmpty();
        assertThat(f.withoutTraceback()).isFalse();
    }

    @Test
    void cppAbortWithoutTracebackIsAMessage() {
        CudaFailure f = parser.parse(Corpus.file("near-oob/memcheck-nocache-app.stderr"));
        assertThat(f.messages())
                .anySatisfy(m -> assertThat(m.text()).isEqualTo("CUDA error: unspecified launch failure"));
    }

    @Test
    void driverAndRuntimeSpellings() {
        assertThat(CudaErrorClass.classify("CUDA_ERROR_INVALID_ADDRESS_SPACE: operation not supported"))
                .isEqualTo(CudaErrorClass.ILLEGAL_ADDRESS);
        assertThat(CudaErrorClass.classify("cudaErrorInvalidAddressSpace")).isEqualTo(CudaErrorClass.ILLEGAL_ADDRESS);
        assertThat(CudaErrorClass.classify("CUDA_ERROR_ILLEGAL_INSTRUCTION: an illegal instruction was encountered"))
                .isEqualTo(CudaErrorClass.ILLEGAL_INSTRUCTION);
        assertThat(CudaErrorClass.classify("CUDA_ERROR_INVALID_PC: invalid program counter"))
                .isEqualTo(CudaErrorClass.ILLEGAL_INSTRUCTION);
        assertThat(CudaErrorClass.classify("cudaErrorLaunchFailure")).isEqualTo(CudaErrorClass.LAUNCH_FAILURE);
        assertThat(CudaErrorClass.classify("cudaErrorMisalignedAddress")).isEqualTo(CudaErrorClass.MISALIGNED_ADDRESS);
        assertThat(CudaErrorClass.classify("CUDA_ERROR_LAUNCH_TIMEOUT: the launch timed out"))
                .isEqualTo(CudaErrorClass.OTHER_CUDA);
    }
}
