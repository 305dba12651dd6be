import BTLensCore
import BTLensDissect

/// One value of a row, as SQLite and the dataset's JSON lines hold it.
public enum Cell: Sendable, Equatable {
    case null
    case int(Int64)
    case real(Double)
    case text(String)

    static func of<T: BinaryInteger>(_ v: T?) -> Cell { v.map { .int(Int64($0)) } ?? .null }
    static func of(_ v: String?) -> Cell { v.map { .text($0) } ?? .null }
    static func of(_ v: Bool?) -> Cell { v.map { .int($0 ? 1 : 0) } ?? .null }
    static func of(_ t: Timestamp?) -> Cell { t.map { .text($0.iso8601) } ?? .null }
}

/// A column's SQLite type (its affinity); the dataset's JSON has the matching JSON type.
public enum SQLType: String, Sendable {
    case integer = "INTEGER"
    case real = "REAL"
    case text = "TEXT"
}

/// What a column is: its name, type and meaning, for the migrations, the dataset's schema and the docs.
public struct ColumnInfo: Sendable, Equatable {
    public let name: String
    public let type: SQLType
    public let meaning: String
}

/// What a table is: its columns in order, and the indexes the named questions need.
public struct TableInfo: Sendable {
    public let name: String
    public let meaning: String
    public let columns: [ColumnInfo]
    /// Each an index over these columns.
    public let indexes: [[String]]
}

/// A column and how its value is read from what a row is made of (`Source`).
struct Column<Source>: Sendable {
    let info: ColumnInfo
    let value: @Sendable (Source) -> Cell

    init(_ name: String, _ type: SQLType, _ meaning: String, _ value: @escaping @Sendable (Source) -> Cell) {
        info = ColumnInfo(name: name, type: type, meaning: meaning)
        self.value = value
    }
}

extension Column where Source == Event {
    /// A column that is a declared event field (`EventFields`): the JSONL key's name, type and
    /// meaning, and its value as the JSONL line writes it.
    static func field(_ key: String, of type: EventType) -> Column {
        guard let f = EventFields.fields(of: type).first(where: { $0.key == key }) else {
            preconditionFailure("no field \(key) declared for \(type.name)")
        }
        let sql: SQLType
        switch f.type {
        case .integer, .boolean: sql = .integer
        case .number: sql = .real
        default: sql = .text
        }
        return Column(key, sql, f.meaning) { e in Cell(f.read(e, []), as: f.type) }
    }
}

extension Cell {
    /// A field's reading as the JSONL line writes it: times as ISO 8601, bytes as hex, booleans as 0 or 1.
    init(_ r: FieldReading?, as type: FieldType) {
        switch (r, type) {
        case (.int(let us)?, .time): self = .text(Timestamp(microseconds: us).iso8601)
        case (.int(let i)?, _): self = .int(i)
        case (.number(let d)?, _): self = .real(d)
        case (.string(let s)?, _): self = .text(s)
        case (.bool(let b)?, _): self = .int(b ? 1 : 0)
        case (.bytes(let b)?, _): self = .text(Hex.string(b))
        default: self = .null
        }
    }
}

/// A table's declaration: its columns and where their values come from. Every row begins with
/// `capture` (the `captures` table's own is `id`).
struct Table<Source>: Sendable {
    let name: String
    let meaning: String
    let columns: [Column<Source>]
    var indexes: [[String]] = []

    var info: TableInfo {
        let key = name == "captures" ? [] : [ColumnInfo(name: "capture", type: .integer, meaning: "the capture's id")]
        return TableInfo(name: name, meaning: meaning, columns: key + columns.map(\.info), indexes: indexes)
    }

    func row(capture: Int64, _ source: Source) -> [Cell] {
        var cells: [Cell] = []
        cells.reserveCapacity(columns.count + 1)
        if name != "captures" { cells.append(.int(capture)) }
        for c in columns { cells.append(c.value(source)) }
        return cells
    }
}
