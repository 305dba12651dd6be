import BTLensCore

/// How much of an app log is held at once (docs/limits.md).
public struct AppLogLimits: Sendable, Equatable {
    /// A physical line; the rest of a longer one is skipped (`applog.line.long`).
    public var lineBytes = 65_536
    /// An entry with its continuation lines; further ones are dropped (`applog.entry.long`).
    public var entryBytes = 262_144
    /// A line with no end past this is no text log's (`/dev/zero`): reading stops (`AppLogError.endlessLine`).
    public var endlessLineBytes = 16 << 20

    public init(lineBytes: Int = 65_536, entryBytes: Int = 262_144, endlessLineBytes: Int = 16 << 20) {
        self.lineBytes = lineBytes
        self.entryBytes = entryBytes
        self.endlessLineBytes = endlessLineBytes
    }
}

/// A problem on one line of an app log.
public struct AppLogProblem: Sendable, Equatable {
    /// 1-based line number in the file.
    public var line: Int
    public var diagnostic: Diagnostic
}

public enum AppLogItem: Sendable, Equatable {
    case line(AppLogLine)
    /// Comes right after the entry it concerns, or alone for a line that is in no entry.
    case problem(AppLogProblem)
}

/// Reads an app log as it arrives: bytes appended in chunks, entries taken one at a time, never the
/// whole file. An entry is complete when the next timed line (or the end) shows that no more
/// continuation lines follow, so it comes one line late. Without a format, the first 50 non-empty
/// lines are held to detect it (at most 50 × `lineBytes`).
public struct AppLogReader {
    public private(set) var format: AppLogFormat?
    public let limits: AppLogLimits
    /// Lines in no entry: before the first timed line (headers), after a separator (`log show`'s
    /// closing counts, logcat's `--------- beginning of main`), blank lines after an entry, ndjson
    /// lines that are not events.
    public private(set) var skippedLines = 0

    private var lines: PhysicalLines
    /// Lines held until the format is detected; a run of blank lines is one count.
    private var held: [Held] = []
    private var heldNonEmpty = 0
    private var entry: EntryBuilder?
    /// Blank lines after the entry, joined only if a continuation line follows them.
    private var blanks = 0
    /// False after a separator: untimed lines then continue nothing.
    private var continuing = true
    /// Whether the last physical line went into `entry` (so that a cut of it is said with it).
    private var lastLineInEntry = false
    private var ready: [AppLogItem] = []
    private var readyIndex = 0
    private var sections: BugreportSections?
    /// `flush()` was called: the held entry is complete once the lines there are have been read.
    private var flushing = false
    /// Whether the last line was read (a cut of a line outside the sections is not said).
    private var lastLineAdmitted = true

    private enum Held {
        case event(PhysicalLines.Event)
        case blanks(Int)
    }

    /// `bugreport`: the bytes are an Android bugreport's text, of which only the logcat sections are
    /// read (`BugreportSections`); line numbers stay those of the whole text.
    public init(format: AppLogFormat? = nil, limits: AppLogLimits = AppLogLimits(), bugreport: Bool = false) {
        self.format = format
        self.limits = limits
        lines = PhysicalLines(limit: limits.lineBytes, endless: limits.endlessLineBytes)
        sections = bugreport ? BugreportSections() : nil
    }

    public mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 { lines.append(bytes) }

    /// No more bytes will come: the held entry and a last line without a line end are complete.
    public mutating func finish() { lines.finish() }

    /// The log has gone quiet: once the lines it has are read, the entry held for continuation lines
    /// comes out at the next `next()` (a continuation line that comes later is then in no entry),
    /// and the lines held to detect the format are read if they show one (else they stay held). A
    /// line not yet ended stays unread.
    public mutating func flush() { flushing = true }

    /// The next entry or problem; nil when more bytes are needed, or after `finish` at the end.
    /// Throws when the format cannot be detected, or a bugreport holds no logcat.
    public mutating func next() throws -> AppLogItem? {
        while true {
            if readyIndex < ready.count {
                defer { readyIndex += 1 }
                return ready[readyIndex]
            }
            ready.removeAll(keepingCapacity: true)
            readyIndex = 0
            guard let event = try nextLine() else {
                guard lines.finished else {
                    guard flushing else { return nil }
                    flushing = false
                    if format == nil, heldNonEmpty > 0 { try? detect() }
                    if format != nil { complete() }
                    continue
                }
                if let sections, sections.sections == 0 { throw AppLogError.noLogcat }
                if format == nil { try detect() }
                guard ready.isEmpty else { continue }
                complete()
                if ready.isEmpty { return nil }
                continue
            }
            guard admits(event) else { continue }
            guard let format else {
                hold(event)
                if heldNonEmpty >= AppLogFormat.detectionLines { try detect() }
                continue
            }
            take(event, format)
        }
    }

    /// Reads the lines appended so far until the format is known (`next()` then gives them): the
    /// format, or nil while more lines are needed. Throws as `next()` does when none is found.
    public mutating func detectFormat() throws -> AppLogFormat? {
        while format == nil {
            guard let event = try nextLine() else {
                guard lines.finished else { return nil }
                if let sections, sections.sections == 0 { throw AppLogError.noLogcat }
                try detect()
                break
            }
            guard admits(event) else { continue }
            hold(event)
            if heldNonEmpty >= AppLogFormat.detectionLines { try detect() }
        }
        return format
    }

    /// The next physical line; the first without the UTF-8 byte order mark an editor may put there.
    /// Throws at a line that does not end.
    private mutating func nextLine() throws -> PhysicalLines.Event? {
        let event = lines.next()
        if case .endless(let number)? = event {
            throw AppLogError.endlessLine(line: number, limit: limits.endlessLineBytes)
        }
        guard case .line(1, let bytes)? = event, bytes.starts(with: [0xef, 0xbb, 0xbf]) else { return event }
        return .line(1, Array(bytes.dropFirst(3)))
    }

    /// Whether the line is read: in a bugreport, only the lines of its logcat sections are.
    private mutating func admits(_ event: PhysicalLines.Event) -> Bool {
        guard sections != nil else { return true }
        switch event {
        case .line(_, let bytes): lastLineAdmitted = sections?.admits(bytes) ?? true
        case .cut, .endless: break
        }
        return lastLineAdmitted
    }

    private mutating func hold(_ event: PhysicalLines.Event) {
        if case .line(_, let bytes) = event, bytes.isEmpty {
            if case .blanks(let n)? = held.last {
                held[held.count - 1] = .blanks(n + 1)
            } else {
                held.append(.blanks(1))
            }
            return
        }
        if case .line = event { heldNonEmpty += 1 }
        held.append(.event(event))
    }

    /// Detects the format from the held lines and reads them; nothing held is nothing to detect.
    private mutating func detect() throws {
        // Separators are in no entry: a logcat of only `--------- beginning of main` is an empty logcat.
        var separators = 0
        let sample = held.compactMap { h -> String? in
            guard case .event(.line(_, let bytes)) = h else { return nil }
            if Self.isSeparator(bytes) {
                separators += 1
                return nil
            }
            return String(line: bytes)
        }
        let detected: AppLogFormat
        if let first = sample.first {
            guard let found = AppLogFormat.detect(firstLines: sample) else {
                throw AppLogError.unrecognised(line: first)
            }
            detected = found
        } else {
            detected = separators > 0 ? .logcatThreadtime : .timestamped
        }
        format = detected
        let replay = held
        held = []
        for h in replay {
            switch h {
            case .event(let e): take(e, detected)
            case .blanks(let n): for _ in 0..<n { take(.line(0, []), detected) }
            }
        }
    }

    private mutating func take(_ event: PhysicalLines.Event, _ format: AppLogFormat) {
        switch event {
        case .cut(let number, let bytes):
            let d = Diagnostic(
                AppLogDiagnostics.lineLong,
                "line \(number) is \(bytes) bytes long: at most \(limits.lineBytes) are read, the rest is skipped",
                fields: [("line", .int(number)), ("bytes", .int(bytes)), ("limit", .int(limits.lineBytes))])
            if lastLineInEntry, entry != nil {
                entry?.problems.append(.problem(AppLogProblem(line: number, diagnostic: d)))
            } else {
                ready.append(.problem(AppLogProblem(line: number, diagnostic: d)))
            }
        case .endless: break
        case .line(let number, let bytes):
            lastLineInEntry = false
            guard !bytes.isEmpty else {
                if entry != nil && continuing { blanks += 1 } else { skippedLines += 1 }
                return
            }
            if let fields = format.fields(bytes) {
                complete()
                entry = EntryBuilder(number: number, fields: fields, first: bytes)
                continuing = true
                lastLineInEntry = true
            } else if !format.hasContinuations {
                skippedLines += 1
                if case .summary = OSLogNDJSON.parse(bytes) { return }
                let found = String(line: bytes.prefix(60))
                let d = Diagnostic(
                    AppLogDiagnostics.lineUnparsed,
                    "line \(number): expected a log show ndjson event (a JSON object with a timestamp), found \"\(found)\"",
                    fields: [("line", .int(number))])
                ready.append(.problem(AppLogProblem(line: number, diagnostic: d)))
            } else if Self.isSeparator(bytes) {
                complete()
                continuing = false
                skippedLines += 1
            } else if continuing, entry != nil {
                let (after, limit) = (blanks, limits.entryBytes)
                entry?.continue(with: bytes, number: number, after: after, limit: limit)
                blanks = 0
                lastLineInEntry = true
            } else {
                skippedLines += 1
            }
        }
    }

    /// The entry held, if any, is complete: it goes out with its problems.
    private mutating func complete() {
        skippedLines += blanks
        blanks = 0
        guard let e = entry else { return }
        entry = nil
        ready.append(.line(e.line))
        ready += e.problems
        if let d = e.droppedDiagnostic(limit: limits.entryBytes) {
            ready.append(.problem(AppLogProblem(line: e.number, diagnostic: d)))
        }
    }

    /// A line of dashes (`log show`'s rule before its counts) or logcat's `--------- beginning of main`.
    static func isSeparator(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: Array("--------- ".utf8)) || bytes.count >= 10 && bytes.allSatisfy { $0 == 0x2d }
    }
}
