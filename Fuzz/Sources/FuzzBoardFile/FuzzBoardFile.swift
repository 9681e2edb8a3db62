import Foundation
import Haptics

/// The board-file loader on arbitrary bytes: a board or a `BoardFileError`, never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBoardFile(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Data(bytes: data, count: count)
    if let board = try? BoardFile.parse(bytes, path: "fuzz.json") {
        for actuator in board.actuators { _ = try? board.configuration(actuator: actuator.name) }
        _ = board.mapping(for: .lra)
        _ = board.mapping(for: .erm)
    }
    return 0
}

/// libFuzzer's driver (from libclang_rt.fuzzer).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt

/// SwiftPM links an executable's entry point as `<target>_main`; hand control to libFuzzer.
@_cdecl("FuzzBoardFile_main")
public func fuzzerEntry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in fuzzBoardFile(data, size) }
}
