// SPDX-License-Identifier: Apache-2.0

import FuzzSupport
import Haptics

/// The sequence language (`haptic sequence "success, wait 0.2, effect 47"`) on arbitrary text:
/// notes or a `SequenceParseError`, never a crash; every wait it accepts is finite and bounded.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSequence(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    let notes = try? SequenceNote.parse(text) { _ in
        HapticPattern(events: [.init(type: .hapticTransient, time: 0, intensity: 1, sharpness: 0.5)])
    }
    for note in notes ?? [] {
        if case let .wait(seconds) = note {
            precondition(seconds.isFinite && seconds >= 0 && seconds <= 600, "accepted a wait of \(seconds) s")
        }
    }
    return 0
}

@_cdecl("FuzzSequence_main")
public func fuzzerEntry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, size in fuzzSequence(data, size) }
}
