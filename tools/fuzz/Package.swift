// swift-tools-version:6.1
// libFuzzer targets for bridgescope (docs/FUZZING.md). Each target's main.swift is only
// the @_cdecl shims calling one function of BridgeFuzz.FuzzHarness in the main package.
// Build ONLY with:  BRIDGESCOPE_LIBFUZZER=1 swift build -c release
// The variable makes the main package instrument the code under test (BridgeJSON,
// BridgeProtocol, BridgeHost, BridgeArchive, BridgeWebSocket) for libFuzzer and ASan, and
// nothing else; the shims below are instrumented and linked with libFuzzer and ASan.
// Without it the targets would link libFuzzer and see no coverage: tools/nightly-fuzz.sh
// checks that coverage grows (see docs/FUZZING.md).
import PackageDescription

let shim: [SwiftSetting] = [.swiftLanguageMode(.v6), .unsafeFlags(["-sanitize=fuzzer,address"])]
let link: [LinkerSetting] = [.unsafeFlags(["-sanitize=fuzzer,address"])]

let package = Package(
    name: "bridgescope-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "bridgescope", path: "../.."),
    ],
    targets: [
        // The entry into libFuzzer shared by the shims.
        .target(name: "LibFuzzerDriver", swiftSettings: shim),
        .executableTarget(name: "fuzz-json", dependencies: ["LibFuzzerDriver", .product(name: "BridgeFuzz", package: "bridgescope")], swiftSettings: shim, linkerSettings: link),
        .executableTarget(name: "fuzz-envelope", dependencies: ["LibFuzzerDriver", .product(name: "BridgeFuzz", package: "bridgescope")], swiftSettings: shim, linkerSettings: link),
        .executableTarget(name: "fuzz-host", dependencies: ["LibFuzzerDriver", .product(name: "BridgeFuzz", package: "bridgescope")], swiftSettings: shim, linkerSettings: link),
        .executableTarget(name: "fuzz-archive", dependencies: ["LibFuzzerDriver", .product(name: "BridgeFuzz", package: "bridgescope")], swiftSettings: shim, linkerSettings: link),
        .executableTarget(name: "fuzz-websocket", dependencies: ["LibFuzzerDriver", .product(name: "BridgeFuzz", package: "bridgescope")], swiftSettings: shim, linkerSettings: link),
    ]
)
