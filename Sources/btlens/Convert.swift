import ArgumentParser
import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensPipeline
import Foundation

struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Write any readable capture as btsnoop, pcap or pcapng, so one file opens everywhere.",
        discussion:
            "Records, timestamps, direction and original lengths are kept. Captures with notes or controller indexes (btmon, PacketLogger, Linux monitor) are written in the monitor layout (btsnoop 2001, LINKTYPE 254) with notes as system notes; others as H4 (btsnoop 1002, LINKTYPE 201). With --filter, the records of what it selects are written with those they depend on (connections, channels, discovery, MTU exchange, subscriptions, the response to a request kept); the capture written is then decoded, and any finding that records left out make it show and the whole capture does not (a sequence gap between the frames kept, a frame cut short, a response whose request was left out) is said."
    )

    @Argument(help: "The capture to read, or - for standard input.")
    var input: String

    @Option(
        name: .shortAndLong,
        help:
            "The file to write (- for standard output); the format comes from its extension (.btsnoop, .pcap, .pcapng)."
    )
    var output: String

    @Option(help: "The output format, when the extension does not say it: btsnoop, pcap, pcapng.")
    var format: CaptureWriter.Format?

    @Option(help: "For a bugreport .zip: the member to convert.")
    var member: String?

    @OptionGroup var filterOption: FilterOption

    @OptionGroup var definitions: DefinitionOptions

    @OptionGroup var limitOptions: LimitOptions

    func validate() throws {
        if format == nil && CaptureWriter.Format(rawValue: pathExtension(output)) == nil {
            throw ValidationError(
                "cannot tell the output format from '\(output)': use .btsnoop, .pcap or .pcapng, or --format")
        }
    }

    func run() throws {
        // Loaded first, so a definition that does not load is said whether or not --filter needs it.
        let table = try definitions.load().table
        let limits = try limitOptions.limits()
        let configuration = Configuration(dissectors: table, lowerLayers: true, limits: limits)
        let selection = try select(configuration)
        var reader = try openCapture(input, member: member, archiveBytes: limits.archiveBytes)
        let monitor = ["pklg"].contains(reader.info.format) || [2001, 254].contains(reader.info.linkType)
        let chosen = format ?? CaptureWriter.Format(rawValue: pathExtension(output)) ?? .pcapng
        let writer: CaptureWriter
        do {
            let air = CaptureWriter.airLinkType(keeping: reader.info.linkType)
            writer = try CaptureWriter(path: output, format: chosen, monitor: monitor, air: air)
        } catch .cannotOpen(let path, let reason) {
            throw InputFailure(message: "cannot write to \(path): \(reason)")
        } catch {
            throw InputFailure(message: "\(error)")
        }
        var records = 0
        while writer.failure == nil, let item = try reader.next() {
            switch item {
            case .record(let r):
                records += 1
                if selection?.contains(r.number) ?? true { writer.write(r) }
            case .problem(let p):
                reportProblem(input, p)
            }
        }
        if let code = writer.close() {
            if output == "-" { StandardOutput.failed(code) }
            throw StandardOutput.cannotWrite(output, code)
        }
        let skipped = writer.skipped > 0 ? "; \(writer.skipped) records with no place in this layout left out" : ""
        let n = writer.clampedTimes
        let clamped =
            n > 0
            ? "; \(n) timestamp\(n == 1 ? "" : "s") \(chosen.rawValue) cannot hold written as the nearest it can" : ""
        var filtered = ""
        if let selection {
            filtered =
                "; --filter '\(filterOption.expression ?? "")' selects \(selection.selected) events, in these and the records they need"
            // Standard output cannot be read back: only a file written is checked.
            let more =
                try output == "-"
                ? []
                : findings(of: output, configuration).compactMap { id, n in
                    n > selection.findings[id, default: 0] ? "\(n - selection.findings[id, default: 0]) \(id)" : nil
                }.sorted()
            if !more.isEmpty {
                filtered +=
                    "; records left out make it show what the whole capture does not: \(more.joined(separator: ", "))"
            }
        }
        // With -o -, the capture is standard output, and what was written is said on stderr.
        let say: (String) -> Void = output == "-" ? { FileHandleStderr.write("btlens: \($0)\n") } : { print($0) }
        say(
            "\(output): \(writer.written) of \(records) records as \(chosen.rawValue) (\(writer.air == 256 ? "LE pseudo-header" : writer.air == 251 ? "LE link layer" : monitor ? "monitor" : "H4") layout)\(skipped)\(clamped)\(filtered)"
        )
    }

    /// With `--filter`, a first pass decodes the capture and chooses the records to write.
    private func select(_ configuration: Configuration) throws -> RecordSelection? {
        guard let filter = filterOption.filter() else { return nil }
        try refuseStandardInput(input, because: "--filter")
        var reader = try openCapture(input, member: member, archiveBytes: configuration.limits.archiveBytes)
        let selection = RecordSelection(filter)
        _ = try Pipeline.run(
            &reader, configuration, onRecord: selection.record, onProblem: { _ in }, onEvent: selection.event)
        return selection
    }

    /// The findings of the capture written, by id: what a reader of it is told, checked against the whole's.
    private func findings(of path: String, _ configuration: Configuration) throws -> [String: Int] {
        var reader = try openCapture(path)
        var found: [String: Int] = [:]
        _ = try Pipeline.run(&reader, configuration) { e in
            if e.isTop, case .diagnostic(let d) = e.body { found[d.id, default: 0] += 1 }
        }
        return found
    }

}

extension CaptureWriter.Format: ExpressibleByArgument {}
