import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensFilter
import BTLensPipeline
import BTLensTestSupport
import Foundation

/// The display filter compiler: the input as an expression, compiled (or its error rendered with
/// its caret), and a filter that compiles judges the events of a sample capture, so that
/// `matches` runs PCRE2 with its budget on real text.
enum FilterTargets {
    static let all = [
        FuzzTarget(
            name: "filter", summary: "a display filter expression, compiled and run over a sample capture's events",
            seeds: { seeds.map { Array($0.utf8) } },
            run: { bytes in
                do throws(FilterError) {
                    let filter = try DisplayFilter(String(decoding: bytes, as: UTF8.self))
                    // Each match is bounded, not each filter: a long one of hostile patterns would
                    // pass libFuzzer's timeout, by design. Long filters are only compiled.
                    guard bytes.count <= 1024 else { return }
                    for e in events { _ = filter.matches(e) }
                } catch {
                    _ = error.description
                }
            })
    ]

    /// The events of the A5 faults sample: frames, diagnostics with their messages, ATT, HCI.
    static let events: [Event] = {
        guard var reader = try? CaptureFormat.open(MemorySource(SampleCaptures.faults().bytes)) else { return [] }
        var events: [Event] = []
        _ = try? Pipeline.run(&reader, Configuration(dissectors: CaptureTargets.shipped)) { events.append($0) }
        return events
    }()

    /// Every filter the docs and the README give (`-Y '…'`, `--filter '…'`, and the expressions in
    /// backquotes of docs/filters.md that compare), and strings that use every escape.
    static var seeds: [String] {
        let root = String(FuzzTarget.dissectorsFolder.dropLast("/Dissectors".count))
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: root + "/docs")) ?? []
        var found: [String] = []
        for file in ["README.md"] + docs.filter({ $0.hasSuffix(".md") }).map({ "docs/" + $0 }) {
            guard let text = try? String(contentsOfFile: root + "/" + file, encoding: .utf8) else { continue }
            for option in ["-Y '", "--filter '"] {
                found += text.components(separatedBy: option).dropFirst().compactMap { $0.split(separator: "'").first }
                    .map(String.init)
            }
            guard file == "docs/filters.md" else { continue }
            // Inline code only: code blocks (the grammar, shell lines) are other text.
            let spans = text.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }
                .map { $0.element.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
                .filter { $0.count < 200 && !$0.contains("btlens") && !$0.contains(":=") }
            found += spans.filter { s in
                ["==", ">", "<", " contains ", " matches ", " in "].contains { s.contains($0) }
            }
        }
        let escapes = [
            #"message contains "\\ \" \' \a\b\f\n\r\t\v \x41 \101 \u00e9 \U0001F600""#,
            #"message matches r"^\d+\.(a|b)\"$""#, #"message matches "(?i)^(a+)+$""#, #"message matches "\q""#,
        ]
        return Array(Set(found)).sorted() + escapes
    }
}
