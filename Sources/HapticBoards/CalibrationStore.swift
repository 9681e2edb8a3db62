// SPDX-License-Identifier: Apache-2.0

import DRV2605
import Foundation
import HapticChip
import HapticEffects
import Haptics
import HardwareAccess

/// One saved auto-calibration: the results and the inputs they are valid for.
public struct CalibrationRecord: Codable, Equatable, Sendable {
    /// Which chip and actuator: bus, address, mux channel and the actuator's datasheet values.
    public var key: String
    /// The part calibrated ("DRV2605L").
    public var part: String
    /// The inputs calibration ran with; a change to any of them (RATED_VOLTAGE above all) needs a
    /// new calibration, so a record with other inputs is not applied.
    public var ratedVoltage: UInt8
    /// OD_CLAMP calibration ran with.
    public var overdriveClamp: UInt8
    /// DRIVE_TIME calibration ran with.
    public var driveTime: UInt8
    /// What calibration found.
    public var values: CalibrationValues
    /// When (shown by `status`).
    public var calibratedAt: Date

    /// A record of `values`, found with `configuration`'s inputs on `part`.
    public init(key: String, part: Part, configuration: DRV2605Configuration, values: CalibrationValues, calibratedAt: Date) {
        self.key = key
        self.part = part.description
        ratedVoltage = configuration.ratedVoltage
        overdriveClamp = configuration.overdriveClamp
        driveTime = configuration.driveTime
        self.values = values
        self.calibratedAt = calibratedAt
    }

    /// Whether the record was made with these inputs and holds values the registers can take.
    public func fits(_ configuration: DRV2605Configuration) -> Bool {
        ratedVoltage == configuration.ratedVoltage && overdriveClamp == configuration.overdriveClamp
            && driveTime == configuration.driveTime && values.backEMFGain <= 3 && (values.lraPeriod ?? 0) <= 127
    }
}

/// Saved calibrations in one JSON file, written atomically (temporary file, fsync, rename, fsync
/// of the directory), so a crash or power cut leaves the old file or the new one, never half of
/// either. A corrupt or mismatched file is reported and ignored, never applied in part.
public struct CalibrationStore: Sendable {
    /// The JSON file.
    public let path: String

    /// A store in `path` (nothing is read until asked).
    public init(path: String = CalibrationStore.defaultPath) { self.path = path }

    /// `$HAPTIC_CALIBRATION_FILE`; else calibration.json in systemd's `$STATE_DIRECTORY` (a
    /// unit's `StateDirectory=haptics`: /var/lib/haptics, writable by the unit's user under
    /// `ProtectSystem=strict`); else /var/lib/haptics/calibration.json for root, and
    /// ~/.local/state/haptics/calibration.json for other users.
    public static var defaultPath: String { defaultPath(environment: ProcessInfo.processInfo.environment) }

    /// `defaultPath` as `environment` decides it.
    public static func defaultPath(environment: [String: String]) -> String {
        if let path = environment["HAPTIC_CALIBRATION_FILE"], !path.isEmpty { return path }
        return StateDirectory.path(environment: environment) + "/calibration.json"
    }

    /// Where simulated chips keep their calibrations: beside `defaultPath`, its name prefixed
    /// with `simulated-` (/var/lib/haptics/simulated-calibration.json), a file of their own, so
    /// a simulated run never changes what a real chip restores.
    public static var simulatedPath: String {
        let real = defaultPath as NSString
        let directory = real.deletingLastPathComponent
        return (directory.isEmpty ? "" : directory + "/") + "simulated-" + real.lastPathComponent
    }

    /// The key for a chip and its actuator.
    public static func key(bus: String, address: I2CAddress, mux: BoardFile.MuxChannel? = nil, actuator: ActuatorSpecification) -> String {
        let muxText = mux.map { "\($0.address)/\($0.channel)" } ?? "none"
        let actuatorText: String
        switch actuator {
        case let .lra(rated, maximum, hz): actuatorText = String(format: "lra %.3fVrms %.3fVrms %.1fHz", rated, maximum, hz)
        case let .erm(rated, maximum): actuatorText = String(format: "erm %.3fV %.3fV", rated, maximum)
        }
        return "bus=\(bus) address=\(address) mux=\(muxText) actuator=\(actuatorText)"
    }

    /// Every record in the file (empty when there is no file).
    public func records() throws(CalibrationStoreError) -> [CalibrationRecord] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw CalibrationStoreError(path: path, problem: "cannot be read (\(error.localizedDescription))")
        }
        return try Self.decode(data, path: path)
    }

    /// The records in a calibration file's bytes (`path` only names it in errors).
    public static func decode(_ data: Data, path: String) throws(CalibrationStoreError) -> [CalibrationRecord] {
        guard data.count <= 1 << 20 else { throw CalibrationStoreError(path: path, problem: "is larger than 1 MiB") }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode(CalibrationFile.self, from: data).calibrations
        } catch {
            throw CalibrationStoreError(path: path, problem: "is corrupt (\(error))")
        }
    }

    /// The saved values for `key` that fit `configuration`; otherwise `nil` and, when something
    /// was wrong with the file or the record, a warning to show.
    public func lookup(key: String, configuration: DRV2605Configuration) -> (record: CalibrationRecord?, warning: String?) {
        let all: [CalibrationRecord]
        do { all = try records() } catch { return (nil, "\(error); ignoring it (run 'haptic calibrate' to replace it)") }
        guard let record = all.last(where: { $0.key == key }) else { return (nil, nil) }
        guard record.fits(configuration) else {
            return (nil, "saved calibration in \(path) was made with other actuator settings; ignoring it (run 'haptic calibrate')")
        }
        return (record, nil)
    }

    /// Adds or replaces the record for its key, atomically.
    public func save(_ record: CalibrationRecord) throws(CalibrationStoreError) {
        var all = (try? records()) ?? []
        all.removeAll { $0.key == record.key }
        all.append(record)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let data: Data
        do { data = try encoder.encode(CalibrationFile(format: 1, calibrations: all)) } catch {
            throw CalibrationStoreError(path: path, problem: "could not be encoded (\(error))")
        }
        try writeAtomically(data)
    }

    private func writeAtomically(_ data: Data) throws(CalibrationStoreError) {
        do {
            try AtomicFile.write(data, to: path)
        } catch {
            throw CalibrationStoreError(path: path, problem: error.reason)
        }
    }
}

struct CalibrationFile: Codable {
    var format: Int
    var calibrations: [CalibrationRecord]
}

/// The calibration file could not be read or written.
public struct CalibrationStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file.
    public var path: String
    /// What is wrong ("is corrupt (...)", "cannot be written (...)").
    public var problem: String
    /// One line naming the file and the problem.
    public var description: String { "calibration file \(path) \(problem)" }
}
