// SPDX-License-Identifier: Apache-2.0

import HardwareAccess
import Testing

/// The Foundation-free text helpers: the chip drivers' messages and the effect names' parsing
/// run through them on Linux and in firmware alike, so a slip here changes both.
@Suite struct PlainTextTests {
    @Test func hexIsTwoUpperCaseDigits() {
        #expect(PlainText.hex(0) == "0x00")
        #expect(PlainText.hex(0x5A) == "0x5A")
        #expect(PlainText.hex(0x0c) == "0x0C")
        #expect(PlainText.hex(255) == "0xFF")
    }

    @Test func decimalRoundsHalfAwayFromZero() {
        #expect(PlainText.decimal(4.25, places: 1) == "4.3")
        #expect(PlainText.decimal(-4.25, places: 1) == "-4.3")
        #expect(PlainText.decimal(3.999, places: 2) == "4.00")
        #expect(PlainText.decimal(175) == "175")
        #expect(PlainText.decimal(0.004, places: 2) == "0.00")
        #expect(PlainText.decimal(-0.004, places: 2) == "0.00")
        #expect(PlainText.decimal(.nan) == "nan")
        #expect(PlainText.decimal(-.infinity) == "-inf")
    }

    @Test func numberPrintsAsSwiftDoesForShortDecimals() {
        for value in [2.0, 2.5, 175.0, 0.125, 3.6, -1.5, 4.2] {
            #expect(PlainText.number(value) == "\(value)")
        }
    }

    @Test func integersAreTheDigitRuns() {
        #expect(PlainText.integers(in: "Strong Click 1 - 100%") == [1, 100])
        #expect(PlainText.integers(in: "Transition Ramp Down Long Smooth 1 - 100 to 0%") == [1, 100, 0])
        #expect(PlainText.integers(in: "no digits") == [])
        #expect(PlainText.integers(in: "4.5") == [4, 5])
    }

    @Test func byteWiseComparisons() {
        #expect("strong click - 60%".hasSubstring(" - "))
        #expect(!"strong click".hasSubstring("tick"))
        #expect("abc".hasSubstring(""))
        #expect("strong click - 60%".prefix(before: " - ") == "strong click")
        #expect("strong click".prefix(before: " - ") == nil)
        #expect("sharp tick 1".beginsWith("sharp"))
        #expect(!"sharp".beginsWith("sharp tick"))
        #expect("60%".endsWith("%"))
        #expect(!"%".endsWith("60%"))
        #expect("impact-light".sameBytes(as: "impact-light"))
        #expect(!"impact-light".sameBytes(as: "impact-ligh"))
    }

    @Test func asciiCaseAndEditing() {
        #expect("Strong Click 1 - 100%".asciiLowercased() == "strong click 1 - 100%")
        #expect("lra".asciiUppercased() == "LRA")
        #expect("Ä ok".asciiLowercased() == "Ä ok")  // only A-Z change
        #expect("erm library b".removingEvery("erm").removingEvery("library").trimmingSpaces() == "b")
        #expect("\t padded \t".trimmingSpaces() == "padded")
        #expect("   ".trimmingSpaces() == "")
    }
}
