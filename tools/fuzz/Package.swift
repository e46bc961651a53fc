// swift-tools-version:6.1
// libFuzzer targets for bridgescope (docs/FUZZING.md). Each target's main.swift is only
// the @_cdecl shims calling one function of BridgeFuzz.FuzzHarness in the main package.
// Build ONLY with:  swift build -c release --sanitize=fuzzer --sanitize=address
// (`-Xswiftc -sanitize=fuzzer` alone links but runs no fuzzing: ../shared/FIELD-NOTES.md).
import PackageDescription

let shim: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "bridgescope-fuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "bridgescope", path: "../.."),
    ],
    targets: [
        .executableTarget(name: "fuzz-json", dependencies: [.product(name: "BridgeFuzz", package: "bridgescope")], swiftSettings: shim),
        .executableTarget(name: "fuzz-envelope", dependencies: [.product(name: "BridgeFuzz", package: "bridgescope")], swiftSettings: shim),
        .executableTarget(name: "fuzz-host", dependencies: [.product(name: "BridgeFuzz", package: "bridgescope")], swiftSettings: shim),
        .executableTarget(name: "fuzz-archive", dependencies: [.product(name: "BridgeFuzz", package: "bridgescope")], swiftSettings: shim),
        .executableTarget(name: "fuzz-websocket", dependencies: [.product(name: "BridgeFuzz", package: "bridgescope")], swiftSettings: shim),
    ]
)
