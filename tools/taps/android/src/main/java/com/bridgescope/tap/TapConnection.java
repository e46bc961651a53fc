package com.bridgescope.tap;

/** One WebView's side of a {@link BridgeTap}: its lines carry its id as {@code conn}. */
public final class TapConnection {
    private final BridgeTap tap;
    private final String id;

    TapConnection(BridgeTap tap, String id) {
        this.tap = tap;
        this.id = id;
    }

    /** The {@code conn} of this connection's lines. */
    public String id() { return id; }

    /** Records what the page posted to the host: the string {@code @JavascriptInterface postMessage(String)} received. Never throws or blocks. */
    public void webToHost(String json) { tap.record(json, "w2h", id); }

    /** Records what the host sends to the page: the JSON text passed to {@code evaluateJavascript}. Never throws or blocks. */
    public void hostToWeb(String json) { tap.record(json, "h2w", id); }
}
