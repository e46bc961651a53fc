// swift-tools-version:6.1
// Replay benchmark: `--pace asap` in-process throughput on a generated session, and the
// send-time error of recorded pacing on the real clock. A separate package so
// `swift test` never builds it. Run it with tools/bench/replay/replay-bench.sh (release).
import PackageDescription

let package = Package(
    name: "replay-bench",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "bridgescope", path: "../../.."),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .executableTarget(
            name: "replay-bench",
            dependencies: [
                .product(name: "BridgeReplay", package: "bridgescope"),
                .product(name: "BridgeHost", package: "bridgescope"),
                .product(name: "BridgeArchive", package: "bridgescope"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
