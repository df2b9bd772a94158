package io.jenkins.plugins.gpusanitizer.engine.run.environment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.run.Phase;
import io.jenkins.plugins.gpusanitizer.engine.run.RunException;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Probes driver, GPUs, nvcc, the job's Python and torch, and compute-sanitizer, keeping every raw
 * answer under env/ in the run directory, and judges compatibility: torch built for a newer CUDA
 * than the driver supports is an error; an nvcc whose major differs from torch's CUDA is a warning
 * (it matters when the job builds extensions).
 */
public final class EnvironmentProbe {
    static final String PROBE_MARK = "GPU_SANITIZE_PROBE ";
    /** Prints one JSON line; never touches a GPU context beyond counting devices. */
    static final String PYTHON_PROBE = String.join(
            "\n",
            "import json, sys",
            "out = {'python': sys.version.split()[0], 'executable': sys.executable}",
            "try:",
            "    import torch",
            "    out['torch'] = torch.__version__",
            "    out['cuda'] = torch.version.cuda",
            "    out['cudnn'] = str(torch.backends.cudnn.version()) if torch.backends.cudnn.is_available() else None",
            "    out['cuda_available'] = torch.cuda.is_available()",
            "    cfg = torch.__config__.show()",
            "    out['dsa'] = 'TORCH_USE_CUDA_DSA' in cfg",
            "except Exception as e:",
            "    out['error'] = repr(e)",
            "print('" + PROBE_MARK + "' + json.dumps(out))");

    private static final Pattern CUDA_VERSION = Pattern.compile("CUDA Version:\\s*([\\d.]+)");
    private static final Pattern DRIVER_VERSION = Pattern.compile("Driver Version:\\s*([\\d.]+)");
    private static final Pattern NVCC_RELEASE = Pattern.compile("release (\\d+\\.\\d+), V([\\d.]+)");
    private static final Pattern SANITIZER_VERSION = Pattern.compile("Version ([\\d.]+)");

    private final ToolLocator tools;
    private final Map<String, String> env;
    private final Path envDir;
    private final ShortCommands commands;

    public EnvironmentProbe(ToolLocator tools, Map<String, String> env, Path envDir, ShortCommands commands) {
        this.tools = tools;
        this.env = env;
        this.envDir = envDir;
        this.commands = commands;
    }

    /** @throws RunException (one line) for a missing nvidia-smi, no GPU, or a missing tool the plan needs */
    public Environment probe(RunSpec spec, boolean needSanitizer) {
        return withPython(spec, devices(spec, needSanitizer));
    }

    /**
     * What the quick commands answer (driver, GPUs, nvcc, compute-sanitizer; 0.1-0.2 s each on the H200): enough to
     * start the sanitizer run, whose command needs only the tool's path. {@code nvidiaSmi}: the one that answered,
     * for a memory sampler started before the check's Python answered (a lookup then would wait for it).
     */
    public record Devices(
            String driver,
            String driverCuda,
            List<Environment.Gpu> gpus,
            String nvccVersion,
            String sanitizerPath,
            String sanitizerVersion,
            List<String> messages,
            String nvidiaSmi) {
        public Devices {
            gpus = List.copyOf(gpus);
            messages = List.copyOf(messages);
        }

        /** The environment as far as known before the job's Python answered: compatibility {@code pending}. */
        Environment partial() {
            return new Environment(
                    driver,
                    driverCuda,
                    gpus,
                    nvccVersion,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    sanitizerPath,
                    sanitizerVersion,
                    "pending",
                    messages);
        }
    }

    /** @throws RunException (one line) for a missing nvidia-smi, no GPU, or a missing tool the plan needs */
    public Devices devices(RunSpec spec, boolean needSanitizer) {
        List<String> messages = new ArrayList<>();
        Path smiGiven = path(spec.nvidiaSmi());
        Path nvccGiven = path(spec.nvcc());
        Path sanitizerGiven = path(spec.computeSanitizer());
        // every tool of the check in one lookup: where the job runs in a container a lookup is a command
        List<ToolLocator.Wanted> wanted = new ArrayList<>();
        wanted.add(new ToolLocator.Wanted("nvidia-smi", smiGiven));
        wanted.add(new ToolLocator.Wanted("nvcc", nvccGiven));
        if (needSanitizer) {
            wanted.add(new ToolLocator.Wanted("compute-sanitizer", sanitizerGiven));
        }
        wanted.addAll(pythonWanted(spec));
        tools.lookUp(wanted);
        Path smi = tools.require("nvidia-smi", smiGiven, "--nvidia-smi");
        Optional<Path> nvcc = tools.find("nvcc", nvccGiven);
        Optional<Path> sanitizer = needSanitizer ? tools.find("compute-sanitizer", sanitizerGiven) : Optional.empty();
        List<CommandOutput> answers = commands.runAll(quickCommands(smi, sanitizer, nvcc), env, 60);
        CommandOutput header = answers.get(0);
        String cardFault = CardFault.in(header.output());
        if (header.exitCode() != 0) {
            throw new RunException(
                    cardFault != null
                            ? CardFault.sentence(cardFault + " (" + smi + ", exit " + header.exitCode() + ")")
                            : "no GPU: " + smi + " failed (exit " + header.exitCode() + "): " + header.firstLine());
        }
        if (cardFault != null) {
            messages.add(CardFault.MARK + ": " + cardFault);
        }
        String driverCuda = group(CUDA_VERSION, header.output());
        String driver = group(DRIVER_VERSION, header.output());
        CommandOutput query = answers.get(1);
        List<Environment.Gpu> gpus = new ArrayList<>();
        for (String line : query.output().split("\n")) {
            String[] f = line.split(",\\s*");
            if (f.length >= 5 && f[0].trim().matches("\\d+")) {
                gpus.add(new Environment.Gpu(f[0].trim(), f[1].trim(), f[2].trim(), parseDouble(f[4])));
                if (driver == null) {
                    driver = f[3].trim();
                }
            }
        }
        if (gpus.isEmpty()) {
            throw new RunException("no GPU: " + smi + " lists none (" + query.firstLine() + ")");
        }
        for (String want : spec.gpus()) {
            if (gpus.stream().noneMatch(g -> g.index().equals(want) || g.uuid().equals(want))) {
                throw new RunException("GPU " + want + " not found: " + smi + " lists "
                        + String.join(
                                ", ", gpus.stream().map(Environment.Gpu::index).toList()));
            }
        }
        String nvccVersion = null;
        if (nvcc.isPresent()) {
            Matcher m = NVCC_RELEASE.matcher(answers.get(answers.size() - 1).output());
            nvccVersion = m.find() ? m.group(2) : null;
        } else {
            messages.add("nvcc not found (needed only when the job builds CUDA extensions)");
        }
        String sanitizerPath = null;
        String sanitizerVersion = null;
        if (needSanitizer) {
            Path cs = sanitizer.orElseThrow(
                    () -> tools.missing("compute-sanitizer", sanitizerGiven, "--compute-sanitizer"));
            sanitizerPath = cs.toString();
            CommandOutput v = answers.get(2);
            Matcher m = SANITIZER_VERSION.matcher(v.output());
            sanitizerVersion = m.find() ? m.group(1) : null;
            if (sanitizerVersion == null) {
                throw new RunException("compute-sanitizer at " + cs + " did not report a version (exit " + v.exitCode()
                        + "): " + v.firstLine());
            }
        }
        return new Devices(
                driver, driverCuda, gpus, nvccVersion, sanitizerPath, sanitizerVersion, messages, smi.toString());
    }

    /**
     * The quick commands, to run in one go, each with its own answer: nvidia-smi's header and GPU list, then the
     * sanitizer's version when it is needed, then nvcc's, which the run can do without, last.
     */
    private List<ShortCommands.Command> quickCommands(Path smi, Optional<Path> sanitizer, Optional<Path> nvcc) {
        List<ShortCommands.Command> quick = new ArrayList<>();
        quick.add(new ShortCommands.Command(List.of(smi.toString()), envDir.resolve("nvidia-smi.txt")));
        quick.add(new ShortCommands.Command(
                List.of(
                        smi.toString(),
                        "--query-gpu=index,name,uuid,driver_version,memory.total",
                        "--format=csv,noheader,nounits"),
                envDir.resolve("nvidia-smi-query.csv")));
        sanitizer.ifPresent(cs -> quick.add(new ShortCommands.Command(
                List.of(cs.toString(), "--version"), envDir.resolve("compute-sanitizer-version.txt"))));
        nvcc.ifPresent(n -> quick.add(
                new ShortCommands.Command(List.of(n.toString(), "--version"), envDir.resolve("nvcc-version.txt"))));
        return quick;
    }

    /**
     * The job's Python importing torch and asking CUDA (seconds: most of the check), judged with what the quick
     * commands found.
     *
     * @throws RunException (one line) for a missing --python
     */
    Environment withPython(RunSpec spec, Devices devices) {
        List<String> messages = new ArrayList<>(devices.messages());
        Path python = pythonFor(spec);
        JsonNode torch = probeTorch(python, spec.gpus().get(0), messages);
        Boolean available = torch != null && torch.has("cuda_available")
                ? torch.get("cuda_available").asBoolean()
                : null;
        Boolean dsa = torch != null && torch.has("dsa") ? torch.get("dsa").asBoolean() : null;
        if (torch != null && torch.has("error")) {
            messages.add("torch could not be imported by " + python + ": "
                    + torch.get("error").asText());
        }
        // a card torch cannot use: what nvidia-smi -q says of its state (only then: a full query takes a second)
        String queryFault = Boolean.FALSE.equals(available)
                ? queryFault(devices, spec.gpus().get(0))
                : null;
        String compat = compatibility(
                devices, torch, available, python + " on GPU " + spec.gpus().get(0), queryFault, messages);
        messages.add(
                Boolean.TRUE.equals(dsa)
                        ? "torch is built with device-side assertions: PYTORCH_USE_CUDA_DSA=1 is set for the blocking run"
                        : "torch is not built with device-side assertions (TORCH_USE_CUDA_DSA is a build-time flag; setting it at run time does nothing): not set");
        return new Environment(
                devices.driver(),
                devices.driverCuda(),
                devices.gpus(),
                devices.nvccVersion(),
                python.toString(),
                text(torch, "python"),
                text(torch, "torch"),
                text(torch, "cuda"),
                text(torch, "cudnn"),
                available,
                dsa,
                devices.sanitizerPath(),
                devices.sanitizerVersion(),
                compat,
                messages);
    }

    /** What {@code nvidia-smi -q} says of the job's GPU's state when it needs service ({@link CardFault#inQuery}), or null. */
    private String queryFault(Devices devices, String gpu) {
        if (devices.nvidiaSmi() == null) {
            return null;
        }
        CommandOutput q = commands.run(
                List.of(devices.nvidiaSmi(), "-q", "-i", gpu), env, envDir.resolve("nvidia-smi-q.txt"), 60);
        return q.exitCode() == 0 ? CardFault.inQuery(q.output()) : null;
    }

    /** What the job's Python says of torch and CUDA on the job's GPU; null when it could not say. */
    private JsonNode probeTorch(Path python, String gpu, List<String> messages) {
        CommandOutput py = commands.run(
                List.of(python.toString(), "-c", PYTHON_PROBE), withGpu(gpu), envDir.resolve("python-probe.txt"), 120);
        int mark = py.output().indexOf(PROBE_MARK);
        if (mark < 0) {
            messages.add(python + " could not be probed (exit " + py.exitCode() + "): " + py.firstLine());
            return null;
        }
        try {
            String json = py.output().substring(mark + PROBE_MARK.length()).split("\n", 2)[0];
            return new ObjectMapper().readTree(json);
        } catch (IOException e) {
            messages.add("python probe output unreadable: " + e.getMessage().split("\n", 2)[0]);
            return null;
        }
    }

    /**
     * {@code ok}, {@code warning} or {@code error}: torch's CUDA against the driver's, CUDA usable at all, nvcc's
     * major version against torch's; each problem said in {@code messages}.
     *
     * @param pythonOnGpu the job's Python and its GPU, as the messages name them
     */
    private static String compatibility(
            Devices devices,
            JsonNode torch,
            Boolean available,
            String pythonOnGpu,
            String queryFault,
            List<String> messages) {
        String compat = "ok";
        String driverCuda = devices.driverCuda();
        String torchVersion = text(torch, "torch");
        String torchCuda = text(torch, "cuda");
        if (torchCuda != null && driverCuda != null) {
            int cmp = compareVersions(torchCuda, driverCuda);
            if (major(torchCuda) > major(driverCuda)) {
                compat = "error";
                messages.add("torch " + torchVersion + " is built for CUDA " + torchCuda + " but the driver "
                        + devices.driver() + " supports up to CUDA " + driverCuda
                        + ": upgrade the driver (CUDA 13.x needs >= 580, 12.x >= 525) "
                        + "or install a torch wheel built for CUDA " + major(driverCuda) + ".x");
            } else if (cmp > 0) {
                compat = "warning";
                messages.add(
                        "torch's CUDA " + torchCuda + " is newer than the driver's " + driverCuda
                                + ": runs under minor-version compatibility with a limited feature set (no PTX JIT of newer PTX)");
            }
        }
        if (Boolean.FALSE.equals(available)) {
            compat = "error";
            List<String> faults = new ArrayList<>();
            devices.messages().stream()
                    .filter(m -> m.startsWith(CardFault.MARK))
                    .forEach(m -> faults.add(m.substring(CardFault.MARK.length() + 2)));
            if (queryFault != null) {
                faults.add(queryFault);
            }
            messages.add("torch.cuda.is_available() is False for " + pythonOnGpu
                    + (faults.isEmpty() ? "" : ": " + CardFault.sentence(String.join("; ", faults))));
        }
        String nvccVersion = devices.nvccVersion();
        if (nvccVersion != null && torchCuda != null && major(nvccVersion) != major(torchCuda)) {
            if (!"error".equals(compat)) {
                compat = "warning";
            }
            messages.add("nvcc " + nvccVersion + " and torch's CUDA " + torchCuda
                    + " differ in major version: CUDA extensions "
                    + "built with this nvcc will not load into this torch");
        }
        return compat;
    }

    /** The job's own Python when its command starts with one, else --python, else python3 on PATH (else python). */
    Path pythonFor(RunSpec spec) {
        List<ToolLocator.Wanted> wanted = pythonWanted(spec);
        for (ToolLocator.Wanted python : wanted) {
            Optional<Path> found = tools.find(python.name(), python.explicit());
            if (found.isPresent()) {
                return found.get();
            }
        }
        ToolLocator.Wanted last = wanted.get(wanted.size() - 1);
        throw tools.missing(last.name(), last.explicit(), "--python");
    }

    /** The Pythons {@link #pythonFor} takes, best first. */
    private static List<ToolLocator.Wanted> pythonWanted(RunSpec spec) {
        if (spec.python() != null) {
            return List.of(new ToolLocator.Wanted("python", Path.of(spec.python())));
        }
        List<String> argv =
                spec.shellCommand() ? List.of(spec.command().get(0).trim().split("\\s+")) : spec.command();
        String first = argv.isEmpty() ? "" : argv.get(0);
        Path firstName = Path.of(first).getFileName();
        String base = firstName == null ? "" : firstName.toString();
        if (base.matches("python[\\d.]*")) {
            return List.of(new ToolLocator.Wanted(base, first.contains("/") ? Path.of(first) : null));
        }
        return List.of(new ToolLocator.Wanted("python3", null), new ToolLocator.Wanted("python", null));
    }

    private Map<String, String> withGpu(String gpu) {
        Map<String, String> e = new java.util.HashMap<>(env);
        e.put("CUDA_VISIBLE_DEVICES", gpu);
        return e;
    }

    static int compareVersions(String a, String b) {
        String[] x = a.split("\\.");
        String[] y = b.split("\\.");
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            int xi = i < x.length ? parseInt(x[i]) : 0;
            int yi = i < y.length ? parseInt(y[i]) : 0;
            if (xi != yi) {
                return Integer.compare(xi, yi);
            }
        }
        return 0;
    }

    static int major(String v) {
        return parseInt(v.split("\\.")[0]);
    }

    private static int parseInt(String s) {
        try {
            return Integer.parseInt(s.replaceAll("\\D", ""));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static Double parseDouble(String s) {
        try {
            return Double.parseDouble(s.trim().split("\\s+")[0]);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static String group(Pattern p, String s) {
        Matcher m = p.matcher(s);
        return m.find() ? m.group(1) : null;
    }

    private static String text(JsonNode n, String field) {
        return n != null && n.hasNonNull(field) ? n.get(field).asText() : null;
    }

    private static Path path(String s) {
        return s == null ? null : Path.of(s);
    }

    /** For the report: which tools the plan needs. */
    public static boolean needsSanitizer(RunSpec spec) {
        return spec.phases().contains(Phase.SANITIZER) && !spec.tools().isEmpty();
    }

    static List<String> toolIds(List<Tool> tools) {
        return tools.stream().map(Tool::id).toList();
    }
}
