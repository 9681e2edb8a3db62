// SPDX-License-Identifier: Apache-2.0

import Foundation
import FuzzSupport
import Haptics

/// The system policy file on arbitrary bytes: a policy in range or a `PolicyFileError`, never a
/// crash; combined with any app policy it can only make haptics quieter.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPolicyFile(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let policy = try? HapticsPolicy.decode(Data(bytes: data, count: count), path: "fuzz.json") else { return 0 }
    precondition((0...1).contains(policy.intensityScale), "intensity scale \(policy.intensityScale) out of range")
    precondition(policy.maximumFeedbackPerSecond >= 1, "rate limit \(policy.maximumFeedbackPerSecond)")
    precondition(policy.selectionMinimumIntervalSeconds.isFinite && policy.selectionMinimumIntervalSeconds >= 0)
    let app = HapticsPolicy()
    let combined = app.combined(with: policy)
    precondition(
        combined.intensityScale <= app.intensityScale && combined.maximumFeedbackPerSecond <= app.maximumFeedbackPerSecond
            && (!combined.enabled || app.enabled), "the system policy made haptics louder")
    return 0
}

@_cdecl("FuzzPolicyFile_main")
public func fuzzerEntry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, size in fuzzPolicyFile(data, size) }
}
