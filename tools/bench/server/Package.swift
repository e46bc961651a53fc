// swift-tools-version:6.1
// Load generator for the WebSocket host benchmark (tools/bench/server/run.sh).
import PackageDescription

let package = Package(
    name: "ws-load",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "bridgescope", path: "../../.."),
    ],
    targets: [
        .executableTarget(
            name: "ws-load",
            dependencies: [.product(name: "BridgeClient", package: "bridgescope")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
