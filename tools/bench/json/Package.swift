// swift-tools-version:6.1
// JSON parse benchmark: BridgeJSON's JSONParser against Foundation's JSONSerialization on
// the same bytes in the same run. A separate package so `swift test` never builds it.
// Run it with tools/bench/json-bench.sh (release build).
import PackageDescription

let package = Package(
    name: "json-bench",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "bridgescope", path: "../../.."),
    ],
    targets: [
        .executableTarget(
            name: "json-bench",
            dependencies: [.product(name: "BridgeJSON", package: "bridgescope")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
