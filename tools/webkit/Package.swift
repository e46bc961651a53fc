// swift-tools-version:6.1
// bridgescope-webkit: a native WebKitGTK shell around the reference host (docs/WEBKIT.md).
// A nested package so that GTK and WebKit stay out of the `bridgescope` binary and out of
// `make release`. Build with `make webkit` (or `swift build --package-path tools/webkit`).
import PackageDescription

let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "bridgescope-webkit",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "bridgescope", path: "../.."),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // WebKitGTK 4.1 (GTK 3): imported by WebKitShell only. pkg-config is used for the
        // include paths; the module map names the libraries (swiftc refuses
        // `-Wl,--export-dynamic`, which `pkg-config --libs` adds).
        .systemLibrary(name: "CWebKitGTK", pkgConfig: "webkit2gtk-4.1", providers: [.apt(["libwebkit2gtk-4.1-dev"])]),
        .target(
            name: "WebKitShell",
            dependencies: [
                "CWebKitGTK",
                .product(name: "BridgeHost", package: "bridgescope"),
                .product(name: "BridgeArchive", package: "bridgescope"),
                .product(name: "BridgeJSON", package: "bridgescope"),
                .product(name: "BridgeProtocol", package: "bridgescope"),
                .product(name: "BridgeTap", package: "bridgescope"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(name: "bridgescope-webkit", dependencies: ["WebKitShell"], swiftSettings: strict),
        // The floor the shell is measured against (tools/bench/webkit): WebKit and an echo, nothing else.
        .executableTarget(name: "webkit-echo", dependencies: ["WebKitShell"], swiftSettings: strict),
    ]
)
