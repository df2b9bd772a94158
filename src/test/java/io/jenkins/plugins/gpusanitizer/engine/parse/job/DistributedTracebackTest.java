package io.jenkins.plugins.gpusanitizer.engine.parse.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** torchrun and mp.spawn output: the worker's traceback is the failure, the launcher's is context. */
class DistributedTracebackTest {
    private final TracebackParser parser = new TracebackParser();

    @Test
    void torchrunWorkerTracebackIsTheFailureWithItsRank() {
        CudaFailure f = parser.parse(Corpus.fixture("torchrun-one-rank.stderr"));
        assertThat(f.errorClass()).isEqualTo(CudaErrorClass.ILLEGAL_ADDRESS);
        assertThat(f.exceptionType()).isEqualTo("torch.AcceleratorError");
        assertThat(f.rank()).isEqualTo(1);
        assertThat(f.userFrame().file()).isEqualTo("/home/ci/workspace/lab/ddp_job.py");
        assertThat(f.userFrame().line()).isEqualTo(79);
        assertThat(f.userFrame().code()).startsWith("print(f\"rank {rank} step {step} loss {loss.item()");
        assertThat(f.asyncWarning()).isTrue();
        assertThat(f.dsaNotCompiled()).isTrue();
        assertThat(f.frames()).hasSize(2);
        assertThat(f.ranks()).singleElement().satisfies(r -> {
            assertThat(r.rank()).isEqualTo(1);
            assertThat(r.fromLauncher()).isFalse();
        });
        // the launcher's ChildFailedError traceback is context: its frames are not the failure's
        assertThat(f.launcher().kind()).isEqualTo("torchrun");
        assertThat(f.launcher().exceptionType()).endsWith("ChildFailedError");
        assertThat(f.launcher().rootCauseRank()).isEqualTo(1);
        assertThat(f.launcher().detail()).isEqualTo("exit code 1");
        assertThat(f.launcher().userFrame()).isNull();
        assertThat(f.frames()).noneMatch(l -> l.file().contains("torch/distributed"));
        assertThat(f.messages()).isEmpty();
    }

    @Test
    void severalFailingRanksEarliestIsTheRootCause() {
        CudaFailure f = parser.parse(Corpus.fixture("torchrun-two-ranks.stderr"));
        // rank 1's traceback started first (interleaved line by line with rank 0's)
        assertThat(f.rank()).isEqualTo(1);
        assertThat(f.errorClass()).isEqualTo(CudaErrorClass.ILLEGAL_ADDRESS);
        assertThat(f.userFrame().line()).isEqualTo(66);
        assertThat(f.userFrame().code()).isEqualTo("loss.backward()");
        assertThat(f.ranks()).extracting(CudaFailure.RankFailure::rank).containsExactly(1, 0);
        CudaFailure.RankFailure rank0 = f.ranks().get(1);
        // NCCL's error passes on the illegal access its CUDA call met (issue #25, 11): the fault's class, NCCL's type
        assertThat(rank0.errorClass()).isEqualTo(CudaErrorClass.ILLEGAL_ADDRESS);
        assertThat(rank0.exceptionType()).isEqualTo("torch.distributed.DistBackendError");
        assertThat(rank0.userFrame().line()).isEqualTo(70);
        assertThat(rank0.userFrame().code()).isEqualTo("dist.all_reduce(t)");
        // torchrun without @record stamps both failures with the same second and names rank 0
        assertThat(f.launcher().rootCauseRank()).isZero();
        // the C++ warning with its [rank0]: prefix is no failure
        assertThat(f.messages()).isEmpty();
    }

    @Test
    void launcherTableTracebackIsUsedWhenTheWorkerOutputIsNotThere() {
        CudaFailure f = parser.parse(Corpus.fixture("torchrun-record-table.stderr"));
        assertThat(f.rank()).isEqualTo(1);
        assertThat(f.errorClass()).isEqualTo(CudaErrorClass.ILLEGAL_ADDRESS);
        assertThat(f.userFrame().file()).isEqualTo("/home/ci/workspace/lab/ddp_job.py");
        assertThat(f.userFrame().line()).isEqualTo(79);
        assertThat(f.userFrame().code()).contains("loss.item()");
        assertThat(f.asyncWarning()).isTrue();
        assertThat(f.ranks())
                .singleElement()
                .satisfies(r -> assertThat(r.fromLauncher()).isTrue());
        assertThat(f.launcher().rootCauseRank()).isEqualTo(1);
        assertThat(f.launcher().detail()).isEqualTo("exit code 1");
    }

    @Test
    void spawnProcessTracebackIsThatRanksFailure() {
        CudaFailure f = parser.parse(Corpus.fixture("spawn-two-ranks.stderr"));
        assertThat(f.rank()).isEqualTo(1);
        assertThat(f.errorClass()).isEqualTo(CudaErrorClass.ILLEGAL_ADDRESS);
        assertThat(f.exceptionType()).isEqualTo("torch.AcceleratorError");
        assertThat(f.userFrame().file()).isEqualTo("/home/ci/workspace/lab/spawn_job.py");
        assertThat(f.userFrame().line()).isEqualTo(58);
        assertThat(f.userFrame().function()).isEqualTo("worker");
        assertThat(f.launcher().kind()).isEqualTo("mp.spawn");
        assertThat(f.launcher().rootCauseRank()).isEqualTo(1);
        // the parent's own traceback names the mp.spawn call: context, not the fault
        assertThat(f.launcher().userFrame().line()).isEqualTo(71);
        assertThat(f.frames()).first().satisfies(l -> assertThat(l.function()).isEqualTo("_wrap"));
    }

    @Test
    void spawnWorkerKilledBySignalHasNoTracebackButARank() {
        CudaFailure f = parser.parse(Corpus.fixture("spawn-signal.stderr"));
        assertThat(f.launcher().rootCauseRank()).isEqualTo(1);
        assertThat(f.launcher().detail()).isEqualTo("signal SIGSEGV");
        assertThat(f.userFrame()).isNull();
        assertThat(f.errorClass()).isEqualTo(CudaErrorClass.NON_CUDA);
        assertThat(f.exceptionType()).endsWith("ProcessExitedException");
        assertThat(f.message()).isEqualTo("process 1 terminated with signal SIGSEGV");
        assertThat(f.rank()).isEqualTo(1);
        assertThat(f.frames()).isEmpty();
    }

    @Test
    void prefixesOfOtherTemplatesAreRanksToo() throws IOException {
        String log = "[default0]:Traceback (most recent call last):\n"
                + "[default0]:  File \"/w/train.py\", line 12, in <module>\n"
                + "[default0]:    x.sum().item()\n"
                + "[default0]:torch.AcceleratorError: CUDA error: an illegal memory access was encountered\n"
                + "[0]:\n";
        CudaFailure f = parser.parse(Corpus.stream(log), "prefix.stderr");
        assertThat(f.rank()).isZero();
        assertThat(f.userFrame().line()).isEqualTo(12);
        assertThat(f.errorClass()).isEqualTo(CudaErrorClass.ILLEGAL_ADDRESS);
    }

    @Test
    void singleProcessOutputHasNoRank() {
        CudaFailure f = parser.parse(Corpus.file("far-oob/async.stderr"));
        assertThat(f.rank()).isNull();
        assertThat(f.ranks()).isEmpty();
        assertThat(f.launcher()).isNull();
    }
}
