/// Helpers shared by the test targets.
public enum BridgeTestSupportInfo {
    /// The project root, derived from this file.
    public static let marker = "bridgescope"
}
