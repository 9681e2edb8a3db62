// SPDX-License-Identifier: Apache-2.0

import Haptics

/// `parameters`: Core Haptics' dynamic parameters sent to the pattern an application plays from
/// the socket (`PatternPlayer.sendParameters`), so that a game or an instrument varies what it
/// started (a harder hit, a brighter tone) while it plays.
extension HapticServer {
    /// The request's values as Core Haptics' parameters: intensity, sharpness, then the time controls.
    static func dynamicParameters(of request: ServiceRequest) -> [HapticPattern.Parameter] {
        let values: [(HapticPattern.ParameterID, Double?)] = [
            (.hapticIntensityControl, request.intensity), (.hapticSharpnessControl, request.sharpness),
            (.hapticAttackTimeControl, request.attackTime), (.hapticDecayTimeControl, request.decayTime),
            (.hapticReleaseTimeControl, request.releaseTime)
        ]
        return values.compactMap { id, value in value.map { HapticPattern.Parameter(id: id, time: 0, value: $0) } }
    }

    func sendParameters(_ request: ServiceRequest, from client: Client) -> ServiceReply {
        let parameters = Self.dynamicParameters(of: request)
        guard !parameters.isEmpty else {
            return .failure(.badRequest, "parameters needs one of intensity, sharpness, attackTime, decayTime or releaseTime")
        }
        let after = request.after ?? 0
        guard after.isFinite, after >= 0, after <= options.maximumPlaySeconds else {
            return .failure(.badRequest, "after is seconds from now, 0...\(options.maximumPlaySeconds), not \(after)")
        }
        guard let player = livePatterns.withLock({ $0[client.app] }) else {
            return ServiceReply(
                id: nil, ok: false, outcome: "not-sent",
                reason: "\(client.app) plays no pattern now: parameters vary the pattern an application is playing (send it with play first)")
        }
        do {
            try player.sendParameters(parameters, atTime: engine.clock.now.advanced(by: .secondsClamped(after)))
        } catch {
            // A player that ended meanwhile, or a value out of its range: the caller is told.
            return ServiceReply(id: nil, ok: false, outcome: "not-sent", reason: "\(error)")
        }
        return ServiceReply(id: nil, ok: true, outcome: "sent")
    }
}
