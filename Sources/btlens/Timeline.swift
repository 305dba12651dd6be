import ArgumentParser
import BTLensCapture
import BTLensDissect
import BTLensReport

struct Timeline: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the annotated timeline of a capture.",
        discussion: """
        One line per event: #record (Wireshark's frame number), seconds since the first record, direction (< phone to controller, > controller to phone, = note, ! problem in the file), connection handle, layer, summary. Diagnostics are marked !NOTE, !WARN, !ERRO in the layer column. --format jsonl prints one JSON object per event (the contract is in the README).
        """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, jsonl }

    @Argument(help: "The capture file.")
    var file: String

    @Option(help: "For a bugreport .zip: the member to decode (default: the main btsnoop_hci.log).")
    var member: String?

    @Option(help: "Decode a channel whose setup is not in the capture: CID=rfcomm|att|sdp (e.g. 0x0041=rfcomm), or rfcomm:N=iap2 for RFCOMM server channel N. Repeatable.")
    var decodeAs: [Analyzer.DecodeAs] = []

    @Option(help: "Output format: text or jsonl.")
    var format: Format = .text

    @Flag(name: .shortAndLong, help: "Also show the lower layers (HCI framing, ACL, L2CAP), indented.")
    var verbose = false

    @Option(help: "Colour: auto (only on a terminal), always, never.")
    var color: ColorChoice = .auto

    func run() throws {
        var reader = try openCapture(file, member: member)
        let sink = OutputSink(fd: 1)
        switch format {
        case .text:
            var renderer = TextRenderer(verbose: verbose, color: color.enabled)
            try Pipeline.run(&reader, decodeAs: decodeAs, onProblem: report) { e in if let s = renderer.render(e) { sink.write(s) } }
        case .jsonl:
            let renderer = JSONLRenderer(verbose: verbose)
            try Pipeline.run(&reader, decodeAs: decodeAs, onProblem: report) { e in if let b = renderer.render(e) { sink.write(b) } }
        }
        sink.flush()
    }

    private func report(_ p: CaptureProblem) { reportProblem(file, p) }
}
