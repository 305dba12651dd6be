import ArgumentParser
import BTLensCapture
import BTLensDissect
import BTLensReport

struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Count what a capture holds: records by kind, connections, ATT PDUs, A5 frames, diagnostics, undecoded bytes.")

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

    @Argument(help: "The capture file.")
    var file: String

    @Option(help: "For a bugreport .zip: the member to decode (default: the main btsnoop_hci.log).")
    var member: String?

    @Option(help: "Decode a channel whose setup is not in the capture: CID=rfcomm|att|sdp (e.g. 0x0041=rfcomm), or rfcomm:N=iap2 for RFCOMM server channel N. Repeatable.")
    var decodeAs: [Analyzer.DecodeAs] = []

    @Option(help: "Output format: text or json.")
    var format: Format = .text

    func run() throws {
        var reader = try openCapture(file, member: member)
        let stats = StatsCollector(file: file, info: reader.info)
        let analyzer = try Pipeline.run(&reader, decodeAs: decodeAs, onRecord: stats.record, onProblem: { reportProblem(file, $0) },
                                        onEvent: stats.event)
        let connections = analyzer.connections.all
        print(format == .json ? stats.json(connections: connections) : stats.text(connections: connections), terminator: "")
    }
}
