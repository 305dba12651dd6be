import ArgumentParser
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
        var reader = try input.open()
        let stats = StatsCollector(file: input.file, info: reader.info)
        let analyzer = try Pipeline.run(&reader, decodeAs: input.decodeAs, dissectors: dissectors, lowerLayers: false, onRecord: stats.record, onProblem: { reportProblem(input.file, $0) },
                                        onEvent: stats.event)
        let connections = analyzer.connections.all
        print(format == .json ? stats.json(connections: connections) : stats.text(connections: connections), terminator: "")
    }
}
