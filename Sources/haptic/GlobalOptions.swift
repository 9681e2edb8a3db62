import ArgumentParser

/// Options every verb takes.
struct GlobalOptions: ParsableArguments {
    @Option(help: "Board file: a name from 'haptic boards' or a path. Default: $HAPTIC_BOARD or /etc/haptics/board.json when present.")
    var board: String?

    @Option(help: "Which chip of the board file (default: its first driver).")
    var driver: String?

    @Option(help: "I2C bus: a path (/dev/i2c-1) or a number (1). Default: /dev/i2c-1, or the simulated chip when the machine has no I2C bus.")
    var bus: String?

    @Option(help: "7-bit I2C address of the chip (the DRV2605 is always 0x5A).")
    var address: String = "0x5A"

    @Flag(help: "Run on the simulated DRV2605L instead of a board, in real time.")
    var simulate = false

    @Flag(help: "With the simulated chip: run as fast as possible on a virtual clock (for scripts).")
    var virtualTime = false

    @Option(help: "Simulated part (default: the board file's, else drv2605l).")
    var simulatedPart: SimulatedPartValue?

    @Option(help: "Actuator: with a board file, one of its actuator names (default: the board's default); without, lra or erm.")
    var actuator: String?

    @Flag(help: "Print every bus transaction as it happens.")
    var trace = false

    @Flag(help: "Print a machine-readable JSON summary on stdout instead of text.")
    var json = false
}
