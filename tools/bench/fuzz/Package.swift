// swift-tools-version:6.1
// Fuzzer benchmarks: in-process execution speed, and the bug-finding benchmark that
// runs structure-aware and plain byte mutation against deliberately broken host
// variants (defined here only, never in the shipped host). A separate package so
// `swift test` never builds it. Run it with tools/bench/fuzz/run.sh (release build).
import PackageDescription

let package = Package(
    name: "fuzz-bench",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "bridgescope", path: "../../.."),
    ],
    targets: [
        .executableTarget(
            name: "fuzz-bench",
            dependencies: [
                .product(name: "BridgeFuzz", package: "bridgescope"),
                .product(name: "BridgeHost", package: "bridgescope"),
                .product(name: "BridgeProtocol", package: "bridgescope"),
                .product(name: "BridgeJSON", package: "bridgescope"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
