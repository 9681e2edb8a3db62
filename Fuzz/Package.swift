// swift-tools-version: 6.0
// SPDX-License-Identifier: Apache-2.0

// libFuzzer targets for the file readers. Kept out of the main package because a fuzz target has
// no main() of its own (libFuzzer provides it). Build and run with ../Scripts/fuzz.
import Foundation
import PackageDescription

// A path dependency's identity is its directory's name, which depends on where the repository was
// cloned; derive it from this manifest's own location.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "swift-haptics-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "..")],
    targets: [
        // libFuzzer's driver, shared by every target.
        .target(name: "FuzzSupport", swiftSettings: [.swiftLanguageMode(.v6)])
    ]
        + ["FuzzPatternFile", "FuzzBoardFile", "FuzzSequence", "FuzzPolicyFile", "FuzzCalibrationStore"].map { name in
            .executableTarget(
                name: name,
                dependencies: [
                    "FuzzSupport", .product(name: "Haptics", package: root), .product(name: "HapticBoards", package: root),
                    .product(name: "ChipFamilies", package: root), .product(name: "DRV2605", package: root),
                    .product(name: "HapticEffects", package: root), .product(name: "HapticChip", package: root)
                ],
                swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-parse-as-library"])])
        } + [
            // The firmware's serial parser: the bytes of its command port.
            .executableTarget(
                name: "FuzzSerialFrame",
                dependencies: ["FuzzSupport", .product(name: "HardwareAccess", package: root)],
                swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-parse-as-library"])]),
            // hapticd's request path: frames and JSON from a client, handled on the simulated chip.
            .executableTarget(
                name: "FuzzServiceRequest",
                dependencies: [
                    "FuzzSupport", .product(name: "HapticsService", package: root),
                    .product(name: "HapticsSimulation", package: root),
                    .product(name: "DRV2605", package: root), .product(name: "HapticEffects", package: root)
                ],
                swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-parse-as-library"])])
        ]
)
