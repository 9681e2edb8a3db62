// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Writes a whole file so that a crash or power cut leaves the old file or the new one, never half
/// of either: a temporary file beside it, fsync, rename over it, fsync of the directory. Used for
/// what the stack keeps across restarts (calibrations, hapticd's profiles).
public enum AtomicFile {
    /// Writes `data` to `path`, creating its directory; on failure the reason, the previous file
    /// unchanged.
    public static func write(_ data: Data, to path: String) throws(AtomicFileError) {
        let directory = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: directory.isEmpty ? "." : directory, withIntermediateDirectories: true)
        } catch {
            throw AtomicFileError(reason: "its directory cannot be created (\(error.localizedDescription))")
        }
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw AtomicFileError(reason: "cannot be written (\(String(cString: strerror(errno))))") }
        var failure: String?
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = String(cString: strerror(errno)) }
        close(fd)
        if failure == nil, rename(temporary, path) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporary)
            throw AtomicFileError(reason: "cannot be written (\(failure)); the previous file is unchanged")
        }
        let directoryFD = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            fsync(directoryFD)
            close(directoryFD)
        }
    }
}

/// A file could not be written whole.
public struct AtomicFileError: Error, Sendable, Equatable {
    /// Why ("cannot be written (Permission denied); the previous file is unchanged").
    public var reason: String

    /// An error saying `reason`.
    public init(reason: String) { self.reason = reason }
}
