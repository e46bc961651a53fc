import com.bridgescope.tap.BridgeTap;
import com.bridgescope.tap.TapConfig;
import com.bridgescope.tap.TapConnection;
import com.bridgescope.tap.TapRedactor;
import java.io.File;
import java.nio.file.Files;

/** The Java tap's side of tools/bench/tap (the same measurements as tap-bench). */
public final class TapBench {
    public static void main(String[] args) throws Exception {
        int count = args.length > 0 ? Integer.parseInt(args[0]) : 200000;
        StringBuilder image = new StringBuilder();
        for (int k = 0; k < 150; k++) image.append("QUJD");
        String message = "{\"version\":\"1.0\",\"correlationId\":\"r000001\",\"type\":\"response\",\"timestamp\":1764050000000,\"payload\":{\"action\":\"camera.document.capture\",\"status\":\"success\",\"data\":{\"imageData\":\""
            + image + "\",\"width\":1920,\"height\":1080,\"mimeType\":\"image/jpeg\",\"side\":\"front\",\"quality\":{\"blur\":0.02,\"glare\":0.1}}}}";
        long sink = 0;
        // Warm-up (the JIT), then measure.
        for (int round = 0; round < 2; round++) {
            long t = System.nanoTime();
            for (int k = 0; k < count; k++) sink += message.getBytes("UTF-8").length;
            double copy = (System.nanoTime() - t) / (double) count;
            t = System.nanoTime();
            for (int k = 0; k < count; k++) sink += TapRedactor.redact(message).length();
            double redact = (System.nanoTime() - t) / (double) count;
            File dir = Files.createTempDirectory("tap-bench").toFile();
            TapConfig config = new TapConfig(dir);
            config.maxQueueLines = count + 1;
            config.maxQueueBytes = Long.MAX_VALUE / 2;
            config.maxFileBytes = 1L << 40;
            BridgeTap tap = new BridgeTap(config);
            TapConnection web = tap.connection("webview-1");
            t = System.nanoTime();
            for (int k = 0; k < count; k++) web.webToHost(message);
            double call = (System.nanoTime() - t) / (double) count;
            tap.close();
            File dir2 = Files.createTempDirectory("tap-bench").toFile();
            BridgeTap tap2 = new BridgeTap(new TapConfig(dir2));
            TapConnection web2 = tap2.connection("webview-1");
            t = System.nanoTime();
            for (int k = 0; k < count; k++) { web2.webToHost(message); if (k % 1000 == 999) tap2.flush(); }
            tap2.close();
            double seconds = (System.nanoTime() - t) / 1e9;
            int drops = 0;
            for (File f : dir2.listFiles()) {
                String text = new String(Files.readAllBytes(f.toPath()), "UTF-8");
                drops += text.split("\"event\":\"drop\"", -1).length - 1;
            }
            if (round == 1) {
                System.out.printf("java   caller cost per message: %.2f µs (baselines: UTF-8 copy %.2f µs, redaction alone %.2f µs; ratio to copy %.1fx)%n", call / 1000, copy / 1000, redact / 1000, call / copy);
                System.out.printf("java   throughput with no drops: %.0f messages/s (%d drop lines)%n", count / seconds, drops);
            }
        }
        if (sink == 42) System.out.println();
    }
}
