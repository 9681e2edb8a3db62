// SPDX-License-Identifier: Apache-2.0

import Foundation
import FuzzSupport
import Haptics

/// AHAP and .haptic readers and the renderer on arbitrary bytes: they must return a pattern or a
/// `PatternFileError`, never crash, hang or grow without bound.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPatternFile(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    for isMeta in [false, true] {
        if let document = try? PatternFileReader.parse(bytes, file: "fuzz", isMeta: isMeta) {
            // Rendering is bounded by the reader's limits (600 s at most).
            let rendered = PatternRenderer(rate: 200).render(document.pattern)
            precondition(rendered.samples.allSatisfy { $0.isFinite && abs($0) <= 1 }, "renderer produced an out-of-range level")
            // What the reader accepted is finite: the writer must write it, as valid JSON.
            guard let written = try? AHAPWriter.write(document.pattern),
                (try? JSONSerialization.jsonObject(with: Data(written.utf8))) != nil
            else { preconditionFailure("AHAPWriter failed or wrote invalid JSON for a pattern the reader accepted") }
        }
    }
    return 0
}

/// SwiftPM links an executable's entry point as `<target>_main`; hand control to libFuzzer.
@_cdecl("FuzzPatternFile_main")
public func fuzzerEntry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, size in fuzzPatternFile(data, size) }
}
