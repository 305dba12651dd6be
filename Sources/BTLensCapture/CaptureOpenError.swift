/// Why a file could not be read as a capture at all (exit status 1).
public enum CaptureOpenError: Error, Equatable, Sendable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    case notACapture(firstBytes: String)
    case headerTooShort(format: String, have: Int, need: Int)
    case unsupported(format: String, detail: String)
    /// A followed input was told to stop (SIGINT, SIGTERM) while waiting for bytes: nothing is wrong with it.
    case stopped

    /// The file is something else (a README, a log, empty), as opposed to a capture that is damaged
    /// or unreadable: a folder run passes over it with a note.
    public var isNotACapture: Bool {
        switch self {
        case .notACapture: return true
        case .unsupported(let format, _): return format == "text"
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            return "cannot open \(path): \(reason)"
        case .notACapture(let first):
            return "not a capture btlens can read (first bytes: \(first.isEmpty ? "none, the file is empty" : first))"
        case .headerTooShort(let format, let have, let need):
            return "\(format) file header is cut short at offset \(have): it needs \(need) bytes"
        case .unsupported(let format, let detail):
            return "\(format): \(detail)"
        case .stopped:
            return "stopped while waiting for input"
        }
    }
}
