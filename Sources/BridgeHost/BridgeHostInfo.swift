/// The reference host (issue 4).
public enum BridgeHostInfo {
    /// Default host version reported by capability.query.
    public static let defaultHostVersion = "1.0.0"
}
