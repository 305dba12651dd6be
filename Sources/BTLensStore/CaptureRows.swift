import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensPipeline
import BTLensReport
import Foundation

/// Where a capture's rows go: the database, or the dataset's files. Rows come a batch at a time,
/// so a capture of any length holds at most `CaptureRows.batchRows` of them.
public protocol RowSink: AnyObject {
    func write(_ table: TableInfo, _ rows: [[Cell]]) throws
}

/// Reads one capture through the pipeline, as `btlens stats` does, and turns what it says into
/// the tables' rows.
public final class CaptureRows {
    static let batchRows = 4096

    private let id: Int64
    private let sink: any RowSink
    private var frames: [[Cell]] = []
    private var diagnostics: [[Cell]] = []
    /// One per log: few.
    private var alignments: [[Cell]] = []
    private var failure: (any Error)?
    private var facts: CaptureFacts

    private init(file: CaptureFile, sink: any RowSink) {
        id = file.id
        self.sink = sink
        facts = CaptureFacts(file: file)
    }

    /// The capture's rows, written to `sink`; its `captures` row is returned, not written, so that
    /// the caller writes it last: a capture is in the store once every row of it is.
    /// With `appLog`, the app's logs are merged in as `stats --app-log` merges them: their
    /// findings are diagnostics, their alignments `app_logs` rows.
    public static func read(
        _ file: CaptureFile, configuration: Configuration, archiveLimit: Int64, appLog: AppLogMerger? = nil,
        into sink: any RowSink
    ) throws -> CaptureFacts {
        let rows = CaptureRows(file: file, sink: sink)
        var reader = try CaptureFormat.open(path: file.path, archiveLimit: archiveLimit)
        // A log its first minute does not place is aligned over the whole capture, as `stats` does.
        appLog?.reread = { each in
            var again = try CaptureFormat.open(path: file.path, archiveLimit: archiveLimit)
            try Pipeline.run(&again, configuration, onEvent: each)
        }
        let stats = StatsCollector(file: file.path, info: reader.info)
        let pass = { (e: Event) in
            stats.event(e)
            rows.event(e)
        }
        let analyzer = try Pipeline.run(
            &reader, configuration, onRecord: stats.record, onProblem: stats.problem,
            onEvent: { e in
                guard let appLog, rows.failure == nil else { return pass(e) }
                do { try appLog.event(e, pass) } catch { rows.failure = error }
            })
        if let appLog, rows.failure == nil {
            do { try appLog.finish(pass) } catch { rows.failure = error }
        }
        if let failure = rows.failure { throw failure }
        stats.add(analyzer.tally)
        stats.finish(bytesRead: reader.bytesRead)
        try rows.flush()
        let connections = analyzer.connectionSummaries
        try sink.write(
            StoreTables.connections.info, connections.map { StoreTables.connections.row(capture: file.id, $0) })
        try sink.write(
            StoreTables.subscriptions.info,
            connections.flatMap { c in
                c.lifecycle.subscriptions.map { StoreTables.subscriptions.row(capture: file.id, (c, $0)) }
            })
        try sink.write(StoreTables.appLogs.info, rows.alignments)
        let commands = stats.commands.sorted
        try sink.write(StoreTables.commands.info, commands.map { StoreTables.commands.row(capture: file.id, $0) })
        return rows.finish(stats, reader.info, connections: connections.count)
    }

    private func event(_ e: Event) {
        guard failure == nil else { return }
        switch e.body {
        case .frame:
            facts.frames += 1
            frames.append(StoreTables.frames.row(capture: id, e))
        case .diagnostic:
            diagnostics.append(StoreTables.diagnostics.row(capture: id, e))
        case .logAlignment(let a):
            facts.appLogs += 1
            alignments.append(StoreTables.appLogs.row(capture: id, a))
        case .iap2Identification(let i):
            facts.accessory = .init(name: i.name, model: i.model, manufacturer: i.manufacturer, firmware: i.firmware)
        case .att(let a) where a.opcode == .readResponse && e.direction == .received:
            if let uuid = a.uuid?.sig16, let value = a.value { deviceInformation(uuid, value, replacing: false) }
        case .gattValue(let g) where g.kind == .longRead && e.direction == .received:
            // A value longer than one response: the whole of it, over the first part's.
            if let uuid = g.uuid?.sig16 { deviceInformation(uuid, g.value[...], replacing: true) }
        default: return
        }
        if frames.count + diagnostics.count >= Self.batchRows {
            do { try flush() } catch { failure = error }
        }
    }

    /// The Device Information Service's strings (and GAP's Device Name) a read returned: the
    /// accessory's identity on LE, unless iAP2 gave it. The first read of each counts, or the long
    /// read that completed it.
    private func deviceInformation(_ uuid: UInt16, _ value: ArraySlice<UInt8>, replacing: Bool) {
        let keys: [UInt16: WritableKeyPath<CaptureFacts.Accessory, String?>] = [
            0x2a00: \.name, 0x2a24: \.model, 0x2a26: \.firmware, 0x2a29: \.manufacturer,
        ]
        guard let key = keys[uuid], value.count <= 512, let text = String(validating: value, as: UTF8.self) else {
            return
        }
        guard replacing || facts.accessory[keyPath: key] == nil else { return }
        facts.accessory[keyPath: key] = text.trimmingCharacters(in: ["\0", " "])
    }

    private func flush() throws {
        if !frames.isEmpty { try sink.write(StoreTables.frames.info, frames) }
        if !diagnostics.isEmpty { try sink.write(StoreTables.diagnostics.info, diagnostics) }
        frames.removeAll(keepingCapacity: true)
        diagnostics.removeAll(keepingCapacity: true)
    }

    private func finish(_ stats: StatsCollector, _ info: CaptureInfo, connections: Int) -> CaptureFacts {
        var f = facts
        f.format = info.format
        f.linkType = info.linkType
        f.records = stats.records
        f.firstTime = stats.firstTime
        f.lastTime = stats.lastTime
        f.connections = connections
        f.diagnostics = stats.diagnostics.values.reduce(0) { $0 + $1.1 }
        f.errors = stats.diagnostics.values.filter { $0.0 == .error }.reduce(0) { $0 + $1.1 }
        f.undecodedBytes = stats.undecodedBytes
        var notes: [String: String] = [:]
        for note in stats.captureNotes {
            guard let colon = note.firstIndex(of: ":") else { continue }
            let key = String(note[..<colon])
            notes[key] = notes[key] ?? note[note.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let bugreport =
            BugreportArchive.isZip(path: f.file.path) ? (try? BugreportArchive(path: f.file.path))?.facts() : nil
        f.phone = bugreport?.phone ?? notes["Product"]
        f.os = bugreport?.os ?? notes["Software"]
        f.controllerFirmware = notes["Firmware Version"]
        return f
    }
}
