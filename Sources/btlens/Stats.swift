import ArgumentParser
import Foundation
import BTLensCapture
import BTLensDissect
import BTLensReport

struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Count what a capture holds: records by kind, connections, ATT PDUs, A5 frames, diagnostics, undecoded bytes.")

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

    @OptionGroup var input: CaptureInput

    @Option(help: "Output format: text or json.")
    var format: Format = .text

    func run() throws {
        let dissectors = try input.dissectors()
        let (json, decodeAs, member) = (format == .json, input.decodeAs, input.member)
        guard let files = FolderRun.files(input.file) else {
            return print(try Self.stats(input.file, member: member, decodeAs: decodeAs, dissectors: dissectors, json: json),
                         terminator: "")
        }
        // A folder: each capture on its own core; JSON as one array, text as sections. A file that
        // cannot be read is said in its place and the rest go on.
        let outputs = FolderRun.run(files, progress: Progress.bar) { file in
            do {
                return try Self.stats(file, member: member, decodeAs: decodeAs, dissectors: dissectors, json: json)
            } catch {
                let message = (error as? InputFailure)?.message ?? "\(error)"
                guard json else { return "File:        \(file)\nError:       \(message)\n" }
                var w = JSONWriter()
                w.beginObject(); w.field("file", file); w.field("error", message); w.endObject()
                return String(decoding: w.bytes, as: UTF8.self)
            }
        }
        print(json ? "[" + outputs.map { $0.trimmingCharacters(in: .newlines) }.joined(separator: ",\n") + "]"
                   : outputs.joined(separator: "\n"))
    }

    /// One capture's stats as text or JSON.
    static func stats(_ file: String, member: String?, decodeAs: [Analyzer.DecodeAs], dissectors: DissectorTable,
                      json: Bool) throws -> String {
        var reader = try openCapture(file, member: member)
        let stats = StatsCollector(file: file, info: reader.info)
        let analyzer = try Pipeline.run(&reader, decodeAs: decodeAs, dissectors: dissectors, lowerLayers: false,
                                        onRecord: stats.record, onProblem: { reportProblem(file, $0) }, onEvent: stats.event)
        let connections = analyzer.connections.all
        return json ? stats.json(connections: connections) : stats.text(connections: connections)
    }
}
