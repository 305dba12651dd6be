import BTLensCore
import BTLensReport
import Foundation
import GRDB

/// `btlens query`: one SQL statement over the store, read only, its rows printed as a table, JSON
/// or CSV as they come (a table's widths are those of its first `widthRows` rows).
public enum StoreQuery {
    public enum Format: String, Sendable, CaseIterable { case table, json, csv }

    static let widthRows = 1000

    /// Runs `sql` on the store at `path` and writes its rows to `out`; returns how many.
    @discardableResult
    public static func run(path: String, sql: String, format: Format, to out: OutputSink) throws -> Int {
        guard !path.isEmpty else { throw Store.Failure(description: "--db needs a file name") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw Store.Failure(description: "\(path): no such store (make one with btlens index --db \(path) PATH...)")
        }
        guard !isDirectory.boolValue else {
            throw Store.Failure(description: "\(path) is a folder: --db names the store's file")
        }
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(30)
        do {
            let queue = try DatabaseQueue(path: path, configuration: config)
            return try queue.read { db in
                let statement = try db.makeStatement(sql: sql)
                let cursor = try Row.fetchCursor(statement)
                var printer = Printer(format: format, columns: Self.unique(statement.columnNames), out: out)
                while let row = try cursor.next() { printer.row(row.databaseValues.map(Cell.init)) }
                printer.end()
                return printer.count
            }
        } catch let e as DatabaseError where (e.message ?? "").hasPrefix("Multiple statements") {
            throw Store.Failure(description: "give one SQL statement at a time: this text holds more than one")
        } catch let e as DatabaseError {
            throw Store.Failure(description: "\(path): \(Store.describe(e))")
        }
    }

    /// Column names as keys: a name said twice (`SELECT 1 a, 2 a`) is `a`, then `a_2`.
    static func unique(_ names: [String]) -> [String] {
        var seen: Set<String> = []
        return names.map { name in
            var n = name
            var k = 2
            while !seen.insert(n).inserted {
                n = "\(name)_\(k)"
                k += 1
            }
            return n
        }
    }

    struct Printer {
        let format: Format
        let columns: [String]
        let out: OutputSink
        var count = 0
        private var held: [[Cell]] = []
        private var widths: [Int] = []

        init(format: Format, columns: [String], out: OutputSink) {
            self.format = format
            self.columns = columns
            self.out = out
            switch format {
            case .csv: out.write(columns.map(Self.csv).joined(separator: ",") + "\n")
            case .json: out.write("[")
            case .table: break
            }
        }

        mutating func row(_ cells: [Cell]) {
            count += 1
            switch format {
            case .csv: out.write(cells.map { Self.csv($0.text ?? "") }.joined(separator: ",") + "\n")
            case .json: json(cells)
            case .table:
                guard widths.isEmpty else { return table(cells) }
                held.append(cells)
                if held.count == StoreQuery.widthRows { flushHeld() }
            }
        }

        mutating func end() {
            switch format {
            case .csv: break
            case .json: out.write(count == 0 ? "]\n" : "\n]\n")
            case .table:
                if widths.isEmpty { flushHeld() }
                out.write("(\(count) row\(count == 1 ? "" : "s"))\n")
            }
        }

        private func json(_ cells: [Cell]) {
            var w = JSONWriter()
            w.beginObject()
            for (name, cell) in zip(columns, cells) {
                w.key(named: name)
                cell.write(&w)
            }
            w.endObject()
            out.write(count == 1 ? "\n" : ",\n")
            w.withBytes { out.write($0) }
        }

        private mutating func flushHeld() {
            widths = columns.map { TerminalText.safe($0).count }
            for r in held {
                for (i, c) in r.enumerated() where i < widths.count {
                    widths[i] = max(widths[i], TerminalText.safe(c.text ?? "").count)
                }
            }
            out.write(line(columns.map { .text($0) }))
            out.write(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n")
            for r in held { table(r) }
            held = []
        }

        private func table(_ cells: [Cell]) { out.write(line(cells)) }

        /// Numbers right-aligned, text left-aligned, null as nothing.
        private func line(_ cells: [Cell]) -> String {
            var parts: [String] = []
            for (i, c) in cells.enumerated() {
                let text = TerminalText.safe(c.text ?? "")
                let pad = String(repeating: " ", count: max(0, (i < widths.count ? widths[i] : 0) - text.count))
                switch c {
                case .int, .real: parts.append(pad + text)
                default: parts.append(i == cells.count - 1 ? text : text + pad)
                }
            }
            return parts.joined(separator: "  ") + "\n"
        }

        /// RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled.
        static func csv(_ s: String) -> String {
            guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
            return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
    }
}

extension Cell {
    init(_ v: DatabaseValue) {
        switch v.storage {
        case .null: self = .null
        case .int64(let i): self = .int(i)
        case .double(let d): self = .real(d)
        case .string(let s): self = .text(s)
        case .blob(let b): self = .text(Hex.string(b))
        }
    }

    /// As text: what a table or CSV shows; nil for null.
    var text: String? {
        switch self {
        case .null: return nil
        case .int(let i): return String(i)
        case .real(let d): return d.isFinite ? String(d) : nil
        case .text(let s): return s
        }
    }

    func write(_ w: inout JSONWriter) {
        switch self {
        case .null: w.null()
        case .int(let i): w.int(i)
        case .real(let d): if d.isFinite { w.number(d) } else { w.null() }
        case .text(let s): w.string(s)
        }
    }
}
