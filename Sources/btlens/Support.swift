import ArgumentParser
import BTLensCapture
import BTLensCore
import BTLensDefinitions
import BTLensDissect
import BTLensPipeline
import BTLensReport
import Foundation

/// The input could not be read as a capture: exit status 1.
struct InputFailure: Error {
    var message: String
    /// The file is no capture at all (`CaptureOpenError.isNotACapture`): a folder run skips it.
    var notACapture = false
}

/// Options that cannot go together, found once the command runs: exit status 2, without the
/// usage lines a parsing error shows.
struct UsageFailure: Error {
    var message: String
}

/// Definition files that do not load: each error on its own line, exit status 2.
struct DefinitionFailure: Error {
    var errors: [DefinitionError]
}

/// `--fail-on`: the capture holds a diagnostic at or above the level asked for: exit status 3.
struct DiagnosticsFound: Error {
    var message: String
}

extension Severity: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }
    public static var allValueStrings: [String] { allCases.map(\.name) }
}

enum FileHandleStderr {
    static func write(_ s: String) {
        let bytes = Array(s.utf8)
        bytes.withUnsafeBytes { raw in _ = OS.write(2, raw.baseAddress, raw.count) }
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
            return OS.isatty(1) && getenv("NO_COLOR") == nil && term != "dumb"
        }
    }
}

/// The columns a text timeline line may take: nil (whole lines) with `--verbose` or when stdout is
/// not a terminal; on a terminal `$COLUMNS` when set, else its width (TIOCGWINSZ), else 80.
func terminalWidth(verbose: Bool) -> Int? {
    guard !verbose, OS.isatty(1) else { return nil }
    if let columns = getenv("COLUMNS").flatMap({ Int(String(cString: $0)) }), columns > 0 { return columns }
    return OS.terminalColumns(1) ?? 80
}

/// The path that names standard input, as in other Unix tools: `cat F | btlens timeline -`.
let standardInputPath = "-"

/// `inFolder`: one of a folder's entries, which must be a regular file (`FolderRun.notRegularFile`).
/// `-` is standard input, read as a stream (pcap through a pipe to libpcap, never loaded whole).
func openCapture(
    _ path: String, member: String? = nil, inFolder: Bool = false,
    archiveBytes: Int = Limits().archiveBytes
) throws -> any CaptureReader {
    if inFolder, let why = FolderRun.notRegularFile(path) { throw InputFailure(message: "cannot open \(path): \(why)") }
    do {
        if path == standardInputPath, !inFolder {
            if member != nil {
                throw UsageFailure(message: "--member applies to a bugreport .zip file, not to standard input")
            }
            return try CaptureFormat.open(FileSource(descriptor: OS.dup(0), name: "standard input"), streaming: true)
        }
        return try CaptureFormat.open(path: path, member: member, archiveLimit: Int64(archiveBytes))
    } catch let error as UsageFailure {
        throw error
    } catch CaptureOpenError.unsupported("capture", let detail) where member != nil {
        // --member given with a file that is no .zip: the option is misused.
        throw UsageFailure(message: "\(path): \(detail)")
    } catch CaptureOpenError.cannotOpen(let path, let reason) {
        throw InputFailure(message: "cannot open \(path): \(reason)")
    } catch {
        throw InputFailure(
            message: "\(path == standardInputPath ? "standard input" : path): \(error)",
            notACapture: (error as? CaptureOpenError)?.isNotACapture ?? false)
    }
}

/// A command that reads its capture twice cannot read standard input, nor a pipe or FIFO
/// (`<(cat F)`), which give their bytes once.
func refuseStandardInput(_ path: String, because twice: String) throws {
    if path == standardInputPath {
        throw UsageFailure(
            message: "\(twice) reads the capture twice, which standard input cannot give: save it to a file first")
    }
    guard let st = OS.status(path: path), st.st_mode & S_IFMT == S_IFIFO else { return }
    throw UsageFailure(
        message: "\(twice) reads the capture twice, which a pipe (\(path)) cannot give: save it to a file first")
}

/// What a path ends in after its last dot, lowercased: how an output's format is chosen.
func pathExtension(_ path: String) -> String {
    path.split(separator: ".").last.map { $0.lowercased() } ?? ""
}

/// File-level problems also go to stderr, naming the file, the record and the offset.
func reportProblem(_ path: String, _ p: CaptureProblem) {
    guard p.diagnostic.severity == .error else { return }
    FileHandleStderr.write("btlens: \(path): \(p.diagnostic.message)\n")
}

/// How captures are decoded, whichever command reads them: channels bound by hand, definition
/// files, limits and keys.
struct DecodingOptions: ParsableArguments {
    @Option(
        help:
            "Decode a channel whose setup is not in the capture: CID=\(DecodeAs.channelNames) (e.g. 0x0041=rfcomm), rfcomm:N=iap2|hfp|DISSECTOR for RFCOMM server channel N on every link, att:HANDLE=DISSECTOR for the values of an ATT handle (att:HANDLE=DISSECTOR/MESSAGE: each value is that whole-value message), psm:PSM=DISSECTOR for the SDUs of credit-based channels opened to PSM, or l2cap:CID=DISSECTOR for a dynamic L2CAP channel with no captured signalling (basic mode, or K-frames on an LE link). Repeatable.",
        transform: { text in try DecodeAs.parse(text) }
    )
    var decodeAs: [DecodeAs] = []

    @OptionGroup var definitions: DefinitionOptions

    @OptionGroup var limitOptions: LimitOptions

    @OptionGroup var keyOptions: KeyOptions
}

/// The capture a command reads, and how to read it: shared by timeline and stats.
struct CaptureInput: ParsableArguments {
    @Argument(help: "The capture file, or - for standard input.")
    var file: String

    @Option(help: "For a bugreport .zip: the member to decode (default: the main btsnoop_hci.log).")
    var member: String?

    @OptionGroup var decoding: DecodingOptions
    var decodeAs: [DecodeAs] { decoding.decodeAs }
    var definitions: DefinitionOptions { decoding.definitions }
    var limitOptions: LimitOptions { decoding.limitOptions }
    var keyOptions: KeyOptions { decoding.keyOptions }

    @Option(
        help: ArgumentHelp(
            "Exit with status 3 when a diagnostic of this severity or worse is found (with --filter, one it selects): note, warning or error (for CI).",
            valueName: "severity"))
    var failOn: Severity?

    func open() throws -> any CaptureReader {
        try openCapture(file, member: member, archiveBytes: limitOptions.limits().archiveBytes)
    }

    /// Throws for `--fail-on` when `worst` reaches it; `files` are those whose diagnostics reached it.
    func check(_ worst: [(file: String, severity: Severity?)]) throws {
        guard let failOn else { return }
        let failed = worst.filter { ($0.severity ?? .note) >= failOn && $0.severity != nil }
        guard !failed.isEmpty else { return }
        let list = failed.map { "\($0.file) (worst: \($0.severity?.name ?? ""))" }.joined(separator: ", ")
        throw DiagnosticsFound(message: "--fail-on \(failOn.name): diagnostics at that level or worse in \(list)")
    }

    /// The analyzer's settings: these options, the tables `dissectors()` loaded, and what the command shows.
    func configuration(
        _ dissectors: DissectorTable, lowerLayers: Bool,
        detail: Analyzer.Detail = .full
    ) throws -> Configuration {
        var c = Configuration(
            decodeAs: decodeAs, dissectors: dissectors, lowerLayers: lowerLayers, detail: detail,
            limits: try limitOptions.limits())
        c.linkLayerKeys = try keyOptions.linkLayerKeys()
        return c
    }

    /// The dissector tables; a `--decode-as` naming no loaded dissector is a usage error.
    func dissectors() throws -> DissectorTable { try Self.dissectors(definitions, decodeAs: decodeAs) }

    static func dissectors(_ definitions: DefinitionOptions, decodeAs: [DecodeAs]) throws -> DissectorTable {
        let table = try definitions.load().table
        for d in decodeAs {
            guard let (what, name) = d.dissectorBinding else { continue }
            guard let dissector = table.dissector(named: name) else {
                let known = table.dissectors.map(\.name).joined(separator: ", ")
                throw ValidationError(
                    "--decode-as \(what)=\(name): no dissector named '\(name)' is loaded (loaded: \(known))")
            }
            if case .attHandle(_, _, nil) = d, case .frames = dissector.framing,
                let definition = dissector as? DefinitionDissector, !definition.hasCommandMessages,
                let first = dissector.valueMessageNames.first
            {
                // Its frames would have no message to be: a value is named by its message.
                throw ValidationError(
                    "--decode-as \(what)=\(name): \(name) has no framed messages, only whole values (\(dissector.valueMessageNames.joined(separator: ", "))): name one, \(what)=\(name)/\(first)"
                )
            }
            if case .attHandle(_, _, let message?) = d, dissector.valueCharacteristic(named: message) == nil {
                let names = dissector.valueMessageNames
                throw ValidationError(
                    "--decode-as \(what)=\(name)/\(message): \(name) binds no whole value named '\(message)' (\(names.isEmpty ? "it binds none" : "its whole values: " + names.joined(separator: ", ")))"
                )
            }
        }
        return table
    }
}

/// `--limit NAME=N`: the bounds on what one capture may make btlens keep (docs/limits.md).
struct LimitOptions: ParsableArguments {
    @Option(
        name: .customLong("limit"),
        help: ArgumentHelp(
            "Change a bound on what btlens keeps per capture: \(Limits.names.map(\.name).joined(separator: ", ")). Repeatable; docs/limits.md lists them.",
            valueName: "name=n"))
    var settings: [String] = []

    func validate() throws { _ = try limits() }

    func limits() throws -> Limits {
        try settings.reduce(Limits()) { limits, text in
            guard let next = limits.setting(text) else {
                throw ValidationError(
                    "--limit \(text): expected NAME=N with N > 0 and NAME one of \(Limits.names.map(\.name).joined(separator: ", "))"
                )
            }
            return next
        }
    }
}

/// Where dissector definitions come from: shared by every command that loads them.
struct DefinitionOptions: ParsableArguments {
    @Option(
        name: .customLong("dissectors"),
        help: ArgumentHelp(
            "A folder (or file) of dissector definitions, instead of ./Dissectors and ~/.config/btlens/dissectors. Repeatable.",
            valueName: "dir"))
    var paths: [String] = []

    @Flag(help: "Load no definition files: built-in dissectors only.")
    var noDissectors = false

    /// The dissector tables, or every definition error (a broken definition is refused, never half-used).
    /// A definition whose examples do not hold still loads, with a warning.
    func load() throws -> DefinitionLoader.Loaded {
        guard !noDissectors else {
            var table = DissectorTable.builtIn
            table.sources.disabled = true
            return DefinitionLoader.Loaded(table: table)
        }
        return try Self.load(paths)
    }

    /// The definitions in `paths` (none: the default folders), or every error they hold; warnings
    /// go to stderr.
    static func load(_ paths: [String]) throws -> DefinitionLoader.Loaded {
        // A folder named twice is read once, not refused as binding what it binds itself.
        var seen: Set<String> = []
        let paths = paths.filter { seen.insert(URL(fileURLWithPath: $0).standardizedFileURL.path).inserted }
        for path in paths where !FileManager.default.fileExists(atPath: path) {
            if let link = OS.brokenLink(path) { throw UsageFailure(message: "\(path): \(link)") }
            throw UsageFailure(message: "\(path): no such folder or file of dissector definitions")
        }
        let loaded =
            paths.isEmpty
            ? DefinitionLoader.load(DefinitionLoader.defaultFolders())
            : DefinitionLoader.load(paths, required: true)
        guard loaded.errors.isEmpty else { throw DefinitionFailure(errors: loaded.errors) }
        for w in loaded.warnings { FileHandleStderr.write("btlens: warning: \(TerminalText.safe("\(w)"))\n") }
        return loaded
    }
}

extension FolderRun {
    /// A folder's files, or exit 1 when it holds none: an empty run would say nothing and succeed.
    /// nil when `path` is not a folder.
    static func capturesIn(_ path: String) throws -> [String]? {
        guard let files = files(path) else { return nil }
        guard !files.isEmpty else { throw InputFailure(message: "\(path): the folder holds no files to read") }
        return files
    }

    /// What a folder run says of a file that is no capture (a README, a log), which it passes over.
    static func skip(_ failure: InputFailure) {
        FileHandleStderr.write("btlens: note: skipped, not a capture: \(failure.message)\n")
    }

    /// A folder in which some files could not be read exits 1 naming them, after the others' output.
    static func unreadable(_ failed: [String], of total: Int) throws {
        guard !failed.isEmpty else { return }
        throw InputFailure(
            message: "\(failed.count) of \(total) files could not be read: \(BugreportArchive.list(failed))")
    }
}
