// SPDX-License-Identifier: Apache-2.0

import DRV2605
import Foundation
import HapticBoards
import HapticChip
import HapticEffects
import Haptics
import LinuxHardware
import Testing

/// The README's "In an app" example, kept identical so that the build proves it compiles (it needs
/// a board to run; the hardware-in-loop tests exercise the same calls).
func readmeExample() throws {
    ExitGuard.install()  // first thing: SIGINT, SIGTERM and exit() stop the actuator

    // One breakout on /dev/i2c-1 with the LRA's datasheet values. The first start-up calibrates it
    // (the actuator buzzes for about a second) and saves that; later start-ups restore it.
    let breakout = BoardFile.single(bus: "/dev/i2c-1", actuator: .lra(ratedVrms: 2.0, maximumVrms: 2.5, resonantHz: 175))
    HapticEngine.shared = try HapticBoard.open(breakout, hardware: LinuxHardwareProvider()).engine

    let impact = ImpactFeedbackGenerator(style: .heavy)
    impact.prepare()  // wakes the chip and preloads the effect
    impact.impactOccurred()  // one 3-byte I2C write
    NotificationFeedbackGenerator().notificationOccurred(.success)
    HapticEngine.shared?.play(sensory: .impact(weight: .light, intensity: 0.6))
    HapticEngine.shared?.play(.success)
}

/// The README's board example: a board file opened in two lines.
func readmeBoardExample() throws {
    let board = try HapticBoard.open(try BoardFile.load("/etc/haptics/board.json"), hardware: LinuxHardwareProvider())
    board.group.play(.success)  // every chip of the board, in step
}

@Suite struct ReadmeExampleTests {
    /// Every line of the README's example stands in `readmeExample()`, so what compiles is what
    /// the README shows.
    @Test func theReadmeShowsTheCompiledExample() throws {
        let here = URL(fileURLWithPath: #filePath)
        let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let source = try String(contentsOf: here, encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## In an app").dropFirst().first)
        let blocks =
            section.components(separatedBy: "## ").first?.components(separatedBy: "```swift").dropFirst()
            .compactMap { $0.components(separatedBy: "```").first } ?? []
        #expect(blocks.count == 2)
        // Spacing aside: the README aligns its comments, swift-format does not.
        func words(_ text: some StringProtocol) -> String { text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        let lines = blocks.joined(separator: "\n").split(separator: "\n").map(words).filter { !$0.isEmpty }
        let sourceLines = Set(source.split(separator: "\n").map(words))
        #expect(lines.count > 12)
        for line in lines { #expect(sourceLines.contains(line), "README line not in ReadmeExample.swift: \(line)") }
    }
}
