import BTLensCore
import Foundation
import GRDB

/// The SQLite database `btlens index` writes and `btlens query` reads, through GRDB: WAL, so that
/// queries run while an index writes; tables made by versioned migrations (docs/index.md).
public final class Store: Sendable {
    let pool: DatabasePool
    /// Its files (the database, its WAL, shared memory and lock): never read as captures.
    public let files: Set<String>

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// `FILE.lock`, held (`flock`) while this store is open for writing: one index at a time.
    private let lock: Int32

    /// Opens (or makes) the store at `path` for an index and brings its tables up to date.
    public init(path: String) throws {
        guard !path.isEmpty else { throw Failure(description: "--db needs a file name") }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw Failure(description: "\(path) is a folder: --db names the store's file")
        }
        lock = try Self.lock(path + ".lock")
        let absolute = CaptureWalk.absolute(path)
        files = [absolute, absolute + "-wal", absolute + "-shm", absolute + ".lock"]
        var config = Configuration()
        config.busyMode = .timeout(30)
        // WAL with NORMAL sync: a crash loses at most the last transactions, never the file.
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        do {
            pool = try DatabasePool(path: path, configuration: config)
            try pool.write { db in
                if try Self.migrator.hasBeenSuperseded(db) {
                    throw Failure(description: "\(path) was made by a newer btlens: its tables are unknown to this one")
                }
                // Another program's database: its tables are not btlens' to add to.
                let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
                if !tables.isEmpty, !tables.contains("grdb_migrations") {
                    throw Failure(
                        description:
                            "\(path) is an SQLite database btlens did not make (it holds \(tables.prefix(3).joined(separator: ", "))): name another file"
                    )
                }
            }
            try Self.migrator.migrate(pool)
        } catch let f as Failure {
            throw f
        } catch {
            throw Failure(description: "\(path): \(Self.describe(error))")
        }
    }

    deinit { OS.close(lock) }

    private static func lock(_ path: String) throws -> Int32 {
        let fd = OS.open(path, O_RDWR | O_CREAT, 0o644)
        guard fd >= 0 else { throw Failure(description: "cannot open \(path): \(OS.describe(OS.errno))") }
        guard OS.lockExclusively(fd) == 0 else {
            OS.close(fd)
            throw Failure(
                description: "another btlens index is writing this store (\(path) is held): wait for it to end")
        }
        return fd
    }

    /// The migrations, in order: `v1` made the tables of `StoreTables.all`. A later change of the
    /// tables is a new migration, never an edit of an old one.
    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            for table in StoreTables.all { try db.execute(sql: Self.create(table)) }
            for table in StoreTables.all {
                for columns in table.indexes {
                    let name = "\(table.name)_by_\(columns.joined(separator: "_"))"
                    try db.execute(
                        sql: "CREATE INDEX \(name) ON \(table.name) (\(columns.joined(separator: ", ")))")
                }
            }
            // Captures whose rows are being written: an index that stopped half way leaves them here.
            try db.execute(sql: "CREATE TABLE pending (capture INTEGER PRIMARY KEY)")
        }
        return m
    }

    static func create(_ t: TableInfo) -> String {
        let columns = t.columns.map { c in
            "\(c.name) \(c.type.rawValue)" + (c.name == "id" && t.name == "captures" ? " PRIMARY KEY" : "")
        }
        return "CREATE TABLE \(t.name) (\(columns.joined(separator: ", ")))"
    }

    /// An SQLite error in words: its message, without GRDB's decoration.
    static func describe(_ error: any Error) -> String {
        guard let e = error as? DatabaseError else { return "\(error)" }
        return e.message ?? "\(e.resultCode)"
    }

    // MARK: what is known

    /// What the store holds of each capture: enough to tell whether its file changed.
    public struct Known: Sendable {
        public var path: String
        public var size: Int64
        public var modified: Int64
        public var sha256: String
        public var indexedBy: String
        /// It could not be read: it is tried again at every index.
        public var failed: Bool
    }

    public func known() throws -> [Int64: Known] {
        try pool.read { db in
            var out: [Int64: Known] = [:]
            let rows = try Row.fetchCursor(
                db, sql: "SELECT id, path, size, modified_ns, sha256, indexed_by, error IS NOT NULL FROM captures")
            while let r = try rows.next() {
                out[r[0]] = Known(
                    path: r[1], size: r[2], modified: r[3], sha256: r[4], indexedBy: r[5], failed: r[6])
            }
            return out
        }
    }

    // MARK: writing

    static let tablesOfRows = StoreTables.all.filter { $0.name != "captures" }.map(\.name)

    /// Rows of captures an earlier index did not finish.
    public func removePending() throws {
        try pool.write { db in
            let ids = try Int64.fetchAll(db, sql: "SELECT capture FROM pending")
            for id in ids { try Self.delete(id, db) }
        }
    }

    /// A capture's rows are about to be written: its old ones go, and it is pending until `finish`.
    public func begin(_ id: Int64) throws {
        try pool.write { db in
            try Self.delete(id, db)
            try db.execute(sql: "INSERT INTO pending (capture) VALUES (?)", arguments: [id])
        }
    }

    public func finish(_ facts: CaptureFacts) throws {
        let table = StoreTables.captures
        try pool.write { db in
            try Self.insert(table.info, [table.row(capture: facts.file.id, facts)], db)
            try db.execute(sql: "DELETE FROM pending WHERE capture = ?", arguments: [facts.file.id])
        }
    }

    /// A file whose bytes did not change though its time did: its new size and time.
    public func touch(_ file: CaptureFile) throws {
        try pool.write { db in
            try db.execute(
                sql: "UPDATE captures SET size = ?, modified_ns = ? WHERE id = ?",
                arguments: [file.size, file.modified, file.id])
        }
    }

    public func remove(_ ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        try pool.write { db in for id in ids { try Self.delete(id, db) } }
    }

    private static func delete(_ id: Int64, _ db: Database) throws {
        for t in tablesOfRows { try db.execute(sql: "DELETE FROM \(t) WHERE capture = ?", arguments: [id]) }
        try db.execute(sql: "DELETE FROM captures WHERE id = ?", arguments: [id])
        try db.execute(sql: "DELETE FROM pending WHERE capture = ?", arguments: [id])
    }

    static func insert(_ table: TableInfo, _ rows: [[Cell]], _ db: Database) throws {
        let names = table.columns.map(\.name)
        let verb = table.name == "captures" ? "INSERT OR REPLACE" : "INSERT"
        let statement = try db.cachedStatement(
            sql:
                "\(verb) INTO \(table.name) (\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))"
        )
        for row in rows {
            // Typed so that GRDB's initialiser for optionals is chosen: its generic one reads each
            // value through a key path, its `[Any]` one casts each.
            let values: [(any DatabaseValueConvertible)?] = row.map { $0.databaseValue }
            try statement.execute(arguments: StatementArguments(values))
        }
    }
}

/// The store as a capture's rows' sink: each batch in one transaction.
final class StoreSink: RowSink {
    let store: Store
    init(_ store: Store) { self.store = store }

    func write(_ table: TableInfo, _ rows: [[Cell]]) throws {
        guard !rows.isEmpty else { return }
        try store.pool.write { db in try Store.insert(table, rows, db) }
    }
}

extension Cell {
    var databaseValue: DatabaseValue {
        switch self {
        case .null: return .null
        case .int(let i): return i.databaseValue
        case .real(let d): return d.databaseValue
        case .text(let s): return s.databaseValue
        }
    }
}
