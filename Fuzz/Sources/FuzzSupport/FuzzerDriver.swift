// SPDX-License-Identifier: Apache-2.0

/// libFuzzer's driver (from libclang_rt.fuzzer).
// swift-format-ignore: AlwaysUseLowerCamelCase
// The C symbol's own name.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

/// Hands control to libFuzzer, which calls `target` with each input. Each fuzz target's
/// `<Target>_main` (the entry point SwiftPM links for an executable) calls this.
public func runFuzzer(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ target: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, target)
}
