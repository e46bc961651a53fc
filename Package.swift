// swift-tools-version:6.1
// bridgescope: records, analyzes, replays and fuzzes GBGBridge envelope traffic.
// Module map and dependency rules: see ../shared/ARCHITECTURE.md and README.md.
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
]

let package = Package(
    name: "bridgescope",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "bridgescope", targets: ["bridgescope"]),
        .library(name: "BridgeJSON", targets: ["BridgeJSON"]),
        .library(name: "BridgeProtocol", targets: ["BridgeProtocol"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .target(name: "BridgeJSON", swiftSettings: strict),
        .target(name: "BridgeProtocol", dependencies: ["BridgeJSON"], swiftSettings: strict),
        .executableTarget(
            name: "bridgescope",
            dependencies: [
                "BridgeJSON", "BridgeProtocol",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "BridgeJSONTests", dependencies: ["BridgeJSON"], swiftSettings: strict),
        .testTarget(name: "BridgeProtocolTests", dependencies: ["BridgeProtocol"], swiftSettings: strict),
        .testTarget(name: "bridgescopeTests", dependencies: ["BridgeProtocol"], swiftSettings: strict),
    ]
)
