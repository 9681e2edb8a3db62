// SPDX-License-Identifier: Apache-2.0

import CLinuxHardware
import HardwareAccess
import Testing

@testable import LinuxHardware

/// What `EVIOCSFF` carries to the kernel for each kind of effect (input.h): FF_RUMBLE's
/// magnitudes unsigned over 0...0xFFFF (full strength is 0xFFFF, half 0x8000: drv260x and
/// pwm-vibrator drive by them), the other kinds' levels signed over ±0x7FFF. Read back as
/// hapticd's uinput device decodes an upload, each is the effect sent.
@Suite struct ForceFeedbackEncodingTests {
    @Test func aRumbleIsUnsignedOverTheWholeSixteenBits() {
        let rumble = ForceFeedbackEffect(id: 3, kind: .rumble(strong: 1, weak: 0.5), length: .milliseconds(150), delay: .milliseconds(20))
        let raw = LinuxForceFeedbackOutput.kernelEffect(rumble)
        #expect(raw.type == FF_RUMBLE && raw.id == 3 && raw.length_ms == 150 && raw.delay_ms == 20)
        #expect(raw.strong == 0xFFFF, "full strength")
        #expect(raw.weak == 0x8000, "half strength")
        #expect(UInputForceFeedbackDevice.effect(raw)?.kind == .rumble(strong: 1, weak: Double(0x8000) / 0xFFFF))
        // Out of range: clamped, never wrapped.
        let clamped = LinuxForceFeedbackOutput.kernelEffect(.init(id: -1, kind: .rumble(strong: 1.5, weak: -0.2), length: .milliseconds(10)))
        #expect(clamped.strong == 0xFFFF && clamped.weak == 0)
    }

    @Test func periodicAndConstantLevelsAreSigned() {
        let periodic = ForceFeedbackEffect(
            id: 1, kind: .periodic(waveform: .sine, magnitude: 1, offset: -0.5, period: .milliseconds(8)), length: .milliseconds(300),
            envelope: .init(attackLength: .milliseconds(40), attackLevel: 0.25, fadeLength: .milliseconds(60), fadeLevel: 0))
        let raw = LinuxForceFeedbackOutput.kernelEffect(periodic)
        #expect(raw.type == FF_PERIODIC && raw.waveform == FF_SINE && raw.period_ms == 8)
        #expect(raw.magnitude == 0x7FFF && raw.offset == -0x4000)
        #expect(raw.attack_length_ms == 40 && raw.attack_level == 0x2000 && raw.fade_length_ms == 60 && raw.fade_level == 0)
        let constant = LinuxForceFeedbackOutput.kernelEffect(.init(id: 2, kind: .constant(level: -1), length: .milliseconds(50)))
        #expect(constant.type == FF_CONSTANT && constant.level == -0x7FFF)
    }
}
