import ArgumentParser
import BTLensCapture
import BTLensDissect
import BTLensReport
#if canImport(Glibc)
import Glibc
#endif

/// The input could not be read as a capture: exit status 1.
struct InputFailure: Error {
    var message: String
}

enum FileHandleStderr {
    static func write(_ s: String) {
        let bytes = Array(s.utf8)
        bytes.withUnsafeBytes { raw in _ = Glibc.write(2, raw.baseAddress, raw.count) }
    }
}

enum ColorChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, always, never

    var enabled: Bool {
        switch self {
        case .always: return true
        case .never: return false
        case .auto:
            let term = getenv("TERM").map { String(cString: $0) } ?? ""
            return isatty(1) != 0 && getenv("NO_COLOR") == nil && term != "dumb"
        }
    }
}

func openCapture(_ path: String, member: String? = nil) throws -> any CaptureReader {
    do {
        return try CaptureFormat.open(path: path, member: member)
    } catch .cannotOpen(let path, let reason) {
        throw InputFailure(message: "cannot open \(path): \(reason)")
    } catch {
        throw InputFailure(message: "\(path): \(error)")
    }
}

/// File-level problems also go to stderr, naming the file, the record and the offset.
func reportProblem(_ path: String, _ p: CaptureProblem) {
    guard p.diagnostic.severity == .error else { return }
    FileHandleStderr.write("btlens: \(path): \(p.diagnostic.message)\n")
}

extension Analyzer.DecodeAs: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}

/// The capture a command reads, and how to read it: shared by timeline and stats.
struct CaptureInput: ParsableArguments {
    @Argument(help: "The capture file.")
    var file: String

    @Option(help: "For a bugreport .zip: the member to decode (default: the main btsnoop_hci.log).")
    var member: String?

    @Option(help: "Decode a channel whose setup is not in the capture: CID=rfcomm|att|sdp (e.g. 0x0041=rfcomm), or rfcomm:N=iap2 for RFCOMM server channel N. Repeatable.")
    var decodeAs: [Analyzer.DecodeAs] = []

    func open() throws -> any CaptureReader { try openCapture(file, member: member) }
}
