import ArgumentParser
import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensFilter
import BTLensPipeline
import BTLensReport
import Foundation

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write a report for a bug ticket: self-contained HTML, Markdown, text or JSON.",
        discussion: """
            The HTML page needs no network (everything inline, remote loads forbidden) and holds the summary, the diagnostics (each linking to its place in the timeline), a message sequence chart, charts, and a timeline with filters and expandable rows. Markdown and text hold the summary, the diagnostics and the timeline around each diagnostic, short enough to paste. JSON holds what the HTML shows (docs/report.md).

            On large captures the counts and diagnostics stay complete; the timeline keeps the first 2,000 events and 20 on each side of every diagnostic, and says what it left out. With --from/--to it keeps only that range.

            --app-log LOG puts the app's log lines in the timeline (and the lines that show bytes on a lane of the sequence chart), each log's alignment in the summary, and where the log and the air disagree in the diagnostics (docs/report.md).
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case html, md, txt, json }

    @OptionGroup var input: CaptureInput

    @Option(
        name: .shortAndLong,
        help:
            "The report to write (- for standard output); the format comes from its extension (.html, .md, .txt, .json)."
    )
    var output: String

    @Option(help: "The format, when the extension does not say it: html, md, txt, json.")
    var format: Format?

    @Flag(
        help:
            "Replace Bluetooth addresses, serial numbers, device names and Wi-Fi credentials with stable placeholders, and name the input by its file name only."
    )
    var redact = false

    @Option(help: "Keep the timeline from this record (123) or time in seconds since the first record (12.5s).")
    var from: String?

    @Option(help: "Keep the timeline up to this record or time (inclusive).")
    var to: String?

    @OptionGroup var filterOption: FilterOption

    @OptionGroup var appLog: AppLogOptions

    func validate() throws {
        if FolderRun.files(input.file) != nil {
            if !appLog.files.isEmpty {
                throw ValidationError(
                    "'\(input.file)' is a folder: --app-log belongs to one capture; give it with that capture's file")
            }
            if output == "-" {
                throw ValidationError(
                    "'\(input.file)' is a folder: its reports go into a folder, not to standard output")
            }
            // A folder's reports go into a folder: -o x.html would make a folder named like a file.
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory)
            if Format(rawValue: pathExtension(output)) != nil && !(exists && isDirectory.boolValue) {
                throw ValidationError(
                    "'\(input.file)' is a folder: its reports go into a folder; give -o a folder name, not '\(output)' (--format chooses their format)"
                )
            }
            _ = try range()
            return
        }
        if format == nil && output != "-" && Format(rawValue: pathExtension(output)) == nil {
            throw ValidationError(
                "cannot tell the report format from '\(output)': use .html, .md, .txt or .json, or --format")
        }
        _ = try range()
    }

    /// `--from`/`--to` as records, or as seconds when written with `s`.
    func range() throws -> (ClosedRange<Double>, time: Bool)? {
        guard from != nil || to != nil else { return nil }
        let lo = try Self.bound(from, "from")
        let hi = try Self.bound(to, "to")
        if let lo, let hi, lo.1 != hi.1 {
            throw ValidationError("--from and --to must both be records or both be times")
        }
        let time = lo?.1 ?? hi?.1 ?? false
        let a = lo?.0 ?? 0
        let b = hi?.0 ?? .greatestFiniteMagnitude
        guard a <= b else { throw ValidationError("--from is after --to") }
        return (a...b, time)
    }

    /// A bound of `--from`/`--to`: a record number in digits, from 1 to 2^53, or finite seconds ≥ 0
    /// written with `s`; and whether it is a time.
    private static func bound(_ s: String?, _ name: String) throws -> (Double, Bool)? {
        guard let s else { return nil }
        let expected = ValidationError("--\(name) \(s): expected a record number (123) or seconds (12.5s)")
        if s.hasSuffix("s") {
            guard let v = Double(s.dropLast()) else { throw expected }
            // infs kept nothing and was said to be after --to; nans compares as nothing.
            guard v.isFinite else { throw ValidationError("--\(name) \(s): seconds are a finite number (12.5s)") }
            guard v >= 0 else { throw expected }
            return (v, true)
        }
        // Records are whole, in digits: 1.5 would keep from #2 while the report said #1, and 1e3 is no record.
        guard !s.isEmpty, s.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            // A decimal (1.5, 1e3) may have meant seconds; 0x10 or inf did not.
            if let v = Double(s), v.isFinite, v >= 0, s.allSatisfy({ "0123456789.eE+".contains($0) }) {
                throw ValidationError("--\(name) \(s): a record number is whole, in digits; for seconds write \(s)s")
            }
            throw expected
        }
        // Up to 2^53, which the range holds exactly and the report says as given.
        guard let record = Int(s), record <= 1 << 53 else {
            throw ValidationError("--\(name) \(s): a record number is at most \(1 << 53)")
        }
        // Records are numbered from 1, as Wireshark's frames are.
        guard record > 0 else { throw ValidationError("--\(name) \(s): records are numbered from 1 (#1 is the first)") }
        return (Double(record), false)
    }

    func run() throws {
        let dissectors = try input.dissectors()
        if let files = try FolderRun.capturesIn(input.file) {
            // A folder: one report per capture in the folder named by -o, each on its own core.
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            let chosen = format ?? .html
            let (options, member, out) = (try self.options(dissectors.sources), input.member, output)
            let configuration = try input.configuration(dissectors, lowerLayers: false)
            // Each file's line: what was written (stdout), or why not (stderr).
            // A file that is no capture (a README, a log) is passed over with a note.
            let results = FolderRun.run(files, progress: Progress.bar) {
                file -> (line: String?, failed: Bool, worst: Severity?, skipped: InputFailure?) in
                let name = file.split(separator: "/").last.map(String.init) ?? file
                let target = out + "/" + name + "." + chosen.rawValue
                do {
                    var reader = try openCapture(
                        file, member: member, inFolder: true,
                        archiveBytes: configuration.limits.archiveBytes)
                    let (summary, worst) = try Self.render(
                        &reader, file: file, configuration, options: options,
                        format: chosen, to: target)
                    return ("\(target): \(summary)", false, worst, nil)
                } catch let failure as InputFailure where failure.notACapture {
                    return (nil, false, nil, failure)
                } catch {
                    return ((error as? InputFailure)?.message ?? "\(file): \(error)", true, nil, nil)
                }
            }
            for r in results {
                if let skipped = r.skipped { FolderRun.skip(skipped) }
                guard let line = r.line else { continue }
                if r.failed { FileHandleStderr.write("btlens: \(line)\n") } else { print(line) }
            }
            guard results.contains(where: { $0.line != nil }) else {
                throw InputFailure(message: "\(input.file): the folder holds no captures")
            }
            try FolderRun.unreadable(zip(files, results).filter(\.1.failed).map(\.0), of: files.count)
            return try input.check(zip(files, results).map { ($0, $1.worst) })
        }
        // The logs are opened before the capture is read: one that cannot be read is said first.
        let merger = try appLog.merger(capture: input.file)
        var reader = try input.open()
        let chosen = format ?? Format(rawValue: pathExtension(output)) ?? .html
        let configuration = try input.configuration(dissectors, lowerLayers: false)
        merger?.rereads(
            input.file, member: input.member, archiveBytes: try input.limitOptions.limits().archiveBytes, configuration)
        let (summary, worst) = try Self.render(
            &reader, file: input.file, configuration,
            options: try options(dissectors.sources), format: chosen, to: output,
            relayed: true, merger: merger)
        // With -o -, the report is standard output, and what it holds is said on stderr.
        if output == "-" {
            FileHandleStderr.write("btlens: report: \(summary)\n")
        } else {
            print("\(output): \(summary)")
        }
        try input.check([(input.file, worst)])
    }

    private func options(_ definitions: DefinitionSources) throws -> ReportBuilder.Options {
        var options = ReportBuilder.Options()
        options.redact = redact
        options.definitions = definitions
        options.filter = filterOption.expression
        if let (r, time) = try range() {
            options.range = r
            options.rangeIsTime = time
        }
        return options
    }

    /// Writes a page to `path` as it is rendered, piece by piece (a report of 20,000 rows is
    /// megabytes, which need not all be in memory); the bytes written.
    static func write(to path: String, _ render: ((UnsafeRawBufferPointer) -> Void) -> Void) throws(InputFailure) -> Int
    {
        // "-" is standard output, left open for what follows.
        let toStdout = path == "-"
        let fd = toStdout ? 1 : OS.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StandardOutput.cannotWrite(path, OS.errno) }
        var written = 0
        var failure: Int32 = 0
        render { piece in
            guard failure == 0, var at = piece.baseAddress else { return }
            var left = piece.count
            while left > 0 {
                let n = OS.write(fd, at, left)
                if n < 0 {
                    if OS.errno == EINTR { continue }
                    failure = OS.errno
                    return
                }
                at += n
                left -= n
                written += n
            }
        }
        if !toStdout, OS.close(fd) != 0, failure == 0 { failure = OS.errno }
        if toStdout, failure != 0 { StandardOutput.failed(failure) }
        guard failure == 0 else {
            throw StandardOutput.cannotWrite(path, failure)
        }
        return written
    }

    static func write(_ text: String, to path: String) throws(InputFailure) -> Int {
        try write(to: path) { out in
            var text = text
            text.withUTF8 { out(UnsafeRawBufferPointer($0)) }
        }
    }

    /// Writes one capture's report in `format` to `path`; a line saying what it holds, and the
    /// capture's worst diagnostic.
    static func render(
        _ reader: inout any CaptureReader, file: String, _ configuration: Configuration,
        options: ReportBuilder.Options, format: Format, to path: String,
        relayed: Bool = false, merger: AppLogMerger? = nil
    ) throws -> (String, Severity?) {
        let (report, worst) = try build(
            &reader, file: file, configuration, options: options, relayed: relayed, merger: merger)
        let written = try write(report, as: format, to: path)
        let errors = report.diagnostics.filter { $0.severity == .error }.reduce(0) { $0 + $1.count }
        let total = report.diagnostics.reduce(0) { $0 + $1.count }
        // Markdown and text hold only the rows around the diagnostics (or the range): said as they are.
        let timeline = format == .md || format == .txt ? ReportText.timeline(report) : report.window
        return (
            "\(format.rawValue) report, \(Plural.of(written, "byte")); \(Plural.of(total, "diagnostic")) (\(Plural.of(errors, "error"))); timeline: \(timeline)",
            worst
        )
    }

    /// One capture's report, and its worst diagnostic.
    static func build(
        _ reader: inout any CaptureReader, file: String, _ configuration: Configuration,
        options: ReportBuilder.Options, relayed: Bool = false, merger: AppLogMerger? = nil
    ) throws -> (Report, Severity?) {
        let builder = ReportBuilder(file: file, info: reader.info, options: options)
        // Compiled for each capture: a filter counts its seconds from the capture's traffic.
        let filter = options.filter.flatMap { try? DisplayFilter($0) }
        if let filter { builder.selects = filter.matches }
        let begin = { (t: Timestamp) in
            builder.begin(at: t)
            filter?.begin(at: t)
        }
        let analyzer: Analyzer
        var logFailure: (any Error)?
        // Seconds count from the traffic's first event: notes before it wait for it (TrafficOrigin).
        let origin = TrafficOrigin()
        if relayed {
            // One capture: reading, decoding and the builder each on a thread, fed in order; the builder's
            // thread is done with it before anything else reads it, even on a failed read.
            var event = builder.event
            if let merger {
                // The app's logs merge in on the builder's thread. The merger holds events up to 2 s to
                // match the lines to them; records go straight on: the builder counts them whole and
                // no count of its events depends on the record before them.
                event = { e in
                    guard logFailure == nil else { return builder.event(e) }
                    do { try merger.event(e, builder.event) } catch { logFailure = error }
                }
            }
            let consume: (ReportBuilder.Input) -> Void = { [event] input in
                guard case .event(let e) = input else { return builder.take(input) }
                origin.pass(e, begin: begin, to: event)
            }
            analyzer = try Pipeline.runRelayed(
                &reader, configuration,
                onRecord: { r, relay in relay.send(.record(r), bytes: r.payload.count) },
                onProblem: { reportProblem(file, $0) },
                onEvent: { e, relay in relay.send(.event(e), bytes: e.heldBytes) },
                consume: consume)
            origin.finish(begin: begin, to: event)
            if let merger, logFailure == nil {
                do { try merger.finish(builder.event) } catch { logFailure = error }
            }
            if let logFailure { throw AppLogOptions.failure(logFailure) }
        } else {
            analyzer = try Pipeline.run(
                &reader, configuration, onRecord: builder.record,
                onProblem: { reportProblem(file, $0) },
                onEvent: { origin.pass($0, begin: begin, to: builder.event) })
            origin.finish(begin: begin, to: builder.event)
        }
        // The threads' freed batches back to the system before the report is finished and written
        // on this one, whose allocations cannot reuse them: 3 MB of peak memory on 600 MB.
        OS.heapTrim()
        let report = builder.finish(
            connections: analyzer.connectionSummaries, gatt: analyzer.gatt, advertisers: analyzer.advertisers)
        return (
            report,
            // The logs' own diagnostics count for --fail-on too; with a filter, those it selects.
            options.filter == nil
                ? [analyzer.worstSeverity, merger?.worstSeverity].compactMap { $0 }.max()
                : report.diagnostics.map(\.severity).max()
        )
    }

    /// Writes `report` in `format` to `path`: the HTML and JSON piece by piece as they are made, the
    /// text whole. The number of bytes written.
    private static func write(_ report: Report, as format: Format, to path: String) throws(InputFailure) -> Int {
        switch format {
        case .md: return try write(ReportText.render(report, markdown: true), to: path)
        case .txt: return try write(ReportText.render(report, markdown: false), to: path)
        case .html, .json: return try write(to: path) { emit(report, as: format, $0) }
        }
    }

    /// The report in `format`, piece by piece as it is made.
    static func emit(_ report: Report, as format: Format, _ out: (UnsafeRawBufferPointer) -> Void) {
        switch format {
        case .html:
            ReportHTML.write(report, generator: "btlens \(Btlens.configuration.version)") { piece in
                var piece = piece
                piece.withUTF8 { out(UnsafeRawBufferPointer($0)) }
            }
        case .md, .txt:
            var text = ReportText.render(report, markdown: format == .md)
            text.withUTF8 { out(UnsafeRawBufferPointer($0)) }
        case .json: ReportJSON.write(report) { out(UnsafeRawBufferPointer($0)) }
        }
    }

}
