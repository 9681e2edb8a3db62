// SPDX-License-Identifier: Apache-2.0

import ChipFamilies
import Foundation
import FuzzSupport
import HapticBoards
import Haptics

/// The board-file loader on arbitrary bytes: a board or a `BoardFileError`, never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBoardFile(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Data(bytes: data, count: count)
    if let board = try? BoardFile.parse(bytes, path: "fuzz.json") {
        for actuator in board.actuators {
            _ = try? board.configuration(actuator: actuator.name)
            _ = try? actuator.da7280Actuator(file: board.path)
        }
        _ = board.mapping(for: .lra)
        _ = board.mapping(for: .erm)
    }
    return 0
}

/// SwiftPM links an executable's entry point as `<target>_main`; hand control to libFuzzer.
@_cdecl("FuzzBoardFile_main")
public func fuzzerEntry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    // Board files may name the DA7280, as they may for the programs.
    StandardChipFamilies.register()
    return runFuzzer(argc, argv) { data, size in fuzzBoardFile(data, size) }
}
