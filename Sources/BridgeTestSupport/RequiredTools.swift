import Foundation

/// The programs from outside the project that some tests run (Chromium, node), and whether
/// a missing one fails those tests or skips them.
///
/// `make test` sets `BRIDGESCOPE_REQUIRE_BROWSER=1` (as it sets `BRIDGESCOPE_REQUIRE_WEBKIT=1`
/// for the WebKit shell, Tests/bridgescopeTests/WebKitSupport.swift): the tests gated on
/// ``chromiumEnabled`` or ``nodeEnabled`` then run, and fail, when Chromium or node is
/// missing. Without it (a plain `swift test`) they are skipped.
public enum RequiredTools {
    /// Set by `make test`: Chromium and node are required.
    public static let browserRequired = ProcessInfo.processInfo.environment["BRIDGESCOPE_REQUIRE_BROWSER"] != nil

    /// Where a Chromium is looked for.
    public static let chromiumCandidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
    /// The Chromium found, if any.
    public static let chromium = chromiumCandidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    /// Whether the tests that need Chromium run: it is installed, or it is required.
    public static let chromiumEnabled = chromium != nil || browserRequired

    /// The node found, if any.
    public static let node = ["/usr/bin/node", "/usr/local/bin/node"].first { FileManager.default.isExecutableFile(atPath: $0) }
    /// Whether the tests that need node run: it is installed, or it is required.
    public static let nodeEnabled = node != nil || browserRequired
}
