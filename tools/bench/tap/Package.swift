// swift-tools-version:6.1
// Field tap benchmark (issue 19): the Swift tap's cost on the caller's thread per 1 KB
// message and its throughput with no drops. A separate package so `swift test` never
// builds it. Run it with tools/bench/tap/run.sh (release build; also runs the Java tap's).
import PackageDescription

let package = Package(
    name: "tap-bench",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "bridgescope", path: "../../.."),
    ],
    targets: [
        .executableTarget(
            name: "tap-bench",
            dependencies: [.product(name: "BridgeTap", package: "bridgescope")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
