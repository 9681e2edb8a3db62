// SPDX-License-Identifier: Apache-2.0

/// A chip a program takes for itself when it opens it (`HardwareProvider.claim`): one owner per
/// bus, address and multiplexer channel, and what must be written to stop it should the owner die
/// without stopping it (killed, crashed: SIGKILL included).
public struct ChipClaim: Sendable, Hashable {
    /// The I2C bus's device file ("/dev/i2c-1").
    public var bus: String
    /// The chip's address.
    public var address: I2CAddress
    /// The multiplexer in front of it, when there is one: its address and channel.
    public var mux: (address: I2CAddress, channel: Int)? {
        get { muxAddress.map { ($0, muxChannel) } }
        set {
            muxAddress = newValue?.address
            muxChannel = newValue?.channel ?? 0
        }
    }
    private var muxAddress: I2CAddress?
    private var muxChannel = 0
    /// The chip's name for people ("DRV2605L", "DA7280").
    public var part: String
    /// The writes to the chip that stop its drive, each one transaction from its register on (a
    /// DRV2605's GO cleared and MODE to standby; a DA7280's TOP_CTL1 and TOP_CTL2 to zero).
    public var stopWrites: [[UInt8]]

    /// A claim as given.
    public init(bus: String, address: I2CAddress, mux: (address: I2CAddress, channel: Int)? = nil, part: String, stopWrites: [[UInt8]]) {
        self.bus = bus
        self.address = address
        self.part = part
        self.stopWrites = stopWrites
        self.mux = mux
    }

    /// Every write the stop takes, with its address: the multiplexer's channel selected first.
    public var stopTransactions: [(address: I2CAddress, bytes: [UInt8])] {
        let selection = mux.map { [(address: $0.address, bytes: [UInt8(1) << UInt8($0.channel & 7)])] } ?? []
        return selection + stopWrites.map { (address: address, bytes: $0) }
    }

    /// "the DRV2605L at 0x5A on /dev/i2c-1" (", channel 3 of the switch at 0x70").
    public var description: String {
        "the \(part) at \(address) on \(bus)" + (mux.map { ", channel \($0.channel) of the switch at \($0.address)" } ?? "")
    }
}

/// A claim held: the chip is this program's until `release()` (or until the program ends).
public protocol ChipOwnership: AnyObject {
    /// Gives the chip up: the next program may claim it. Nothing is written to the chip.
    func release()
}

/// Another program holds the chip (`HardwareProvider.claim`).
public struct ChipInUseError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The chip, for people (`ChipClaim.description`).
    public var chip: String
    /// The holder as it wrote itself down: its program name and pid ("hapticd 412"); nil when
    /// it left nothing readable.
    public var holder: String?
    /// Where the lock is (the file whose lock is held).
    public var lockFile: String

    public init(chip: String, holder: String?, lockFile: String) {
        self.chip = chip
        self.holder = holder
        self.lockFile = lockFile
    }

    public var description: String {
        let who =
            holder.map { "\($0.split(separator: " ").first.map(String.init) ?? $0) (pid \($0.split(separator: " ").dropFirst().first.map(String.init) ?? "?"))" }
            ?? "another program"
        let advice =
            holder?.hasPrefix("hapticd") == true
            ? "play through it (haptic <verb> without --board/--bus/--device talks to the running hapticd), or stop it first (systemctl stop hapticd)"
            : "wait for it to finish, or stop it; two programs driving one chip would undo each other's calibration and standby"
        return "\(chip) is in use by \(who) (lock \(lockFile)): \(advice)"
    }
}
