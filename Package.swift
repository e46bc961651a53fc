// swift-tools-version:6.1
// bridgescope: records, analyzes, replays and fuzzes GBGBridge envelope traffic.
// Module map and dependency rules: README.md ("Modules").
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
]

/// The code under test of the libFuzzer targets (tools/fuzz), plus BridgeFuzz, their
/// harness (release builds inline small functions of the modules under test into it):
/// with `BRIDGESCOPE_LIBFUZZER=1` in the environment (tools/fuzz builds only) these
/// modules, and only these, get libFuzzer's coverage instrumentation and ASan.
/// Instrumenting the whole graph (`swift build --sanitize=fuzzer`) also counted edges in
/// SwiftNIO: 253,289 counters that libFuzzer scans and clears on every execution, a
/// quarter of its time (docs/FUZZING.md, "libFuzzer targets").
let underTest: [SwiftSetting] = Context.environment["BRIDGESCOPE_LIBFUZZER"] == "1"
    ? strict + [.unsafeFlags(["-sanitize=fuzzer,address"])]
    : strict

let package = Package(
    name: "bridgescope",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "bridgescope", targets: ["bridgescope"]),
        .library(name: "BridgeJSON", targets: ["BridgeJSON"]),
        .library(name: "BridgeProtocol", targets: ["BridgeProtocol"]),
        .library(name: "BridgeHost", targets: ["BridgeHost"]),
        .library(name: "BridgeArchive", targets: ["BridgeArchive"]),
        .library(name: "BridgeAnalysis", targets: ["BridgeAnalysis"]),
        .library(name: "BridgeServer", targets: ["BridgeServer"]),
        .library(name: "BridgeTransport", targets: ["BridgeTransport"]),
        .library(name: "BridgeReport", targets: ["BridgeReport"]),
        .library(name: "BridgeWebSocket", targets: ["BridgeWebSocket"]),
        .library(name: "BridgeReplay", targets: ["BridgeReplay"]),
        .library(name: "BridgeFuzz", targets: ["BridgeFuzz"]),
        .library(name: "BridgeModel", targets: ["BridgeModel"]),
        .library(name: "BridgeConformance", targets: ["BridgeConformance"]),
        .library(name: "BridgeOTLP", targets: ["BridgeOTLP"]),
        // The field tap an iOS app links: the standard library and Foundation only.
        .library(name: "BridgeTap", targets: ["BridgeTap"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.1.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
        // The runtime only: the OTLP messages are generated once and committed
        // (Sources/BridgeOTLP/Generated, tools/otlp/generate.sh); no build plugin.
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
    ],
    targets: [
        // System libraries: each imported by exactly one module.
        .systemLibrary(name: "CZstd", providers: [.apt(["libzstd-dev"])]),
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CTurboJPEG", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CPcap", providers: [.apt(["libpcap-dev"])]),

        .target(name: "BridgeJSON", swiftSettings: underTest),
        .target(name: "BridgeProtocol", dependencies: ["BridgeJSON"], swiftSettings: underTest),
        .target(name: "BridgeReport", swiftSettings: strict),
        .target(name: "BridgeTap", swiftSettings: strict),
        .target(name: "BridgeClock", swiftSettings: strict),
        .target(
            name: "BridgeHost",
            dependencies: [
                "BridgeJSON", "BridgeProtocol", "BridgeClock", "CZlib", "CTurboJPEG",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: underTest
        ),
        .target(
            name: "BridgeArchive",
            dependencies: ["BridgeJSON", "BridgeReport", "BridgeClock", "CZstd", .product(name: "Logging", package: "swift-log")],
            swiftSettings: underTest
        ),
        .target(
            name: "BridgeAnalysis",
            dependencies: [
                "BridgeReport", "BridgeProtocol", "BridgeJSON", "BridgeArchive",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            swiftSettings: underTest
        ),
        .target(
            name: "BridgeWebSocket",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            swiftSettings: underTest
        ),
        .target(
            name: "BridgeTransport",
            dependencies: [
                "BridgeWebSocket",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "BridgeServer",
            dependencies: [
                "BridgeJSON", "BridgeProtocol", "BridgeHost", "BridgeClock", "BridgeTransport", "BridgeWebSocket",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "BridgeCapture",
            dependencies: [
                "BridgeArchive", "BridgeProtocol", "BridgeWebSocket", "BridgeJSON", "BridgeTap",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "BridgePcap",
            dependencies: [
                "BridgeClock",
                "BridgeCapture", "BridgeArchive", "BridgeProtocol", "CPcap",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "BridgeDevTools",
            dependencies: [
                "BridgeClock",
                "BridgeCapture", "BridgeArchive", "BridgeJSON", "BridgeTransport",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "BridgeProxy",
            dependencies: [
                "BridgeClock",
                "BridgeCapture", "BridgeArchive", "BridgeTransport", "BridgeWebSocket",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "BridgeReplay",
            dependencies: [
                "BridgeModel", "BridgeReport", "BridgeHost", "BridgeClock", "BridgeServer", "BridgeTransport", "BridgeArchive", "BridgeProtocol", "BridgeJSON",
                "BridgeWebSocket", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The protocol model and the checker that judges a host by explanation
        // (docs/CONFORMANCE.md, "The model"): used by fuzz, replay and conform.
        .target(name: "BridgeModel", dependencies: ["BridgeJSON", "BridgeProtocol", "BridgeHost"], swiftSettings: strict),
        .target(
            name: "BridgeFuzz",
            dependencies: [
                "BridgeModel", "BridgeReport", "BridgeHost", "BridgeProtocol", "BridgeJSON", "BridgeTransport", "BridgeWebSocket", "BridgeArchive",
            ],
            swiftSettings: strict
        ),
        // The conformance suite (`bridgescope conform`, docs/CONFORMANCE.md).
        .target(
            name: "BridgeConformance",
            dependencies: ["BridgeClock", "BridgeFuzz", "BridgeModel", "BridgeReport", "BridgeJSON"],
            swiftSettings: strict
        ),
        .target(
            name: "BridgeOTLP",
            dependencies: [
                "BridgeAnalysis", "BridgeArchive", "BridgeProtocol",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Generated/README.md"],
            swiftSettings: strict
        ),
        .target(
            name: "BridgeTestSupport",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "bridgescope",
            dependencies: [
                "BridgeJSON", "BridgeProtocol", "BridgeHost", "BridgeClock", "BridgeArchive", "BridgeServer", "BridgeCapture", "BridgePcap", "BridgeProxy", "BridgeDevTools", "BridgeTransport",
                "BridgeAnalysis", "BridgeReplay", "BridgeFuzz", "BridgeOTLP", "BridgeConformance",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "BridgeJSONTests", dependencies: ["BridgeJSON", "BridgeTestSupport"], swiftSettings: strict),
        .testTarget(name: "BridgeProtocolTests", dependencies: ["BridgeProtocol", "BridgeTestSupport"], swiftSettings: strict),
        .testTarget(name: "BridgeClockTests", dependencies: ["BridgeClock"], swiftSettings: strict),
        .testTarget(name: "BridgeHostTests", dependencies: ["BridgeHost", "BridgeClock", "BridgeTestSupport"], swiftSettings: strict),
        .testTarget(name: "BridgeArchiveTests", dependencies: ["BridgeArchive", "BridgeClock", "BridgeTestSupport"], exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(name: "BridgeAnalysisTests", dependencies: ["BridgeAnalysis", "BridgeArchive", "BridgeTestSupport"],
                    exclude: ["Fixtures", "Golden"], swiftSettings: strict),
        .testTarget(name: "BridgeCaptureTests", dependencies: ["BridgeCapture", "BridgePcap", "BridgeProxy", "BridgeDevTools", "BridgeArchive", "BridgeServer", "BridgeTransport", "BridgeHost", "BridgeTestSupport"], swiftSettings: strict),
        .testTarget(name: "BridgeModelTests", dependencies: ["BridgeModel"], swiftSettings: strict),
        .testTarget(name: "BridgeFuzzTests", dependencies: ["BridgeFuzz", "BridgeModel", "BridgeTransport", "BridgeTestSupport"], swiftSettings: strict),
        // The Swift tap's test driver (the Java and JavaScript taps have the same one).
        .executableTarget(name: "TapDriver", dependencies: ["BridgeTap"], path: "Tests/TapDriver", swiftSettings: strict),
        // WebViewProcessSwapTests' driver: a WebView link in a process of its own.
        .executableTarget(name: "WebViewDriver", dependencies: ["BridgeDevTools"], path: "Tests/WebViewDriver", swiftSettings: strict),
        .testTarget(
            name: "BridgeTapTests",
            dependencies: ["BridgeTap", "BridgeCapture", "BridgeArchive", "BridgeTestSupport", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        .testTarget(name: "BridgeWebSocketTests", dependencies: ["BridgeWebSocket"], swiftSettings: strict),
        .testTarget(
            name: "BridgeServerTests",
            dependencies: [
                "BridgeServer", "BridgeTransport", "BridgeTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "BridgeReplayTests",
            dependencies: [
                "BridgeReplay", "BridgeArchive", "BridgeHost", "BridgeClock", "BridgeServer", "BridgeTransport", "BridgeTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "BridgeOTLPTests",
            dependencies: ["BridgeOTLP", "BridgeAnalysis", "BridgeArchive", "BridgeTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(name: "bridgescopeTests", dependencies: ["BridgeProtocol", "BridgeReport", "BridgeTestSupport"], swiftSettings: strict),
    ]
)
