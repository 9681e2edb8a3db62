// SPDX-License-Identifier: Apache-2.0

import CLinuxHardware
import HardwareAccess
import SystemPackage
import Testing

@testable import LinuxHardware

/// A machine with three GPIO chips, as a Raspberry Pi 5 on kernel 6.12 shows them.
private func piFiveResolver(opened: Locked<[String]>? = nil) -> GPIOChipResolver {
    let labels = [
        "/dev/gpiochip0": "pinctrl-rp1", "/dev/gpiochip10": "gpio-brcmstb@107d508500",
        "/dev/gpiochip13": "gpio-brcmstb@107d517c00"
    ]
    return GPIOChipResolver(
        devicePaths: { ["/dev/gpiochip0", "/dev/gpiochip10", "/dev/gpiochip13"] },
        label: { path in
            opened?.withLock { $0.append(path) }
            return labels[path]
        })
}

@Suite struct GPIOChipResolverTests {
    @Test(arguments: [
        ("/dev/gpiochip7", "/dev/gpiochip7"), ("0", "/dev/gpiochip0"), ("13", "/dev/gpiochip13"),
        ("gpiochip10", "/dev/gpiochip10"), ("pinctrl-rp1", "/dev/gpiochip0"), ("header", "/dev/gpiochip0"),
        ("gpio-brcmstb@107d517c00", "/dev/gpiochip13")
    ])
    func resolvesEveryForm(specification: String, path: String) {
        #expect(piFiveResolver().resolve(specification) == path)
    }

    @Test func unknownChipsResolveToNothing() {
        #expect(piFiveResolver().resolve("pinctrl-bcm2711") == nil)
        #expect(piFiveResolver().resolve("gpiochip4") == nil)
    }

    @Test func headerPrefersThePiFiveLabelThenOlderModels() {
        // A Pi 4: the header chip is not the first device.
        let piFour = GPIOChipResolver(
            devicePaths: { ["/dev/gpiochip0", "/dev/gpiochip1"] },
            label: { ["/dev/gpiochip0": "raspberrypi-exp-gpio", "/dev/gpiochip1": "pinctrl-bcm2711"][$0] })
        #expect(piFour.resolve("header") == "/dev/gpiochip1")
        let piThree = GPIOChipResolver(devicePaths: { ["/dev/gpiochip0"] }, label: { _ in "pinctrl-bcm2835" })
        #expect(piThree.resolve("header") == "/dev/gpiochip0")
    }

    @Test func pathsNumbersAndDeviceNamesOpenNoChip() {
        let opened = Locked<[String]>([])
        let resolver = piFiveResolver(opened: opened)
        _ = resolver.resolve("/dev/gpiochip0")
        _ = resolver.resolve("3")
        _ = resolver.resolve("gpiochip13")
        #expect(opened.withLock { $0 }.isEmpty)
        _ = resolver.resolve("header")
        #expect(opened.withLock { $0 } == ["/dev/gpiochip0", "/dev/gpiochip10", "/dev/gpiochip13"])
    }
}

/// The libgpiod backend this build compiled (1.x on Debian 12, 2.x on Debian 13), against the real
/// library: what a user with a wrong board file sees.
@Suite struct LibGPIODBackendTests {
    @Test func theCompiledBackendMatchesTheInstalledLibrary() {
        let major = LibGPIODBackend.libraryVersion.split(separator: ".").first.flatMap { Int($0) }
        #if LIBGPIOD2
            #expect(major == 2)
        #else
            #expect(major == 1)
        #endif
        #expect(LibGPIOD.major == major)
    }

    @Test func aMissingChipPathIsReportedAsNoSuchChip() {
        #expect {
            try LinuxGPIOLine(chip: "/dev/gpiochip-absent", line: .offset(17), consumer: "haptics test")
        } throws: { error in
            let error = error as? GPIOError
            return error?.kind == .noSuchChip && error?.errno == .noSuchFileOrDirectory
                && error?.line.contains("/dev/gpiochip-absent:17") == true
        }
    }

    @Test func anUnknownLabelIsReportedAsNoSuchChip() {
        let backend = LibGPIODBackend()
        let result = backend.requestOutput(chip: "no-such-label-anywhere", line: .name("GPIO17"), consumer: "t", initial: false)
        #expect(result.handle == -1)
        #expect(result.chipMissing)
        #expect(backend.lastErrno == ENOENT)
    }

    @Test func aFileThatIsNotAGPIOChipIsRefused() {
        let backend = LibGPIODBackend()
        let result = backend.requestOutput(chip: "/dev/null", line: .offset(0), consumer: "t", initial: false)
        #expect(result.handle == -1)
        #expect(backend.lastErrno != 0)
    }

    @Test func settingAnUnknownHandleFailsWithEBADF() {
        let backend = LibGPIODBackend()
        #expect(backend.setValue(42, true) == -1)
        #expect(backend.lastErrno == EBADF)
    }
}
