// SPDX-License-Identifier: Apache-2.0

/// What went wrong with a sound or the audio output, saying what to do about it.
///
/// Each case names the file or device, so a command line can print it as it is and a program can
/// tell a missing file (the user's path) from a busy device (try later) from a corrupt file.
public enum AudioError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No file at that path, or no sound of that name in the sound theme.
    case soundNotFound(String)
    /// The file exists but is not a sound libsndfile can decode (or cannot be read).
    case soundUnreadable(path: String, reason: String)
    /// The file ends before its header says it does: refused rather than played half-decoded.
    case soundTruncated(path: String, reason: String)
    /// The audio device does not exist, is busy or refuses the format.
    case deviceUnavailable(device: String, reason: String)
    /// The device failed while playing.
    case deviceFailed(device: String, reason: String)
    /// The device ran out of samples; the engine recovers and counts it.
    case underrun(device: String)
    /// A recording (`wav:PATH`) could not be written.
    case recordingUnwritable(path: String, reason: String)

    /// What went wrong and what to do, in one line.
    public var description: String {
        switch self {
        case let .soundNotFound(name):
            return "sound '\(name)' not found: give a path to a WAV, FLAC, Ogg or MP3 file, or a name from the freedesktop sound theme (ls /usr/share/sounds/freedesktop/stereo)"
        case let .soundUnreadable(path, reason):
            return "sound \(path) cannot be decoded (\(reason)): convert it to WAV, FLAC or Ogg/Vorbis"
        case let .soundTruncated(path, reason):
            return "sound \(path) is truncated (\(reason)): it was not played; copy the file again"
        case let .deviceUnavailable(device, reason):
            return "audio device '\(device)' cannot be opened (\(reason)): check `aplay -L` for its name, or whether another program holds it"
        case let .deviceFailed(device, reason):
            return "audio device '\(device)' failed while playing: \(reason)"
        case let .underrun(device):
            return "audio device '\(device)' ran out of samples (an underrun): raise --audio-latency"
        case let .recordingUnwritable(path, reason):
            return "cannot write the audio recording \(path): \(reason)"
        }
    }
}
