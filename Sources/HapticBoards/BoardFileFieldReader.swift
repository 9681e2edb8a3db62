// SPDX-License-Identifier: Apache-2.0

import DRV2605
import Foundation
import HapticChip
import HapticEffects
import Haptics
import HardwareAccess

/// Typed access to decoded JSON with errors that name the field.
struct FieldReader {
    let file: String

    func fail(_ field: String, _ problem: String, _ allowed: String? = nil) -> BoardFileError {
        BoardFileError(file: file, field: field, problem: problem, allowed: allowed)
    }

    func object(_ value: Any?, _ field: String) throws(BoardFileError) -> [String: Any] {
        guard let value else { throw fail(field, "is missing") }
        guard let object = value as? [String: Any] else { throw fail(field, "must be an object") }
        return object
    }
    func array(_ value: Any?, _ field: String) throws(BoardFileError) -> [Any] {
        guard let value else { throw fail(field, "is missing") }
        guard let array = value as? [Any] else { throw fail(field, "must be an array") }
        return array
    }
    func string(_ value: Any?, _ field: String) throws(BoardFileError) -> String {
        guard let value else { throw fail(field, "is missing") }
        guard let string = value as? String else { throw fail(field, "must be a string") }
        return string
    }
    func optionalString(_ value: Any?, _ field: String) throws(BoardFileError) -> String? {
        guard let value else { return nil }
        return try string(value, field)
    }
    func number(_ value: Any?, _ field: String) throws(BoardFileError) -> Double {
        guard let value else { throw fail(field, "is missing") }
        // JSONSerialization gives true/false as a boolean NSNumber subclass; reject those.
        guard let number = value as? NSNumber, !String(describing: type(of: value)).contains("Boolean") else {
            throw fail(field, "must be a number")
        }
        let double = number.doubleValue
        guard double.isFinite else { throw fail(field, "must be a finite number") }
        return double
    }
    func optionalDouble(_ value: Any?, _ field: String) throws(BoardFileError) -> Double? {
        guard let value else { return nil }
        return try number(value, field)
    }
    func int(_ value: Any?, _ field: String) throws(BoardFileError) -> Int {
        let double = try number(value, field)
        guard double == double.rounded(), abs(double) < 1e9 else { throw fail(field, "must be a whole number") }
        return Int(double)
    }
    func address(_ value: Any?, _ field: String) throws(BoardFileError) -> I2CAddress {
        let allowed = "a 7-bit address 0x03-0x77, as \"0x5A\" or 90"
        if let text = value as? String {
            let digits = text.lowercased().hasPrefix("0x") ? String(text.dropFirst(2)) : text
            guard let parsed = Int(digits, radix: text.lowercased().hasPrefix("0x") ? 16 : 10), let address = I2CAddress(parsed) else {
                throw fail(field, "is '\(text)'", allowed)
            }
            return address
        }
        let number = try int(value, field)
        guard let address = I2CAddress(number) else { throw fail(field, "is \(number)", allowed) }
        return address
    }

    func line(_ value: Any?, _ field: String) throws(BoardFileError) -> BoardFile.Line? {
        guard let value else { return nil }
        let object = try object(value, field)
        let chip = try string(object["chip"], "\(field).chip")
        if let name = object["line"] as? String { return BoardFile.Line(chip: chip, offset: nil, lineName: name) }
        let offset = try int(object["line"], "\(field).line")
        guard (0...1023).contains(offset) else { throw fail("\(field).line", "is \(offset)", "0-1023 or a line name") }
        return BoardFile.Line(chip: chip, offset: UInt32(offset), lineName: nil)
    }

    func actuator(_ value: Any?, name: String) throws(BoardFileError) -> BoardFile.Actuator {
        let field = "actuators.\(name)"
        let object = try object(value, field)
        let type = try string(object["type"], "\(field).type")
        let specification: ActuatorSpecification
        switch type.lowercased() {
        case "lra":
            specification = .lra(
                ratedVrms: try number(object["ratedVrms"], "\(field).ratedVrms"),
                maximumVrms: try number(object["maximumVrms"], "\(field).maximumVrms"),
                resonantHz: try number(object["resonantHz"], "\(field).resonantHz"))
        case "erm":
            specification = .erm(
                ratedVolts: try number(object["ratedVolts"], "\(field).ratedVolts"),
                maximumVolts: try number(object["maximumVolts"], "\(field).maximumVolts"))
        default:
            throw fail("\(field).type", "is '\(type)'", "lra, erm")
        }
        var library: EffectLibrary?
        if let text = try optionalString(object["library"], "\(field).library") {
            guard let parsed = EffectLibrary(name: text) else {
                throw fail("\(field).library", "is '\(text)'", "A, B, C, D, E, F (ERM) or LRA")
            }
            library = parsed
        }
        var loop: LoopMode?
        if let text = try optionalString(object["loop"], "\(field).loop") {
            guard let parsed = LoopMode(rawValue: text.lowercased()) else { throw fail("\(field).loop", "is '\(text)'", "closed, open") }
            loop = parsed
        }
        // The other keys are the families': each registered family checks those it owns.
        let familyKeys = BoardFileFamilyKeys(file: file, field: field, object: object, common: Self.actuatorKeys)
        for family in ChipFamilyRegistry.all where family.actuatorKeys.contains(where: { familyKeys[$0] != nil }) {
            try family.checkActuatorKeys(familyKeys, specification: specification)
        }
        return BoardFile.Actuator(
            name: name, specification: specification, library: library, loop: loop,
            description: try optionalString(object["description"], "\(field).description"), familyKeys: familyKeys)
    }

    /// The keys every actuator preset may have, whatever chip drives it.
    static let actuatorKeys: Set<String> = ["type", "ratedVrms", "maximumVrms", "resonantHz", "ratedVolts", "maximumVolts", "library", "loop", "description"]
    /// The keys every driver entry may have (a registered family refusing some of them).
    static let driverKeys: Set<String> = ["name", "bus", "address", "part", "alsoAccepts", "enable", "trigger", "mux", "calibration", "device"]

    func driver(_ value: Any?, index: Int, defaultBus: String) throws(BoardFileError) -> BoardFile.Driver {
        let field = "drivers[\(index)]"
        let object = try object(value, field)
        let name = try optionalString(object["name"], "\(field).name") ?? "driver\(index)"
        if let device = try optionalString(object["device"], "\(field).device") {
            for key in ["bus", "address", "part", "alsoAccepts", "enable", "trigger", "mux", "calibration"] where object[key] != nil {
                throw fail("\(field).\(key)", "is set", "nothing beside \"device\": a kernel vibrator is Linux's to drive")
            }
            var driver = BoardFile.Driver(name: name, bus: device, address: .drv2605, part: nil, enable: nil, trigger: nil, mux: nil)
            driver.family = .kernelVibrator
            driver.device = device
            return driver
        }
        let bus = try optionalString(object["bus"], "\(field).bus") ?? defaultBus
        var part: Part?
        var family = BoardFile.ChipFamily.drv2605
        // Another family's chip when a registered family has the part's name (ChipFamilyRegistry).
        var other: (any HapticChipFamily)?
        if let text = try optionalString(object["part"], "\(field).part") {
            if let registered = ChipFamilyRegistry.family(part: text) {
                other = registered
                family = BoardFile.ChipFamily(rawValue: registered.part)
            } else {
                guard let parsed = Part(name: text) else {
                    let others = ChipFamilyRegistry.parts
                    throw fail(
                        "\(field).part", "is '\(text)'",
                        (["drv2605", "drv2605l", "drv2604", "drv2604l"] + others).joined(separator: ", ")
                            + (others.isEmpty ? "; other families' parts once registered (StandardChipFamilies.register(), module ChipFamilies)" : ""))
                }
                part = parsed
            }
        }
        var alsoAccepts: [Part] = []
        if let accepted = object["alsoAccepts"] {
            guard part != nil, let names = accepted as? [String] else {
                throw fail("\(field).alsoAccepts", "is set", part == nil ? "only beside a DRV2605-family \"part\"" : "a list of parts: drv2605, drv2605l, drv2604, drv2604l")
            }
            for name in names {
                guard let parsed = Part(name: name) else {
                    throw fail("\(field).alsoAccepts", "names '\(name)'", "drv2605, drv2605l, drv2604, drv2604l")
                }
                alsoAccepts.append(parsed)
            }
        }
        let defaultAddress = other?.defaultAddress ?? .drv2605
        let address = object["address"] == nil ? defaultAddress : try self.address(object["address"], "\(field).address")
        if let reason = other?.refusesPinsBecause {
            for pin in ["enable", "trigger", "calibration"] where object[pin] != nil {
                throw fail("\(field).\(pin)", "is set", "nothing: \(reason)")
            }
        }
        var mux: BoardFile.MuxChannel?
        if let muxValue = object["mux"] {
            let muxObject = try self.object(muxValue, "\(field).mux")
            let muxAddress = muxObject["address"] == nil ? I2CAddress.tca9548a : try self.address(muxObject["address"], "\(field).mux.address")
            let channel = try int(muxObject["channel"], "\(field).mux.channel")
            guard (0...7).contains(channel) else { throw fail("\(field).mux.channel", "is \(channel)", "0-7") }
            mux = BoardFile.MuxChannel(address: muxAddress, channel: channel)
        }
        var triggerMode = DRV2605Driver.TriggerPinMode.edge
        if let text = try optionalString((object["trigger"] as? [String: Any])?["mode"], "\(field).trigger.mode") {
            guard let mode = DRV2605Driver.TriggerPinMode(rawValue: text.lowercased()) else {
                throw fail("\(field).trigger.mode", "is '\(text)'", "edge, level")
            }
            triggerMode = mode
        }
        var calibration = CalibrationPolicy.auto
        if let text = try optionalString(object["calibration"], "\(field).calibration") {
            guard let policy = CalibrationPolicy(rawValue: text.lowercased()) else {
                throw fail("\(field).calibration", "is '\(text)'", CalibrationPolicy.allowedValues)
            }
            calibration = policy
        }
        // Keys beyond the common ones that the family owns are kept for it and checked by it;
        // another family's key is refused, as it can only be a mistake here. Others are ignored.
        let own = Set(other?.driverKeys ?? [])
        var familyKeys = BoardFileFamilyKeys(file: file, field: field, object: object, common: Self.driverKeys)
        for key in familyKeys.values.keys.sorted() where !own.contains(key) {
            let owners = ChipFamilyRegistry.all.filter { $0.driverKeys.contains(key) }.map(\.part)
            if !owners.isEmpty { throw fail("\(field).\(key)", "is set", "only for part \(owners.joined(separator: ", "))") }
        }
        familyKeys.values = familyKeys.values.filter { own.contains($0.key) }
        try other?.checkDriverKeys(familyKeys)
        return BoardFile.Driver(
            name: name, bus: bus, address: address, part: part, alsoAccepts: alsoAccepts,
            enable: try line(object["enable"], "\(field).enable"),
            trigger: try line(object["trigger"], "\(field).trigger"), triggerMode: triggerMode, mux: mux,
            calibration: calibration, family: family, familyKeys: familyKeys)
    }

    func sequence(_ value: Any?, _ field: String) throws(BoardFileError) -> WaveformSequence {
        let items = try array(value, field)
        var steps: [WaveformSequence.Step] = []
        for (index, item) in items.enumerated() {
            let itemField = "\(field)[\(index)]"
            if let text = item as? String {
                let parts = text.lowercased().split(separator: " ")
                guard parts.count == 2, parts[0] == "wait", let milliseconds = Double(parts[1]) else {
                    throw fail(itemField, "is '\(text)'", "an effect number 1-123 or \"wait <ms>\"")
                }
                do { steps.append(try WaveformSequence.wait(.secondsClamped(milliseconds / 1000))) } catch {
                    throw fail(itemField, "is '\(text)'", "waits of 10-1270 ms")
                }
            } else {
                let number = try int(item, itemField)
                guard let effect = Effect(number) else { throw fail(itemField, "is \(number)", "effects 1-123") }
                steps.append(.effect(effect))
            }
        }
        do { return try WaveformSequence(steps) } catch { throw fail(field, "has \(steps.count) steps", "1-8 steps") }
    }
}
