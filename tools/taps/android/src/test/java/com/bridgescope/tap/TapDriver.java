package com.bridgescope.tap;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

/**
 * Test driver with the Swift and JavaScript drivers' contract:
 * {@code TapDriver --dir DIR [--prefix P] [--keep] [--max-file-bytes N] [--max-files N] [--queue-lines N]}
 * reads lines {@code w2h|h2w <conn> <base64 of the message's UTF-16BE code units>} from standard
 * input (code units taken as they are, so unpaired surrogates reach the tap), hands each to the
 * tap, and at end of input closes it and exits 0. Tap errors go to standard error as {@code tap error: ...}.
 */
public final class TapDriver {
    private TapDriver() {}

    public static void main(String[] args) throws Exception {
        String dir = null;
        TapConfig config = null;
        Map<String, String> options = new HashMap<String, String>();
        boolean keep = false;
        for (int k = 0; k < args.length; k++) {
            if (args[k].equals("--keep")) keep = true;
            else if (k + 1 < args.length) options.put(args[k], args[++k]);
        }
        dir = options.get("--dir");
        if (dir == null) {
            System.err.println("usage: TapDriver --dir DIR [--prefix P] [--keep] [--max-file-bytes N] [--max-files N] [--queue-lines N]");
            System.exit(2);
        }
        config = new TapConfig(new File(dir));
        config.keepSensitiveFields = keep;
        if (options.containsKey("--prefix")) config.prefix = options.get("--prefix");
        if (options.containsKey("--max-file-bytes")) config.maxFileBytes = Long.parseLong(options.get("--max-file-bytes"));
        if (options.containsKey("--max-files")) config.maxFiles = Integer.parseInt(options.get("--max-files"));
        if (options.containsKey("--queue-lines")) config.maxQueueLines = Integer.parseInt(options.get("--queue-lines"));
        config.errorListener = new TapConfig.ErrorListener() {
            @Override public void onTapError(String message) { System.err.println("tap error: " + message); }
        };
        BridgeTap tap = new BridgeTap(config);
        Map<String, TapConnection> connections = new HashMap<String, TapConnection>();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "US-ASCII"), 1 << 20);
        String line;
        while ((line = in.readLine()) != null) {
            String[] parts = line.split(" ", -1);
            if (parts.length != 3) { System.err.println("bad driver line"); System.exit(2); }
            byte[] b = Base64.getDecoder().decode(parts[2]);
            char[] units = new char[b.length / 2];
            for (int k = 0; k < units.length; k++) units[k] = (char) ((b[2 * k] & 0xFF) << 8 | (b[2 * k + 1] & 0xFF));
            TapConnection c = connections.get(parts[1]);
            if (c == null) { c = tap.connection(parts[1]); connections.put(parts[1], c); }
            if (parts[0].equals("w2h")) c.webToHost(new String(units)); else c.hostToWeb(new String(units));
        }
        tap.close();
    }
}
