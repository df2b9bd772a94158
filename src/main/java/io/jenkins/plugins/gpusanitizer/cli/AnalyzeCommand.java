package io.jenkins.plugins.gpusanitizer.cli;

import io.jenkins.plugins.gpusanitizer.engine.analysis.AnalysisInput;
import io.jenkins.plugins.gpusanitizer.engine.analysis.SanitizerInput;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import io.jenkins.plugins.gpusanitizer.engine.report.KernelCoverage;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportMapper;
import io.jenkins.plugins.gpusanitizer.engine.run.RunDirectory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gpu-sanitize analyze}: judges recorded outputs (no GPU needed). */
@Command(
        name = "analyze",
        mixinStandardHelpOptions = true,
        description = {
            "Reads recorded compute-sanitizer output, PyTorch error logs and nvidia-smi samples, groups the findings,",
            "explains them and gives the verdict. Exit: 0 PASS, 1 FAIL, 2 UNSTABLE, 3 ERROR, 64 usage."
        })
final class AnalyzeCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--sanitizer-log",
            paramLabel = "[TOOL:]FILE",
            description =
                    "compute-sanitizer text output (stdout or --log-file); repeatable. TOOL (memcheck, racecheck, initcheck, synccheck) is detected from the content unless given.")
    List<String> sanitizerLogs = new ArrayList<>();

    @Option(
            names = "--sanitizer-xml",
            paramLabel = "[TOOL:]FILE",
            description = "compute-sanitizer --xml --save file; repeatable.")
    List<String> sanitizerXmls = new ArrayList<>();

    @Option(
            names = "--async-log",
            paramLabel = "FILE",
            description = "stderr of the normal (asynchronous) run of the job.")
    Path asyncLog;

    @Option(
            names = "--blocking-log",
            paramLabel = "FILE",
            description = "stderr of the run with CUDA_LAUNCH_BLOCKING=1.")
    Path blockingLog;

    @Option(
            names = "--job-log",
            paramLabel = "PHASE=FILE",
            description = "stderr of another phase, by name; repeatable.")
    Map<String, Path> jobLogs = new LinkedHashMap<>();

    @Option(
            names = "--memory-csv",
            paramLabel = "FILE",
            description = "nvidia-smi --query-gpu=timestamp,index,memory.used,... --format=csv,nounits samples.")
    Path memoryCsv;

    @Option(
            names = "--memory-csv-expandable",
            paramLabel = "FILE",
            description = "samples of the same job with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.")
    Path memoryCsvExpandable;

    @Option(
            names = "--run-dir",
            paramLabel = "DIR",
            description =
                    "a run directory written by 'gpu-sanitize run' (reads its layout and run.json); excludes the inputs above.")
    Path runDir;

    @CommandLine.Mixin
    OutputOptions output = new OutputOptions();

    @CommandLine.Mixin
    PolicyOptions policy = new PolicyOptions();

    @Option(
            names = "--caching-allocator",
            paramLabel = "on|off",
            description =
                    "whether the sanitizer run kept PyTorch's caching allocator (off = PYTORCH_NO_CUDA_MEMORY_CACHING=1 was set). Default: unknown.")
    String cachingAllocator;

    @Override
    public Integer call() {
        var err = spec.commandLine().getErr();
        var out = spec.commandLine().getOut();
        boolean inputs0 = sanitizerLogs.isEmpty()
                && sanitizerXmls.isEmpty()
                && asyncLog == null
                && blockingLog == null
                && jobLogs.isEmpty()
                && memoryCsv == null
                && memoryCsvExpandable == null;
        if (runDir != null) {
            if (!inputs0) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--run-dir excludes the other inputs");
            }
            try {
                var gatePolicy = policy.toPolicy(spec.commandLine());
                output.checkOutputs(spec.commandLine(), java.util.Arrays.asList(output.reference), runDir);
                var dir = new RunDirectory(runDir);
                var record = dir.readRecord();
                // the runner's own analysis: the phases' recorded outcomes count as they did for 'run'
                var judged = dir.judge(record, gatePolicy, List.of());
                Report report = new ReportMapper(gatePolicy.frameClassifier())
                        .toReport(judged.analysis())
                        .withExecution(record.execution())
                        .withWork(judged.work());
                report = output.compare(
                        report.withCoverage(KernelCoverage.forRun(runDir, report.execution(), report.sanitizerRuns())));
                output.write(report, out);
                return ReportOutput.exitCode(report);
            } catch (InputException e) {
                err.println("gpu-sanitize: " + e.getMessage());
                return ExitCodes.ERROR;
            }
        }
        if (inputs0) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "nothing to analyze: give --sanitizer-log, --sanitizer-xml, --async-log, --blocking-log or --memory-csv");
        }
        Boolean caching = OnOff.parse(spec.commandLine(), "--caching-allocator", cachingAllocator);
        try {
            output.newOnly();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        List<SanitizerInput> inputs = new ArrayList<>();
        sanitizerLogs.forEach(s -> inputs.add(SanitizerInput.parse(s, false)));
        sanitizerXmls.forEach(s -> inputs.add(SanitizerInput.parse(s, true)));
        Map<String, Path> logs = new LinkedHashMap<>();
        if (asyncLog != null) {
            logs.put("async", asyncLog);
        }
        if (blockingLog != null) {
            logs.put("blocking", blockingLog);
        }
        logs.putAll(jobLogs);
        List<Path> read = new ArrayList<>();
        inputs.forEach(s -> read.add(s.file()));
        read.addAll(logs.values());
        read.addAll(java.util.Arrays.asList(memoryCsv, memoryCsvExpandable, output.reference));
        try {
            var gatePolicy = policy.toPolicy(spec.commandLine());
            output.checkOutputs(spec.commandLine(), read, null);
            Report report = output.compare(ReportOutput.analyze(
                    new AnalysisInput(inputs, logs, memoryCsv, memoryCsvExpandable, caching, gatePolicy)));
            output.write(report, out);
            return ReportOutput.exitCode(report);
        } catch (InputException e) {
            err.println("gpu-sanitize: " + e.getMessage());
            return ExitCodes.ERROR;
        }
    }
}
