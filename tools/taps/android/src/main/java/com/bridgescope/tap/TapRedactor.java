package com.bridgescope.tap;

import java.nio.charset.Charset;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Replaces image and biometric fields of a bridge message with a marker that keeps their
 * length and SHA-256 (docs/TAP.md section 2): the same steps as the Swift TapRedactor and
 * the JavaScript tap, so the three taps record identical bytes. Every character outside a
 * replaced value is kept.
 */
public final class TapRedactor {
    /** The sensitive field names (PROTOCOL.md section 6): a copy of TapRedactor.sensitiveFields in Sources/BridgeTap, which a test compares. */
    public static final List<String> SENSITIVE_FIELDS = Collections.unmodifiableList(
        Arrays.asList("imageData", "previewImageData", "encryptedBlob", "unencryptedBlob", "photo"));

    static final Charset UTF8 = Charset.forName("UTF-8");
    private static final Pattern MARKER = Pattern.compile("\\{\"redacted\":true,\"sha256\":\"[0-9a-f]{64}\",\"bytes\":(0|[1-9][0-9]*)\\}");
    private static final int MAX_DEPTH = 64;

    private TapRedactor() {}

    /** Replaces unpaired UTF-16 surrogates by U+FFFD (what any UTF-8 reader of the message gets). */
    public static String wellFormed(String s) {
        char[] out = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!Character.isSurrogate(c)) continue;
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) { i++; continue; }
            if (out == null) out = s.toCharArray();
            out[i] = '\uFFFD';
        }
        return out == null ? s : new String(out);
    }

    /** Redacts a message (already well-formed); returns the text to record. */
    public static String redact(String text) {
        List<int[]> spans = new ArrayList<int[]>();
        List<byte[]> contents = new ArrayList<byte[]>();
        Scanner scanner = new Scanner(text, spans, contents);
        if (!scanner.scan()) {
            for (String f : SENSITIVE_FIELDS) {
                if (text.contains(f)) return marker(text.getBytes(UTF8));
            }
            return text;
        }
        if (spans.isEmpty()) return text;
        StringBuilder out = new StringBuilder(text.length());
        int from = 0;
        for (int k = 0; k < spans.size(); k++) {
            out.append(text, from, spans.get(k)[0]).append(marker(contents.get(k)));
            from = spans.get(k)[1];
        }
        return out.append(text, from, text.length()).toString();
    }

    /** The marker for content (docs/TAP.md section 2, step 4). */
    public static String marker(byte[] content) {
        return "{\"redacted\":true,\"sha256\":\"" + sha256Hex(content) + "\",\"bytes\":" + content.length + "}";
    }

    static String sha256Hex(byte[] content) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(content);
            StringBuilder hex = new StringBuilder(64);
            for (byte b : d) { hex.append(Character.forDigit((b >> 4) & 15, 16)).append(Character.forDigit(b & 15, 16)); }
            return hex.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** A valid JSON value without whitespace outside strings. */
    static String compact(String v) {
        StringBuilder out = new StringBuilder(v.length());
        boolean inString = false, escaped = false;
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (inString) {
                if (escaped) escaped = false; else if (c == '\\') escaped = true; else if (c == '"') inString = false;
                out.append(c);
            } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                if (c == '"') inString = true;
                out.append(c);
            }
        }
        return out.toString();
    }

    /** The strict scanner of step 1: validates and records the values to replace. */
    private static final class Scanner {
        private static final int TOP = 0, PAYLOAD = 1, DATA = 2, OTHER = 3;
        private final String t;
        private final int n;
        private final List<int[]> spans;
        private final List<byte[]> contents;
        private int i = 0;

        Scanner(String t, List<int[]> spans, List<byte[]> contents) {
            this.t = t; this.n = t.length(); this.spans = spans; this.contents = contents;
        }

        boolean scan() {
            try {
                ws(); value(TOP, 1); ws();
                return i == n;
            } catch (Invalid e) {
                return false;
            }
        }

        /** Thrown at the first byte that breaks the grammar (no stack trace: it is control flow; the 4-argument Throwable constructor needs Android API 24). */
        private static final class Invalid extends Exception {
            private static final long serialVersionUID = 1L;
            @Override public synchronized Throwable fillInStackTrace() { return this; }
        }

        private void ws() {
            while (i < n) { char c = t.charAt(i); if (c == ' ' || c == '\t' || c == '\n' || c == '\r') i++; else return; }
        }

        private void value(int place, int depth) throws Invalid {
            if (i >= n) throw new Invalid();
            char c = t.charAt(i);
            if (c == '{') object(place, depth);
            else if (c == '[') array(place, depth);
            else if (c == '"') string();
            else if (t.startsWith("true", i) || t.startsWith("null", i)) i += 4;
            else if (t.startsWith("false", i)) i += 5;
            else number();
        }

        private void object(int place, int depth) throws Invalid {
            if (depth > MAX_DEPTH) throw new Invalid();
            i++; ws();
            if (i < n && t.charAt(i) == '}') { i++; return; }
            while (true) {
                if (i >= n || t.charAt(i) != '"') throw new Invalid();
                String key = string();
                ws();
                if (i >= n || t.charAt(i) != ':') throw new Invalid();
                i++; ws();
                int start = i;
                if (place == TOP) value("payload".equals(key) ? PAYLOAD : OTHER, depth + 1);
                else if (place == PAYLOAD) value("data".equals(key) ? DATA : OTHER, depth + 1);
                else if (place == DATA && SENSITIVE_FIELDS.contains(key) && !t.startsWith("null", start)) {
                    value(OTHER, depth + 1);
                    if (t.charAt(start) == '"') {
                        int end = i;
                        i = start;
                        byte[] content = string().getBytes(UTF8);
                        i = end;
                        spans.add(new int[] {start, end});
                        contents.add(content);
                    } else {
                        String compacted = compact(t.substring(start, i));
                        if (!MARKER.matcher(compacted).matches()) {
                            spans.add(new int[] {start, i});
                            contents.add(compacted.getBytes(UTF8));
                        }
                    }
                } else value(place == DATA ? DATA : OTHER, depth + 1);
                ws();
                if (i >= n) throw new Invalid();
                char d = t.charAt(i);
                if (d == ',') { i++; ws(); continue; }
                if (d != '}') throw new Invalid();
                i++;
                return;
            }
        }

        private void array(int place, int depth) throws Invalid {
            if (depth > MAX_DEPTH) throw new Invalid();
            i++; ws();
            if (i < n && t.charAt(i) == ']') { i++; return; }
            while (true) {
                value(place == DATA ? DATA : OTHER, depth + 1);
                ws();
                if (i >= n) throw new Invalid();
                char d = t.charAt(i);
                if (d == ',') { i++; ws(); continue; }
                if (d != ']') throw new Invalid();
                i++;
                return;
            }
        }

        /** At the opening quote: returns the unescaped string (well-formed, so its UTF-8 is exact). */
        private String string() throws Invalid {
            i++;
            StringBuilder out = new StringBuilder();
            int run = i;
            while (i < n) {
                char c = t.charAt(i);
                if (c == '"') { out.append(t, run, i); i++; return out.toString(); }
                if (c == '\\') {
                    out.append(t, run, i);
                    if (i + 1 >= n) throw new Invalid();
                    char e = t.charAt(i + 1);
                    switch (e) {
                        case '"': out.append('"'); i += 2; break;
                        case '\\': out.append('\\'); i += 2; break;
                        case '/': out.append('/'); i += 2; break;
                        case 'b': out.append('\b'); i += 2; break;
                        case 'f': out.append('\f'); i += 2; break;
                        case 'n': out.append('\n'); i += 2; break;
                        case 'r': out.append('\r'); i += 2; break;
                        case 't': out.append('\t'); i += 2; break;
                        case 'u': {
                            int u = hex4(i + 2);
                            i += 6;
                            if (u >= 0xDC00 && u <= 0xDFFF) throw new Invalid();
                            if (u >= 0xD800 && u <= 0xDBFF) {
                                if (i + 1 >= n || t.charAt(i) != '\\' || t.charAt(i + 1) != 'u') throw new Invalid();
                                int lo = hex4(i + 2);
                                if (lo < 0xDC00 || lo > 0xDFFF) throw new Invalid();
                                i += 6;
                                out.append((char) u).append((char) lo);
                            } else out.append((char) u);
                            break;
                        }
                        default: throw new Invalid();
                    }
                    run = i;
                    continue;
                }
                if (c < 0x20) throw new Invalid();
                i++;
            }
            throw new Invalid();
        }

        private int hex4(int j) throws Invalid {
            if (j + 4 > n) throw new Invalid();
            int v = 0;
            for (int k = j; k < j + 4; k++) {
                int d = Character.digit(t.charAt(k), 16);
                if (d < 0 || t.charAt(k) > 'f') throw new Invalid();
                v = v << 4 | d;
            }
            return v;
        }

        private boolean digit(int j) { return j < n && t.charAt(j) >= '0' && t.charAt(j) <= '9'; }

        private void number() throws Invalid {
            if (i < n && t.charAt(i) == '-') i++;
            if (!digit(i)) throw new Invalid();
            if (t.charAt(i) == '0') i++; else while (digit(i)) i++;
            if (i < n && t.charAt(i) == '.') { i++; if (!digit(i)) throw new Invalid(); while (digit(i)) i++; }
            if (i < n && (t.charAt(i) == 'e' || t.charAt(i) == 'E')) {
                i++;
                if (i < n && (t.charAt(i) == '+' || t.charAt(i) == '-')) i++;
                if (!digit(i)) throw new Invalid();
                while (digit(i)) i++;
            }
        }
    }
}
