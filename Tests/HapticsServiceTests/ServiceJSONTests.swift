// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import HapticsService

/// The socket's messages as JSON, written and read without Foundation's coders: what a client in
/// another language sends must read the same, and what the daemon writes must be JSON any parser
/// reads.
@Suite struct ServiceJSONTests {
    /// A request with every member set, its strings full of what JSON must escape.
    static var everything: ServiceRequest {
        var request = ServiceRequest(.play)
        request.id = 9_007_199_254_740_992
        request.app = "org.example.\"Kiosk\" \\ tab\there\nnew line \u{01}\u{1F} é 😀"
        request.feedback = "impact-heavy"
        request.intensity = 0.35
        request.event = "button-pressed"
        request.effect = 47
        request.sequence = "success, wait 0.5, impact-heavy"
        request.pattern = "{\"Version\": 1, \"Pattern\": [{\"Event\": {\"Time\": 0.0}}]}"
        request.importance = .notification
        request.important = true
        request.profile = .quiet
        request.scope = .global
        request.timeout = -1
        request.trigger = UInt32.max
        request.sharpness = -0.25
        request.attackTime = 0.125
        request.decayTime = -1
        request.releaseTime = 0.5
        request.after = 0.2
        return request
    }

    @Test func aRequestComesBackAsItWasSent() throws {
        for request in [Self.everything, ServiceRequest(.status), ServiceRequest(.stop, version: 1)] {
            let frame = try ServiceFrame.encode(request)
            #expect(try ServiceFrame.length(ofHeader: frame[0..<4]) == frame.count - 4)
            #expect(try ServiceFrame.decode(ServiceRequest.self, from: Array(frame[4...])) == request)
        }
    }

    @Test func whatIsWrittenIsJSONAnyParserReads() throws {
        let payload = Array(try ServiceFrame.encode(Self.everything)[4...])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
        #expect(object["app"] as? String == Self.everything.app)
        #expect(object["pattern"] as? String == Self.everything.pattern)
        #expect(object["intensity"] as? Double == 0.35)
        #expect(object["trigger"] as? Int == Int(UInt32.max))
        #expect(object["id"] as? Int == 9_007_199_254_740_992)
        // Members in alphabetical order, as Foundation's sorted keys wrote them before.
        let text = try #require(String(bytes: payload, encoding: .utf8))
        let keys = object.keys.sorted()
        let positions = keys.compactMap { text.range(of: "\"\($0)\":")?.lowerBound }
        #expect(positions.count == keys.count && positions == positions.sorted())
    }

    @Test func aReplyWithStatusComesBack() throws {
        var reply = ServiceReply.failure(.fault, "the chip said \"overcurrent\"", id: 3)
        reply.playedSeconds = 0.125
        reply.trigger = 7
        reply.status = ServiceStatus(
            device: "simulated DRV2605L with an LRA", part: "DRV2605L", actuator: "LRA", standby: true, go: false, power: "standby",
            globalProfile: .full, appProfile: .silent, clients: 2, playing: nil, played: 10, dropped: 1, awakeSeconds: 1.5)
        let ended = ServiceReply.endedMessage(12, .expired)
        for message in [reply, ended, ServiceReply(id: nil, ok: true, outcome: "played")] {
            #expect(try ServiceFrame.decode(ServiceReply.self, from: Array(ServiceFrame.encode(message)[4...])) == message)
        }
    }

    /// The flat scanner and the full reader give the same request for the same bytes, whichever
    /// way the client wrote them; and the scanner does take the plain requests (the fast path is
    /// used, not only correct).
    @Test func theFastPathAndTheFullReaderAgree() throws {
        let written = [Self.everything, ServiceRequest(.status)].map { Array(try! ServiceFrame.encode($0)[4...]) }
        let typed: [String] = [
            #"{"op":"play","version":2,"feedback":"impact-light","intensity":0.1}"#,
            #" { "version" : 2 , "op" : "play" , "intensity" : 0.30000000000000004 , "id" : -17 } "#,
            #"{"op":"play","version":2,"intensity":1,"effect":123,"importance":null,"important":false}"#,
            #"{"op":"trigger","version":2,"event":"phone-incoming-call","timeout":0,"x-unknown":"kept out"}"#,
            #"{"op":"play","version":2,"intensity":0.99999999999999,"id":123456789012345}"#,
            #"{"op":"play","version":2,"intensity":2.5e-1,"x-nested":{"a":[1,2,{"b":null}]}}"#,
            #"{"op":"play","version":2,"app":"caf\u00e9 \ud83d\ude00","feedback":"selection"}"#,
            #"{"op":"play","version":2,"app":"é 😀 plain UTF-8","id":123456789012345}"#,
            #"{"op":"play","version":1,"op":"stop"}"#
        ]
        var scanned = 0
        for payload in written + typed.map({ Array($0.utf8) }) {
            let fast = try ServiceRequest(JSONObjectReader(payload))
            let full = try ServiceRequest(JSONObjectReader(payload, scansFlatObjects: false))
            #expect(fast == full, "\(String(decoding: payload, as: UTF8.self))")
            if FlatJSONScanner.members(of: payload) != nil { scanned += 1 }
        }
        // Escapes, an exponent, a nested member and 17 digits go to the full reader; the rest are scanned.
        #expect(scanned == 7)
        let decimals = try ServiceRequest(JSONObjectReader(Array(typed[0].utf8)))
        #expect(decimals.intensity == 0.1)
        #expect(try ServiceRequest(JSONObjectReader(Array(typed[6].utf8))).app == "café 😀")
    }

    @Test func badRequestsSayWhatIsWrong() {
        let cases: [(String, String)] = [
            (#"{"version":2}"#, "the field 'op' is missing"),
            (#"{"op":"dance","version":2}"#, "'op': 'dance' is not one of play, prepare, stop, status, profile, trigger, end"),
            (#"{"op":"play","version":"2"}"#, "'version': expected a number, found a string"),
            (#"{"op":"play","version":2,"effect":1.5}"#, "'effect': expected an integer from Int, not 1.5"),
            (#"{"op":"play","version":2,"id":9007199254740994}"#, "'id': expected an integer from Int"),
            (#"{"op":"play","version":2,"trigger":-1}"#, "'trigger': expected an integer from UInt32, not -1.0"),
            (#"{"op":"play","version":2,"important":"yes"}"#, "'important': expected true or false, found a string"),
            // Found by the fuzzer: 32 digits overflowed the scanner's whole number (a crash).
            (#"{"version": 1, "op":77777777777777777777777777777777 "play"}"#, "expected ',' or '}' in an object"),
            (#"{"version":2,"op":77777777777777777777777777777777}"#, "'op': expected a string, found a number"),
            (#"{"op":"play","version":2,}"#, "expected a quoted key"),
            (#"["op","play"]"#, "a message is a JSON object, not an array"),
            (#"{"op":"play","version":2} x"#, "unexpected text after the JSON value"),
            ("{\"op\":\"pl\u{01}ay\",\"version\":2}", "control character in a string")
        ]
        for (text, expected) in cases {
            let error = #expect(throws: ServiceFrame.FrameError.self, "\(text)") {
                _ = try ServiceFrame.decode(ServiceRequest.self, from: Array(text.utf8))
            }
            #expect(error?.description.contains(expected) == true, "\(text): \(error?.description ?? "no error")")
        }
    }

    @Test func aNumberJSONCannotCarryIsRefusedWhenWritten() {
        var request = ServiceRequest(.play)
        request.feedback = "impact-heavy"
        request.intensity = .nan
        #expect(throws: ServiceFrame.FrameError.self) { _ = try ServiceFrame.encode(request) }
    }
}
