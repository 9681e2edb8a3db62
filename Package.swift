// swift-tools-version: 6.0
// The haptics stack for Linux single-board computers with a TI DRV2605/DRV2605L.
// Layers (imports point down only):
//   haptic, haptic-bench  ->  Haptics  ->  DRV2605  ->  HardwareAccess
//   DRV2605Simulator (a simulated chip: an I2CBus)  ->  DRV2605, HardwareAccess
//   LinuxHardware (/dev/i2c-N, libgpiod)  ->  HardwareAccess, CLinuxHardware
import PackageDescription

let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "swift-haptics",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Haptics", targets: ["Haptics"]),
        .library(name: "DRV2605", targets: ["DRV2605"]),
        .library(name: "HardwareAccess", targets: ["HardwareAccess"]),
        .library(name: "LinuxHardware", targets: ["LinuxHardware"]),
        // Test doubles are a product, as swift-nio ships NIOEmbedded: apps test their own code with them.
        .library(name: "DRV2605Simulator", targets: ["DRV2605Simulator"]),
        .library(name: "HardwareAccessTesting", targets: ["HardwareAccessTesting"]),
        .executable(name: "haptic", targets: ["haptic"]),
        .executable(name: "haptic-bench", targets: ["haptic-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLinuxHardware",
            providers: [.apt(["libi2c-dev", "libgpiod-dev"])]
        ),
        .target(
            name: "HardwareAccess",
            dependencies: [.product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strict
        ),
        .target(
            name: "HardwareAccessTesting",
            dependencies: ["HardwareAccess"],
            swiftSettings: strict
        ),
        .target(
            name: "LinuxHardware",
            dependencies: [
                "HardwareAccess", "CLinuxHardware",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict
        ),
        .target(name: "DRV2605", dependencies: ["HardwareAccess"], swiftSettings: strict),
        .target(name: "DRV2605Simulator", dependencies: ["DRV2605", "HardwareAccess", "HardwareAccessTesting"], swiftSettings: strict),
        .target(
            name: "Haptics",
            dependencies: [
                "DRV2605", "HardwareAccess",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "haptic",
            dependencies: [
                "Haptics", "DRV2605", "DRV2605Simulator", "LinuxHardware", "HardwareAccess",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "haptic-bench",
            dependencies: [
                "Haptics", "DRV2605", "DRV2605Simulator", "HardwareAccess", "LinuxHardware",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "HardwareAccessTests", dependencies: ["HardwareAccess", "HardwareAccessTesting"], swiftSettings: strict),
        .testTarget(name: "LinuxHardwareTests", dependencies: ["LinuxHardware", "HardwareAccess"], swiftSettings: strict),
        .testTarget(
            name: "DRV2605Tests",
            dependencies: ["DRV2605", "DRV2605Simulator", "HardwareAccess", "HardwareAccessTesting"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HapticsTests",
            dependencies: ["Haptics", "DRV2605", "DRV2605Simulator", "HardwareAccess", "HardwareAccessTesting"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HardwareInLoopTests",
            dependencies: ["Haptics", "DRV2605", "LinuxHardware", "HardwareAccess"],
            swiftSettings: strict
        ),
    ]
)
