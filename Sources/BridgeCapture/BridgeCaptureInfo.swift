/// Capture decoding (issue 6): placeholder until the module lands.
public enum BridgeCaptureInfo {}
