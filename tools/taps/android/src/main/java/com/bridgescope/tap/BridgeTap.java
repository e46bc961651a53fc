package com.bridgescope.tap;

/**
 * Records what crosses the bridge inside a shipped Android app to a tap log (docs/TAP.md),
 * so a session that failed on a customer's phone can be sent to support and analyzed with
 * {@code bridgescope record --tap}. Calls never block and never throw: each takes the time
 * and hands the message to a bounded queue; a background thread builds its line (image and
 * biometric fields replaced unless {@link TapConfig#keepSensitiveFields}) and writes it
 * within {@link TapConfig#writeIntervalMillis}; what the queue cannot take is counted and
 * written as a drop line.
 */
public final class BridgeTap {
    private final TapWriter writer;

    /** Starts a tap; failures go to the config's listener, never thrown. */
    public BridgeTap(TapConfig config) {
        this.writer = new TapWriter(config);
    }

    /** The handle for one WebView. */
    public TapConnection connection(String id) {
        return new TapConnection(this, id == null ? "null" : id);
    }

    /** Blocks until every line recorded before the call is in its file. */
    public void flush() { writer.flush(); }

    /** Writes what is queued and closes the file; later calls record nothing. */
    public void close() { writer.close(); }

    void record(String text, String dir, String conn) {
        long time = System.currentTimeMillis();
        try {
            writer.enqueue(text, dir, time, conn);
        } catch (Throwable e) {
            writer.report("the tap failed on a message: " + e);
        }
    }
}
