// SPDX-License-Identifier: Apache-2.0

import DRV2605
import Foundation
import FuzzSupport
import HapticBoards
import HapticChip
import HapticEffects
import Haptics

/// A saved calibration file on arbitrary bytes: records or a `CalibrationStoreError`, never a
/// crash; a record is restored only into a configuration it fits.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCalibrationStore(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let records = try? CalibrationStore.decode(Data(bytes: data, count: count), path: "fuzz.json") else { return 0 }
    let configurations = [
        try? DRV2605Configuration(.typicalLRA),
        try? DRV2605Configuration(.typicalERM)
    ].compactMap { $0 }
    for record in records {
        for configuration in configurations where record.fits(configuration) {
            var restored = configuration
            restored.calibration = record.values
            _ = restored.feedbackControl.rawValue
        }
    }
    return 0
}

@_cdecl("FuzzCalibrationStore_main")
public func fuzzerEntry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, size in fuzzCalibrationStore(data, size) }
}
