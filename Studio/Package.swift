// swift-tools-version: 6.0
// SPDX-License-Identifier: Apache-2.0

// The pattern studio: a browser editor served by the Pi, playing on its actuator. A package of its
// own so the core (the library, haptic, hapticd) builds without Hummingbird and SwiftNIO, which
// matter on a small board and in the emulated arm64 build. `haptic studio` runs its executable.
import Foundation
import PackageDescription

// A path dependency's identity is its directory's name, which depends on where the repository was
// cloned; derive it from this manifest's own location.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let settings: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "swift-haptics-studio",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "haptic-studio", targets: ["haptic-studio"]),
        .library(name: "HapticStudio", targets: ["HapticStudio"])
    ],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0")
    ],
    targets: [
        .target(
            name: "HapticStudio",
            dependencies: [
                .product(name: "Haptics", package: root),
                .product(name: "HapticBoards", package: root),
                .product(name: "HapticChip", package: root),
                .product(name: "HapticEffects", package: root),
                .product(name: "ChipFamilies", package: root),
                .product(name: "Audio", package: root),
                .product(name: "DRV2605", package: root),
                .product(name: "DRV2605Simulator", package: root),
                .product(name: "HapticsSimulation", package: root),
                .product(name: "HardwareAccess", package: root),
                .product(name: "HardwareSimulation", package: root),
                .product(name: "LinuxHardware", package: root),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log")
            ],
            resources: [.copy("Resources/studio.html")],
            swiftSettings: settings),
        .executableTarget(
            name: "haptic-studio",
            dependencies: ["HapticStudio", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: settings),
        .testTarget(
            name: "HapticStudioTests",
            // Live tests over loopback with Foundation's URLSession: HummingbirdTesting would bring
            // in AsyncHTTPClient and BoringSSL, minutes of build for nothing the studio uses.
            dependencies: [
                "HapticStudio", .product(name: "HapticsSimulation", package: root), .product(name: "HapticBoards", package: root),
                .product(name: "HapticChip", package: root), .product(name: "HapticEffects", package: root), .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: settings)
    ]
)
