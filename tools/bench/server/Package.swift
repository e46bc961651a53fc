// swift-tools-version:6.1
// Load generator for the WebSocket host benchmark (tools/bench/server/run.sh): plain
// SwiftNIO channel handlers, so the load generator stays cheap and the server is measured.
import PackageDescription

let package = Package(
    name: "ws-load",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
    ],
    targets: [
        .executableTarget(
            name: "ws-load",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
