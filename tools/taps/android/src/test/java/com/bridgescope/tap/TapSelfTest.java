package com.bridgescope.tap;

import java.io.File;
import java.nio.file.Files;

/** Checks without JUnit (exit status 1 on the first failure): redaction, SHA-256, rotation, drops, failures. */
public final class TapSelfTest {
    private TapSelfTest() {}

    private static int checks = 0;

    private static void expect(boolean ok, String what) {
        checks++;
        if (!ok) { System.err.println("FAILED: " + what); System.exit(1); }
    }

    private static String m(String content) { return TapRedactor.marker(content.getBytes(TapRedactor.UTF8)); }

    public static void main(String[] args) throws Exception {
        expect(TapRedactor.sha256Hex("abc".getBytes("UTF-8")).equals("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"), "SHA-256 of abc");
        String kept = "{ \"payload\" : {\n \"data\" : { \"imageData\" : \"QUJD\" , \"n\" : 1.50E+2 } } }";
        expect(TapRedactor.redact(kept).equals("{ \"payload\" : {\n \"data\" : { \"imageData\" : " + m("QUJD") + " , \"n\" : 1.50E+2 } } }"), "bytes outside kept");
        expect(TapRedactor.redact("{\"payload\":{\"data\":{\"photo\":\"a\"}},\"payload\":{\"data\":[{\"photo\":\"b\"}]}}")
            .equals("{\"payload\":{\"data\":{\"photo\":" + m("a") + "}},\"payload\":{\"data\":[{\"photo\":" + m("b") + "}]}}"), "duplicates");
        expect(TapRedactor.redact("{\"payload\":{\"data\":{\"ph\\u006fto\":\"\\ud83d\\ude00\"}}}").equals("{\"payload\":{\"data\":{\"ph\\u006fto\":" + m("\ud83d\ude00") + "}}}"), "escapes");
        expect(TapRedactor.redact("{\"payload\":{\"data\":{\"photo\": { \"w\" : [1, 2] } }}}").equals("{\"payload\":{\"data\":{\"photo\": " + m("{\"w\":[1,2]}") + " }}}"), "non-string");
        expect(TapRedactor.redact("{\"payload\":{\"data\":{\"photo\":null}}}").equals("{\"payload\":{\"data\":{\"photo\":null}}}"), "null");
        String once = TapRedactor.redact("{\"payload\":{\"data\":{\"photo\":\"x\"}}}");
        expect(TapRedactor.redact(once).equals(once), "idempotent");
        String bad = "{\"payload\":{\"data\":{\"imageData\":\"QUJD\",}}}";
        expect(TapRedactor.redact(bad).equals(m(bad)), "invalid mentioning a field");
        expect(TapRedactor.redact("not json").equals("not json"), "invalid, nothing sensitive");
        expect(TapRedactor.wellFormed("a\ud800b\udc00\ud83d\ude00").equals("a\ufffdb\ufffd\ud83d\ude00"), "unpaired surrogates");
        StringBuilder deep = new StringBuilder();
        for (int k = 0; k < 62; k++) deep.append('[');
        deep.append("{\"payload\":{\"data\":{\"photo\":\"x\"}}}");
        for (int k = 0; k < 62; k++) deep.append(']');
        expect(TapRedactor.redact(deep.toString()).equals(m(deep.toString())), "depth 65 is invalid");

        File dir = Files.createTempDirectory("tap").toFile();
        TapConfig config = new TapConfig(dir);
        config.maxFileBytes = 4000;
        config.maxFiles = 3;
        BridgeTap tap = new BridgeTap(config);
        for (int k = 0; k < 200; k++) tap.connection("w").webToHost("{\"correlationId\":\"r" + k + "\",\"payload\":{\"action\":\"capability.query\",\"data\":{\"side\":\"front\"}}}");
        tap.close();
        String[] names = dir.list();
        java.util.Arrays.sort(names);
        expect(names.length == 3, "newest 3 files kept: " + names.length);
        for (String n : names) {
            String text = new String(Files.readAllBytes(new File(dir, n).toPath()), "UTF-8");
            expect(text.startsWith("{\"t\":") && text.contains("\"event\":\"tap\",\"tap\":\"java\""), "header in " + n);
            expect(new File(dir, n).length() <= 4000, "size cap " + n);
        }

        File dir2 = Files.createTempDirectory("tap").toFile();
        TapConfig small = new TapConfig(dir2);
        small.maxQueueLines = 5;
        small.writeIntervalMillis = 250;
        BridgeTap t2 = new BridgeTap(small);
        for (int k = 0; k < 1000; k++) t2.connection("w").hostToWeb("{}");
        t2.close();
        String log = new String(Files.readAllBytes(new File(dir2, "bridge-000001.ndjson").toPath()), "UTF-8");
        expect(log.contains("\"event\":\"drop\"") && log.contains("tap queue full"), "drop line");

        File file = File.createTempFile("tap", ".x");
        final StringBuilder errors = new StringBuilder();
        TapConfig broken = new TapConfig(new File(file, "sub"));
        broken.errorListener = new TapConfig.ErrorListener() {
            @Override public void onTapError(String message) { synchronized (errors) { errors.append(message).append('\n'); } }
        };
        BridgeTap t3 = new BridgeTap(broken);
        long start = System.nanoTime();
        for (int k = 0; k < 100; k++) t3.connection("w").hostToWeb("{}");
        expect(System.nanoTime() - start < 2_000_000_000L, "calls return while the directory is unwritable");
        t3.close();
        synchronized (errors) { expect(errors.length() > 0 && errors.toString().contains(file.getPath()), "error reported: " + errors); }
        System.out.println("TapSelfTest: " + checks + " checks passed");
    }
}
