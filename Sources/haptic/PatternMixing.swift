// SPDX-License-Identifier: Apache-2.0

import Foundation
import Haptics

/// `haptic pattern --mix`: what the other patterns add to the report.
extension PatternCommand {
    /// The mixed patterns' warnings, each named by its file, and their audio events left out.
    static func mixWarnings(_ mixed: [(value: MixedPatternValue, document: PatternDocument)], _ renderings: [RenderedPattern]) -> [String] {
        var warnings: [String] = []
        for (item, rendering) in zip(mixed, renderings) {
            let name = (item.value.file as NSString).lastPathComponent
            warnings += (item.document.warnings + rendering.warnings).map { "\(name): \($0)" }
            let audioEvents = item.document.pattern.events.filter { !$0.type.isHaptic }.count
            if audioEvents > 0 { warnings.append("\(name): \(audioEvents) audio event(s) not played (a --mix pattern's audio is left out)") }
        }
        return warnings
    }

    /// `--json`'s `mixed`: each mixed pattern's file, offset and outcome. Empty without --mix, so
    /// that the report keeps its keys (the studio's play answer has the same ones).
    static func mixJSON(_ mixed: [(value: MixedPatternValue, document: PatternDocument)], _ players: ArraySlice<PatternPlayer>) -> [String: Any] {
        guard !mixed.isEmpty else { return [:] }
        return [
            "mixed": zip(mixed, players).map { item, player in
                ["file": item.value.file, "offsetSeconds": item.value.offset, "outcome": String(describing: player.outcome ?? .cancelled)] as [String: Any]
            }
        ]
    }
}
