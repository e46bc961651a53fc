package com.bridgescope.tap;

import java.io.File;

/** How a {@link BridgeTap} stores what it records (docs/TAP.md section 3). Public fields, defaults for an app. */
public final class TapConfig {
    /** Receives the writer's failures (a full disk, a directory that cannot be written), once per distinct failure, on the writer's thread. */
    public interface ErrorListener {
        /** Called with what failed, the path and the system's reason. */
        void onTapError(String message);
    }

    /** The directory the files go to (created if missing). */
    public final File directory;
    /** File names are {@code <prefix>-<seq, 6 digits>.ndjson}. */
    public String prefix = "bridge";
    /** Lines the queue holds before messages are dropped (counted). */
    public int maxQueueLines = 4096;
    /** Bytes the queue holds before messages are dropped (counted). */
    public long maxQueueBytes = 16L << 20;
    /** A message whose line is longer is dropped (counted). */
    public int maxLineBytes = 16 << 20;
    /** A file is closed and the next one started before it would grow past this size. */
    public long maxFileBytes = 8L << 20;
    /** The newest files kept. */
    public int maxFiles = 5;
    /** Keeps image and biometric fields instead of replacing them by markers. */
    public boolean keepSensitiveFields = false;
    /** How often the writer looks at the queue, in milliseconds (1..250). */
    public int writeIntervalMillis = 100;
    /** Where failures go (may be null). */
    public ErrorListener errorListener;

    /** A configuration writing to directory with the defaults. */
    public TapConfig(File directory) {
        this.directory = directory;
    }
}
