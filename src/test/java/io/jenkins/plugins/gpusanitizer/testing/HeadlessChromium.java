package io.jenkins.plugins.gpusanitizer.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One headless Chromium for many pages, driven through the DevTools protocol (its WebSocket, the JDK's client,
 * Jackson for the messages): a browser start costs about two CPU-seconds, a page in a running one a fraction of
 * that. Each page opens in a target of its own and is closed after; what it said goes into its console list: every
 * console call ({@code Runtime.consoleAPICalled}), every uncaught exception, and every browser log entry (a
 * Content-Security-Policy refusal comes as one), as {@code --enable-logging=stderr} printed them one browser per
 * page.
 */
public final class HeadlessChromium implements AutoCloseable {
    /** A bound, not a measure: a loaded 2-core machine took over 90 s for a page as a browser of its own. */
    private static final Duration LIMIT = Duration.ofSeconds(300);

    private final Process process;
    private final Path profile;
    private volatile WebSocket socket;
    private final ObjectMapper json = new ObjectMapper();
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<JsonNode>> replies = new ConcurrentHashMap<>();
    private final BlockingQueue<JsonNode> events = new LinkedBlockingQueue<>();

    /** What a page printed and the DOM it ended with. */
    public record Page(String dom, List<String> console) {}

    private HeadlessChromium(Process process, Path profile) {
        this.process = process;
        this.profile = profile;
    }

    /**
     * Starts the browser with its profile in a temporary folder of its own, which {@link #close} deletes once every
     * process of the browser is gone (the browser's output goes to chromium.log there while it runs).
     */
    public static HeadlessChromium start(Path chromium) throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory("gs-chromium-");
        Path port = profile.resolve("DevToolsActivePort");
        Process process = new ProcessBuilder(
                        chromium.toString(),
                        "--headless",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--disable-quic",
                        "--no-first-run",
                        "--disable-background-networking",
                        "--disable-component-update",
                        "--disable-sync",
                        "--user-data-dir=" + profile,
                        "--window-size=1280,1800",
                        "--remote-debugging-port=0",
                        "about:blank")
                .redirectErrorStream(true)
                .redirectOutput(profile.resolve("chromium.log").toFile())
                .start();
        try {
            // the browser writes its port and path there once it listens
            if (!FileWait.changes(port, LIMIT, text -> text.lines().count() >= 2)) {
                throw new IOException("chromium did not open its DevTools port: " + profile.resolve("chromium.log"));
            }
            List<String> lines = Files.readAllLines(port, StandardCharsets.UTF_8);
            URI endpoint = URI.create(
                    "ws://127.0.0.1:" + lines.get(0).strip() + lines.get(1).strip());
            HeadlessChromium browser = new HeadlessChromium(process, profile);
            browser.socket = HttpClient.newHttpClient()
                    .newWebSocketBuilder()
                    .buildAsync(endpoint, new Listener(browser))
                    .get(LIMIT.toSeconds(), TimeUnit.SECONDS);
            return browser;
        } catch (IOException | InterruptedException | RuntimeException e) {
            process.destroyForcibly();
            throw e;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            process.destroyForcibly();
            throw new IOException("cannot reach chromium's DevTools: " + e, e);
        }
    }

    /** Opens the URL in a new page (1280 x 1800), waits for its load event, then reads the DOM and, when asked, the picture. */
    public Page render(String url, Path screenshot) throws IOException, InterruptedException {
        String target = call(null, "Target.createTarget", Map.of("url", "about:blank"))
                .path("targetId")
                .asText();
        try {
            String session = call(null, "Target.attachToTarget", Map.of("targetId", target, "flatten", true))
                    .path("sessionId")
                    .asText();
            call(session, "Page.enable", Map.of());
            call(session, "Runtime.enable", Map.of());
            call(session, "Log.enable", Map.of());
            call(
                    session,
                    "Emulation.setDeviceMetricsOverride",
                    Map.of("width", 1280, "height", 1800, "deviceScaleFactor", 1, "mobile", false));
            List<String> console = new ArrayList<>();
            call(session, "Page.navigate", Map.of("url", url));
            awaitLoad(session, url, console);
            String dom = evaluate(session, "document.documentElement.outerHTML");
            if (screenshot != null) {
                String png = call(session, "Page.captureScreenshot", Map.of("format", "png"))
                        .path("data")
                        .asText();
                Files.write(screenshot, Base64.getDecoder().decode(png));
            }
            // the evaluation's answer came after everything the page had said before it: take that too
            drain(session, console);
            return new Page(dom, console);
        } finally {
            call(null, "Target.closeTarget", Map.of("targetId", target));
        }
    }

    /** Waits for the load event of the page at {@code url} (a new target's own about:blank may fire one first). */
    private void awaitLoad(String session, String url, List<String> console) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + LIMIT.toNanos();
        while (true) {
            JsonNode event = events.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (event == null) {
                throw new IOException("the page did not load within " + LIMIT.toSeconds() + " s: " + url);
            }
            if (!session.equals(event.path("sessionId").asText())) {
                continue;
            }
            if (!"Page.loadEventFired".equals(event.path("method").asText())) {
                note(event, console);
            } else if (url.equals(evaluate(session, "location.href"))) {
                return;
            }
        }
    }

    private String evaluate(String session, String expression) throws IOException, InterruptedException {
        return call(session, "Runtime.evaluate", Map.of("expression", expression, "returnByValue", true))
                .path("result")
                .path("value")
                .asText();
    }

    private void drain(String session, List<String> console) {
        for (JsonNode event = events.poll(); event != null; event = events.poll()) {
            if (session.equals(event.path("sessionId").asText())) {
                note(event, console);
            }
        }
    }

    /** A console line in the form the browser's own log used for it. */
    private static void note(JsonNode event, List<String> console) {
        JsonNode params = event.path("params");
        switch (event.path("method").asText()) {
            case "Runtime.consoleAPICalled" -> {
                StringBuilder line = new StringBuilder("CONSOLE(")
                        .append(params.path("type").asText())
                        .append("): ");
                for (JsonNode arg : params.path("args")) {
                    line.append(
                                    arg.has("value")
                                            ? arg.path("value").asText()
                                            : arg.path("description").asText())
                            .append(' ');
                }
                console.add(line.toString().strip());
            }
            case "Runtime.exceptionThrown" -> {
                JsonNode details = params.path("exceptionDetails");
                console.add("Uncaught " + details.path("text").asText() + " "
                        + details.path("exception").path("description").asText());
            }
            case "Log.entryAdded" -> {
                JsonNode entry = params.path("entry");
                console.add(entry.path("level").asText() + " ("
                        + entry.path("source").asText() + "): "
                        + entry.path("text").asText() + " " + entry.path("url").asText());
            }
            default -> {
                // other events say nothing about the page's errors
            }
        }
    }

    private JsonNode call(String session, String method, Map<String, ?> params)
            throws IOException, InterruptedException {
        int id = ids.incrementAndGet();
        ObjectNode message = json.createObjectNode().put("id", id).put("method", method);
        message.set("params", json.valueToTree(params));
        if (session != null) {
            message.put("sessionId", session);
        }
        CompletableFuture<JsonNode> reply = new CompletableFuture<>();
        replies.put(id, reply);
        try {
            socket.sendText(json.writeValueAsString(message), true).get(LIMIT.toSeconds(), TimeUnit.SECONDS);
            JsonNode answer = reply.get(LIMIT.toSeconds(), TimeUnit.SECONDS);
            if (answer.has("error")) {
                throw new IOException(method + ": " + answer.path("error"));
            }
            return answer.path("result");
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IOException(method + ": no answer from chromium (" + e + ")", e);
        } finally {
            replies.remove(id);
        }
    }

    private void receive(String text) {
        try {
            JsonNode message = json.readTree(text);
            if (message.has("id")) {
                CompletableFuture<JsonNode> reply =
                        replies.get(message.path("id").asInt());
                if (reply != null) {
                    reply.complete(message);
                }
            } else {
                events.add(message);
            }
        } catch (IOException e) {
            events.add(json.createObjectNode().put("method", "unreadable").put("text", text));
        }
    }

    /**
     * Ends the browser as a user's close does ({@code Browser.close}: it flushes its profile and ends its helpers),
     * waits for the browser and every process it had started, then deletes the profile: a helper still writing there
     * would make the deletion fail.
     */
    @Override
    public void close() throws IOException, InterruptedException {
        List<ProcessHandle> helpers = process.descendants().toList();
        // not waited for: the browser may close the socket before it answers
        try {
            socket.sendText(
                            json.writeValueAsString(json.createObjectNode()
                                    .put("id", ids.incrementAndGet())
                                    .put("method", "Browser.close")),
                            true)
                    .get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            process.destroy(); // SIGTERM ends it cleanly too
        }
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
        socket.abort();
        for (ProcessHandle helper : helpers) {
            try {
                helper.onExit().get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                helper.destroyForcibly();
            }
        }
        try (var paths = Files.walk(profile)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Joins a message's frames and hands the whole to the browser object. */
    private static final class Listener implements WebSocket.Listener {
        private final StringBuilder partial = new StringBuilder();
        private final HeadlessChromium browser;

        Listener(HeadlessChromium browser) {
            this.browser = browser;
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                browser.receive(partial.toString());
                partial.setLength(0);
            }
            webSocket.request(1);
            return null;
        }
    }
}
