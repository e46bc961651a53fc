/// Placeholder until the protocol model lands.
public enum BridgeProtocolVersion { /// The protocol version string.
 public static let current = "1.0" }
