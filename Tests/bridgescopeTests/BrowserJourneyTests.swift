import BridgeTestSupport
import Foundation
import Testing

/// Where a Chromium is looked for.
let chromiumCandidates = RequiredTools.chromiumCandidates
let chromiumPresent = RequiredTools.chromium != nil
/// Whether the Chromium tests run: Chromium is installed, or `make test` requires it
/// (BRIDGESCOPE_REQUIRE_BROWSER): then they fail without it, rather than skip.
let chromiumEnabled = RequiredTools.chromiumEnabled

// The sample journeys in Chromium (and on WebKit) are EngineJourneyTests: every journey
// on both engines, with the assertions these tests made (passport's exchange, degradation
// with NFC missing or off, the denied camera).
