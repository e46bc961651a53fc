import BridgeTestSupport
import Foundation
import Testing

/// Where a Chromium is looked for.
let chromiumCandidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
let chromiumPresent = chromiumCandidates.contains { FileManager.default.isExecutableFile(atPath: $0) }

// The sample journeys in Chromium (and on WebKit) are EngineJourneyTests: every journey
// on both engines, with the assertions these tests made (passport's exchange, degradation
// with NFC missing or off, the denied camera).
