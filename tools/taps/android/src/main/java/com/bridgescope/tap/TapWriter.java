package com.bridgescope.tap;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

/** The bounded queue and background writer of docs/TAP.md section 3. Guarded by {@code this}. */
final class TapWriter implements Runnable {
    private static final class Entry {
        byte[] bytes; final long time; final String conn; final Tally drop; String text; final String dir;
        Entry(byte[] bytes, long time, String conn, Tally drop) { this.bytes = bytes; this.time = time; this.conn = conn; this.drop = drop; this.dir = null; }
        Entry(String text, String dir, long time, String conn) { this.text = text; this.dir = dir; this.time = time; this.conn = conn; this.drop = null; }
    }

    private static final class Tally {
        final String reason; final String conn; long first; long last; long count; long bytes;
        Tally(String reason, String conn, long time) { this.reason = reason; this.conn = conn; this.first = time; this.last = time; }
    }

    private final TapConfig config;
    private List<Entry> queue = new ArrayList<Entry>();
    private long queuedBytes = 0;
    private final List<Tally> tallies = new ArrayList<Tally>();
    private long enqueued = 0, written = 0;
    private boolean closing = false, finished = false;
    // The writer thread's own.
    private FileChannel channel;
    private long size = 0, headerSize = 0;
    private int seq = 0;
    private final Set<String> reported = new HashSet<String>();

    TapWriter(TapConfig config) {
        this.config = config;
        Thread thread = new Thread(this, "bridgescope-tap-writer");
        thread.setDaemon(true);
        thread.start();
    }

    /** Queues a message (null: recorded as unrecordable); its line is built on the writer thread. */
    synchronized void enqueue(String text, String dir, long time, String conn) {
        if (closing) return;
        long size = (text == null ? 0 : 3L * text.length()) + conn.length() + 64;   // UTF-8 bound
        if (text != null && size > config.maxLineBytes && messageLine(time, dir, conn, text).length > config.maxLineBytes) {
            tally("message larger than the limit of " + config.maxLineBytes + " bytes", text.length(), time, conn);
        } else if (queue.size() >= config.maxQueueLines || queuedBytes + size > config.maxQueueBytes) {
            tally("tap queue full", text == null ? 0 : text.length(), time, conn);
        } else {
            if (!tallies.isEmpty()) appendDropLines();
            queue.add(new Entry(text, dir, time, conn));
            queuedBytes += size;
            enqueued++;
        }
    }

    /** Builds a queued message's line (redaction included), off the caller's thread. */
    private void render(Entry e) {
        if (e.bytes != null) return;
        if (e.text == null) { e.bytes = unrecordable(e.time, e.dir, e.conn, "the message was null"); return; }
        String t = TapRedactor.wellFormed(e.text);
        if (!config.keepSensitiveFields) t = TapRedactor.redact(t);
        e.bytes = messageLine(e.time, e.dir, e.conn, t);
        e.text = null;
    }

    synchronized void flush() {
        if (!tallies.isEmpty()) appendDropLines();
        long target = enqueued;
        notifyAll();
        while (written < target && !finished) {
            try { wait(); } catch (InterruptedException e) { Thread.currentThread().interrupt(); return; }
        }
    }

    synchronized void close() {
        if (!tallies.isEmpty()) appendDropLines();
        closing = true;
        notifyAll();
        while (!finished) {
            try { wait(); } catch (InterruptedException e) { Thread.currentThread().interrupt(); return; }
        }
    }

    private void tally(String reason, long bytes, long time, String conn) {
        for (Tally t : tallies) {
            if (t.reason.equals(reason)) { t.count++; t.bytes += bytes; t.last = time; return; }
        }
        Tally t = new Tally(reason, conn, time);
        t.count = 1; t.bytes = bytes;
        tallies.add(t);
    }

    private void restore(Tally d) {
        for (Tally t : tallies) {
            if (t.reason.equals(d.reason)) {
                t.count += d.count; t.bytes += d.bytes; t.first = Math.min(t.first, d.first); t.last = Math.max(t.last, d.last);
                return;
            }
        }
        tallies.add(d);
    }

    private void appendDropLines() {
        for (Tally t : tallies) {
            byte[] line = dropLine(t);
            queue.add(new Entry(line, t.first, t.conn, t));
            queuedBytes += line.length;
            enqueued++;
        }
        tallies.clear();
    }

    @Override public void run() {
        long interval = Math.min(Math.max(config.writeIntervalMillis, 1), 250);
        while (true) {
            List<Entry> batch;
            boolean stop;
            synchronized (this) {
                if (queue.isEmpty() && !closing) {
                    try { wait(interval); } catch (InterruptedException e) { /* go on */ }
                }
                batch = queue;
                stop = closing;
                queue = new ArrayList<Entry>();
                queuedBytes = 0;
            }
            for (Entry e : batch) {
                try { render(e); } catch (Throwable x) { e.bytes = unrecordable(e.time, e.dir, e.conn, "the tap failed on this message: " + x); }
            }
            List<Object[]> failed = write(batch);
            synchronized (this) {
                written += batch.size();
                for (Object[] f : failed) {
                    Entry e = (Entry) f[0];
                    if (e.drop != null) restore(e.drop); else tally("write failed: " + f[1], e.bytes.length, e.time, e.conn);
                }
                if (stop && queue.isEmpty()) {
                    if (!tallies.isEmpty()) {
                        appendDropLines();
                        List<Entry> last = queue;
                        queue = new ArrayList<Entry>();
                        write(last);
                        written += last.size();
                    }
                    closeFile();
                    finished = true;
                    notifyAll();
                    return;
                }
                notifyAll();
            }
        }
    }

    void report(String message) {
        synchronized (reported) {
            if (!reported.add(message)) return;
        }
        TapConfig.ErrorListener l = config.errorListener;
        if (l != null) {
            try { l.onTapError(message); } catch (Throwable ignored) { /* the app's listener never stops the writer */ }
        }
    }

    // ---- files (writer thread only) ----

    private List<Object[]> write(List<Entry> entries) {
        List<Object[]> failed = new ArrayList<Object[]>();
        int k = 0;
        while (k < entries.size()) {
            String reason = prepare(entries.get(k).bytes.length, entries.get(k).time);
            if (reason != null) {
                for (int j = k; j < entries.size(); j++) failed.add(new Object[] {entries.get(j), reason});
                return failed;
            }
            int end = k;
            long chunk = 0;
            while (end < entries.size() && (end == k || size + chunk + entries.get(end).bytes.length <= config.maxFileBytes)) {
                chunk += entries.get(end).bytes.length;
                end++;
            }
            byte[] bytes = new byte[(int) chunk];
            int at = 0;
            for (int j = k; j < end; j++) { byte[] b = entries.get(j).bytes; System.arraycopy(b, 0, bytes, at, b.length); at += b.length; }
            reason = writeAll(bytes);
            if (reason != null) {
                for (int j = k; j < end; j++) failed.add(new Object[] {entries.get(j), reason});
            } else {
                size += chunk;
                synchronized (reported) { reported.clear(); }
            }
            k = end;
        }
        return failed;
    }

    private String prepare(int count, long time) {
        if (channel != null && size + count > config.maxFileBytes && size > headerSize) closeFile();
        if (channel != null) return null;
        File dir = config.directory;
        if (!dir.isDirectory() && !dir.mkdirs() && !dir.isDirectory()) {
            return fail("cannot create the tap directory " + dir + ": mkdirs failed");
        }
        boolean first = seq == 0;
        if (first) { TreeMap<Integer, File> e = existing(); seq = e.isEmpty() ? 0 : e.lastKey(); }
        seq++;
        File file = new File(dir, name(seq));
        try {
            channel = new FileOutputStream(file, true).getChannel();
        } catch (IOException e) {
            seq = first ? 0 : seq - 1;
            return fail("cannot open " + file + ": " + e.getMessage());
        }
        size = 0;
        byte[] header = ("{\"t\":" + time + ",\"event\":\"tap\",\"tap\":\"java\",\"version\":1,\"seq\":" + seq + ",\"first\":" + first
            + ",\"redacted\":" + !config.keepSensitiveFields + "}\n").getBytes(TapRedactor.UTF8);
        String reason = writeAll(header);
        if (reason != null) { closeFile(); return reason; }
        size = header.length;
        headerSize = header.length;
        TreeMap<Integer, File> all = existing();
        while (all.size() > Math.max(config.maxFiles, 1)) {
            File oldest = all.remove(all.firstKey());
            if (!oldest.delete()) fail("cannot delete " + oldest);
        }
        return null;
    }

    private String name(int s) {
        String digits = Integer.toString(s);
        StringBuilder b = new StringBuilder(config.prefix).append('-');
        for (int k = digits.length(); k < 6; k++) b.append('0');
        return b.append(digits).append(".ndjson").toString();
    }

    private TreeMap<Integer, File> existing() {
        TreeMap<Integer, File> out = new TreeMap<Integer, File>();
        String[] names = config.directory.list();
        if (names == null) return out;
        String head = config.prefix + "-";
        for (String n : names) {
            if (!n.startsWith(head) || !n.endsWith(".ndjson")) continue;
            String middle = n.substring(head.length(), n.length() - ".ndjson".length());
            if (middle.length() < 6 || !middle.matches("[0-9]+")) continue;
            try {
                int s = Integer.parseInt(middle);
                if (s > 0) out.put(s, new File(config.directory, n));
            } catch (NumberFormatException ignored) { /* not ours */ }
        }
        return out;
    }

    private String writeAll(byte[] bytes) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        try {
            while (buffer.hasRemaining()) channel.write(buffer);
            return null;
        } catch (IOException e) {
            try { if (buffer.position() > 0) channel.truncate(size); } catch (IOException ignored) { /* reported below */ }
            return fail("cannot write " + new File(config.directory, name(seq)) + ": " + e.getMessage());
        }
    }

    private String fail(String message) {
        report(message);
        return message;
    }

    private void closeFile() {
        if (channel != null) {
            try { channel.close(); } catch (IOException ignored) { /* nothing left to do */ }
        }
        channel = null;
    }

    // ---- lines ----

    static byte[] messageLine(long time, String dir, String conn, String text) {
        StringBuilder b = new StringBuilder(text.length() + conn.length() + 64);
        b.append("{\"t\":").append(time).append(",\"dir\":\"").append(dir).append("\",\"conn\":");
        appendString(b, conn);
        b.append(",\"text\":");
        appendString(b, text);
        return b.append("}\n").toString().getBytes(TapRedactor.UTF8);
    }

    static byte[] unrecordable(long time, String dir, String conn, String reason) {
        StringBuilder b = new StringBuilder();
        b.append("{\"t\":").append(time).append(",\"dir\":\"").append(dir).append("\",\"conn\":");
        appendString(b, conn);
        b.append(",\"unrecordable\":");
        appendString(b, reason);
        return b.append("}\n").toString().getBytes(TapRedactor.UTF8);
    }

    private static byte[] dropLine(Tally t) {
        StringBuilder b = new StringBuilder();
        b.append("{\"t\":").append(t.first).append(",\"event\":\"drop\",\"conn\":");
        appendString(b, t.conn);
        b.append(",\"count\":").append(t.count).append(",\"bytes\":").append(t.bytes).append(",\"reason\":");
        appendString(b, t.reason + ": " + t.count + " messages (" + t.bytes + " bytes) from " + t.first + " to " + t.last + " not recorded");
        return b.append("}\n").toString().getBytes(TapRedactor.UTF8);
    }

    /** A JSON string: quote, backslash and controls escaped; the text is well-formed UTF-16. */
    static void appendString(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                case '\t': b.append("\\t"); break;
                case '\b': b.append("\\b"); break;
                case '\f': b.append("\\f"); break;
                default:
                    if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
                    else if (Character.isSurrogate(c) && !(Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1)))
                        && !(Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(s.charAt(i - 1)))) b.append('\uFFFD');
                    else b.append(c);
            }
        }
        b.append('"');
    }
}
