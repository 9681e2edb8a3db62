// SPDX-License-Identifier: Apache-2.0

import DRV2605
import Foundation
import FuzzSupport
import HapticChip
import HapticEffects
import HapticsService
import HapticsSimulation

/// hapticd's request path on arbitrary bytes, as a client could send them: the frame header, the
/// JSON, then the request handled on the simulated chip. Every input gets a reply (or a frame
/// error), never a crash, and the actuator is stopped a moment after the reply (patterns and
/// sequences are waited for; a feedback lasts well under two seconds).
nonisolated(unsafe) private let rig = try! EngineRig()
nonisolated(unsafe) private let server = HapticServer(engine: rig.engine, device: "fuzz")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServiceRequest(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    guard bytes.count >= 4, let length = try? ServiceFrame.length(ofHeader: Array(bytes.prefix(4))) else { return 0 }
    let payload = Array(bytes.dropFirst(4).prefix(length))
    guard let request = try? ServiceFrame.decode(ServiceRequest.self, from: payload) else { return 0 }
    let reply = server.handle(request, from: HapticServer.Client(id: 1, app: "fuzz", uid: 1000))
    precondition(reply.ok || reply.error != nil || reply.outcome == "dropped", "a refusal without a reason: \(reply)")
    precondition(reply.ok || !(reply.reason ?? "").isEmpty, "a refusal without words: \(reply)")
    rig.advance(.seconds(2))
    precondition(rig.chip.output.level(at: rig.clock.now) == 0, "the actuator still runs 2 s after \(request.op)")
    _ = try? ServiceFrame.encode(reply)
    return 0
}

@_cdecl("FuzzServiceRequest_main")
public func fuzzerEntry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, size in fuzzServiceRequest(data, size) }
}
