// swift-tools-version: 6.0
// SPDX-License-Identifier: Apache-2.0

// The haptics stack for Linux single-board computers with a haptic driver chip.
// Layers (imports point down only; docs/architecture.md draws them):
//   haptic, hapticd, haptic-bench  ->  ChipFamilies (the DA7280's family), FirmwareLink (the microcontroller link)
//     ->  HapticBoards (board files, HapticBoard.open, calibration; the DRV2605's and Linux vibrators' engines)
//     ->  DRV2605, KernelVibrator, DA7280 (chip families)  and  Haptics (the engine, players, policy)
//   Haptics, HapticFeedback, HapticPatterns, HapticsService import no chip family (Scripts/layering-check)
//   Haptics  ->  HapticFeedback (the feedback table), HapticPatterns (the pattern model, its renderer): firmware builds them too
//     ->  HapticEffects (the named effects and sequences of them)  ->  HapticChip (the chip-neutral driver API)  ->  HardwareAccess
//   hapticd  ->  HapticsService (the system service: socket protocol, arbitration)  ->  Haptics
//   hapticd  ->  FeedbackdDBus (feedbackd's D-Bus API through sd-bus)  ->  HapticsService, CSystemd
//   DRV2605Simulator, DA7280Simulator (simulated chips: I2CBuses)  ->  their chip, HardwareSimulation  ->  HardwareAccess
//   HapticsSimulation (--simulate: boards of simulated chips, pattern previews)  ->  HapticBoards, ChipFamilies, the simulators
//   HardwareAccessTesting: test doubles only (expectation and fault-injecting buses); no executable links it
//   LinuxHardware (/dev/i2c-N, libgpiod, evdev, serial)  ->  HardwareAccess, CLinuxHardware
//   Audio (sounds decoded by libsndfile, the mixer and the audio timeline on the haptic clock)  ->  HardwareAccess, CSndFile
//   LinuxAudio (ALSA playback)  ->  Audio, CALSA; Haptics plays sounds with haptics through Audio
import Foundation
import PackageDescription

let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

/// libgpiod's API changed completely between 1.x (Debian 12, Raspberry Pi OS bookworm) and 2.x
/// (Debian 13, Raspberry Pi OS trixie), under the same header name. The installed header decides
/// which backend LinuxHardware compiles (`LIBGPIOD2` defined for 2.x); HAPTIC_LIBGPIOD=1 or 2 overrides.
func installedLibgpiodMajor() -> Int {
    if let forced = ProcessInfo.processInfo.environment["HAPTIC_LIBGPIOD"], let major = Int(forced) { return major }
    var directories = ["/usr/include", "/usr/local/include"]
    if let includes = ProcessInfo.processInfo.environment["CPATH"] {
        directories.insert(contentsOf: includes.split(separator: ":").map(String.init), at: 0)
    }
    for directory in directories {
        guard let header = try? String(contentsOfFile: directory + "/gpiod.h", encoding: .utf8) else { continue }
        if header.contains("gpiod_chip_request_lines") { return 2 }
        if header.contains("gpiod_line_request_output") { return 1 }
    }
    return 1  // No header found: the build fails at `#include <gpiod.h>` with the package named in the module map.
}
let libgpiodSettings: [SwiftSetting] = installedLibgpiodMajor() >= 2 ? [.define("LIBGPIOD2")] : []

let package = Package(
    name: "swift-haptics",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Haptics", targets: ["Haptics"]),
        .library(name: "HapticBoards", targets: ["HapticBoards"]),
        .library(name: "ChipFamilies", targets: ["ChipFamilies"]),
        .library(name: "FirmwareLink", targets: ["FirmwareLink"]),
        .library(name: "HapticChip", targets: ["HapticChip"]),
        .library(name: "HapticFeedback", targets: ["HapticFeedback"]),
        .library(name: "HapticPatterns", targets: ["HapticPatterns"]),
        .library(name: "HapticEffects", targets: ["HapticEffects"]),
        .library(name: "DRV2605", targets: ["DRV2605"]),
        .library(name: "DA7280", targets: ["DA7280"]),
        .library(name: "KernelVibrator", targets: ["KernelVibrator"]),
        .library(name: "HardwareAccess", targets: ["HardwareAccess"]),
        .library(name: "LinuxHardware", targets: ["LinuxHardware"]),
        .library(name: "Audio", targets: ["Audio"]),
        .library(name: "LinuxAudio", targets: ["LinuxAudio"]),
        // Simulation is a product: `--simulate`, previews, and apps running without a board.
        .library(name: "HardwareSimulation", targets: ["HardwareSimulation"]),
        .library(name: "DRV2605Simulator", targets: ["DRV2605Simulator"]),
        .library(name: "DA7280Simulator", targets: ["DA7280Simulator"]),
        .library(name: "HapticsSimulation", targets: ["HapticsSimulation"]),
        // Test doubles are a product too, as swift-nio ships NIOEmbedded: apps test their own code with them.
        .library(name: "HardwareAccessTesting", targets: ["HardwareAccessTesting"]),
        .executable(name: "haptic", targets: ["haptic"]),
        .executable(name: "haptic-bench", targets: ["haptic-bench"]),
        .library(name: "HapticsService", targets: ["HapticsService"]),
        .executable(name: "hapticd", targets: ["hapticd"]),
        .executable(name: "drv2605-model", targets: ["drv2605-model"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0")
    ],
    targets: [
        .systemLibrary(
            name: "CLinuxHardware",
            providers: [.apt(["libi2c-dev", "libgpiod-dev"])]
        ),
        .systemLibrary(name: "CSndFile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CALSA", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CSystemd", providers: [.apt(["libsystemd-dev"])]),
        .target(name: "Audio", dependencies: ["HardwareAccess", "CSndFile"], swiftSettings: strict),
        .target(name: "LinuxAudio", dependencies: ["Audio", "HardwareAccess", "CALSA"], swiftSettings: strict),
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
        .target(name: "HardwareSimulation", dependencies: ["HardwareAccess"], swiftSettings: strict),
        .target(
            name: "LinuxHardware",
            dependencies: [
                "HardwareAccess", "CLinuxHardware",
                .product(name: "SystemPackage", package: "swift-system")
            ],
            swiftSettings: strict + libgpiodSettings
        ),
        .target(name: "HapticChip", dependencies: ["HardwareAccess"], swiftSettings: strict),
        // The named transient effects (TouchSense 2200's library) and sequences of them, with
        // their modelled envelopes: what a chip with the library plays from ROM and any other chip
        // streams. Chip-neutral, built for firmware too.
        .target(name: "HapticEffects", dependencies: ["HapticChip", "HardwareAccess"], swiftSettings: strict),
        .target(name: "DRV2605", dependencies: ["HapticChip", "HapticEffects", "HardwareAccess"], swiftSettings: strict),
        .target(name: "DRV2605Simulator", dependencies: ["DRV2605", "HapticEffects", "HardwareAccess", "HardwareSimulation"], swiftSettings: strict),
        .target(name: "DA7280", dependencies: ["HapticChip", "HardwareAccess"], swiftSettings: strict),
        .target(name: "DA7280Simulator", dependencies: ["DA7280", "HardwareAccess", "HardwareSimulation"], swiftSettings: strict),
        .target(name: "KernelVibrator", dependencies: ["HapticChip", "HardwareAccess"], swiftSettings: strict),
        // The feedback kinds and the table of what each plays: shared by Haptics and the firmware.
        .target(name: "HapticFeedback", dependencies: ["HapticChip", "HapticEffects", "HardwareAccess"], swiftSettings: strict),
        // Core Haptics' pattern model and its renderer to a drive stream, built for firmware too.
        .target(name: "HapticPatterns", dependencies: ["HapticChip", "HapticEffects", "HardwareAccess"], swiftSettings: strict),
        .target(
            name: "Haptics",
            dependencies: [
                "HapticFeedback", "HapticPatterns", "HapticChip", "HapticEffects", "HardwareAccess", "Audio",
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: strict
        ),
        // Board files and the boards they describe: the chips opened through their families (the
        // DRV2605 and Linux's vibrators built in, others registered), calibration kept.
        .target(
            name: "HapticBoards",
            dependencies: [
                "Haptics", "HapticFeedback", "HapticChip", "HapticEffects", "DRV2605", "KernelVibrator", "HardwareAccess",
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: strict
        ),
        // The chip families beside the DRV2605, each through HapticChipFamily: a new one is added
        // here, not in Haptics.
        .target(name: "ChipFamilies", dependencies: ["Haptics", "HapticBoards", "DA7280", "HapticChip", "HardwareAccess"], swiftSettings: strict),
        // The host's side of the microcontroller link (the firmware's serial protocol, its chip
        // driver and actuator, an engine on it): beside the chip families, not in Haptics.
        .target(
            name: "FirmwareLink",
            dependencies: ["Haptics", "HapticBoards", "HapticChip", "DRV2605", "HapticEffects", "HardwareAccess", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        .target(
            name: "HapticsSimulation",
            dependencies: [
                "Haptics", "HapticBoards", "ChipFamilies", "DRV2605", "HapticEffects", "DRV2605Simulator", "DA7280", "DA7280Simulator", "HardwareAccess", "HardwareSimulation"
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "haptic",
            dependencies: [
                "Haptics", "HapticBoards", "ChipFamilies", "FirmwareLink", "HapticsSimulation", "HardwareSimulation", "DRV2605", "HapticEffects", "DRV2605Simulator",
                "LinuxHardware", "HardwareAccess",
                "HapticsService", "Audio", "LinuxAudio",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "haptic-bench",
            dependencies: [
                "Haptics", "HapticBoards", "ChipFamilies", "HapticsSimulation", "DRV2605", "HapticEffects", "DRV2605Simulator", "HardwareAccess", "LinuxHardware", "HapticsService",
                "Audio", "LinuxAudio", .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            swiftSettings: strict
        ),
        .target(
            name: "HapticsService",
            dependencies: ["Haptics", "HapticChip", "HapticEffects", "HardwareAccess", "Audio", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        .target(
            name: "FeedbackdDBus",
            dependencies: ["HapticsService", "CSystemd", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "drv2605-model",
            dependencies: [
                "DRV2605", "HapticEffects", "DRV2605Simulator", "DA7280Simulator", "HardwareAccess", "LinuxHardware",
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "hapticd",
            dependencies: [
                "HapticsService", "FeedbackdDBus", "Haptics", "HapticBoards", "ChipFamilies", "FirmwareLink", "DRV2605", "HapticEffects", "HapticsSimulation", "LinuxHardware",
                "HardwareAccess",
                "Audio",
                "LinuxAudio",
                "CSystemd",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HapticsServiceTests",
            dependencies: ["HapticsService", "Haptics", "HapticBoards", "ChipFamilies", "HapticsSimulation", "HapticChip", "HapticEffects", "HardwareAccess", "Audio"],
            swiftSettings: strict
        ),
        .testTarget(name: "AudioTests", dependencies: ["Audio", "LinuxAudio", "HardwareAccess"], swiftSettings: strict),
        .testTarget(name: "HardwareAccessTests", dependencies: ["HardwareAccess", "HardwareAccessTesting"], swiftSettings: strict),
        .testTarget(name: "LinuxHardwareTests", dependencies: ["LinuxHardware", "HardwareAccess"], swiftSettings: strict + libgpiodSettings),
        .testTarget(
            name: "DRV2605Tests",
            dependencies: ["DRV2605", "HapticEffects", "DRV2605Simulator", "HardwareAccess", "HardwareAccessTesting", "HardwareSimulation"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "DA7280Tests",
            dependencies: [
                "DA7280", "DA7280Simulator", "DRV2605", "HapticEffects", "Haptics", "HapticBoards", "ChipFamilies", "HapticsSimulation", "HapticChip", "HardwareAccess",
                "HardwareAccessTesting",
                "HardwareSimulation"
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HapticsTests",
            dependencies: [
                "Haptics", "HapticBoards", "ChipFamilies", "FirmwareLink", "HapticsSimulation", "HapticChip", "DRV2605", "HapticEffects", "DA7280", "KernelVibrator",
                "DRV2605Simulator",
                "DA7280Simulator",
                "HardwareAccess",
                "HardwareAccessTesting",
                "HardwareSimulation", "Audio", .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: strict
        ),
        // The CLI's contract: runs the built `haptic` and `hapticd` (beside the test bundle) as a user would.
        .testTarget(name: "CLIContractTests", dependencies: ["Haptics", "HardwareAccess"], swiftSettings: strict),
        .testTarget(
            name: "HardwareInLoopTests",
            dependencies: ["Haptics", "HapticBoards", "ChipFamilies", "HapticChip", "DRV2605", "HapticEffects", "DA7280", "LinuxHardware", "HardwareAccess"],
            swiftSettings: strict
        )
    ]
)
