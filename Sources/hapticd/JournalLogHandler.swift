// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging

/// Log lines on stderr, each prefixed with its syslog priority (`<3>` error ... `<7>` debug) when
/// stderr is the journal (systemd sets `$JOURNAL_STREAM`), so `journalctl -p warning` finds
/// hapticd's warnings; plain lines otherwise.
struct JournalLogHandler: LogHandler {
    let label: String
    let prefixesPriority: Bool
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    init(label: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.label = label
        prefixesPriority = environment["JOURNAL_STREAM"] != nil
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// sd-daemon(3)'s prefix for `level`.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .critical: return 2
        case .error: return 3
        case .warning: return 4
        case .notice: return 5
        case .info: return 6
        case .debug, .trace: return 7
        }
    }

    /// The line written for one message.
    func line(level: Logger.Level, message: Logger.Message, metadata extra: Logger.Metadata?) -> String {
        let merged = metadata.merging(extra ?? [:]) { _, new in new }
        let details = merged.isEmpty ? "" : " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let text = "\(message)\(details)".replacingOccurrences(of: "\n", with: " ")
        return (prefixesPriority ? "<\(JournalLogHandler.priority(level))>" : "") + text + "\n"
    }

    func log(event: LogEvent) {
        FileHandle.standardError.write(Data(line(level: event.level, message: event.message, metadata: event.metadata).utf8))
    }
}
