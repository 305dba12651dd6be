import Foundation
import BTLensDissect

/// Finds definition files, reads them, and registers them next to the built-in dissectors.
public enum DefinitionLoader {
    /// What loading gave: the tables, the files read, and every error (a broken file is left out).
    public struct Loaded: Sendable {
        public var table: DissectorTable
        public var files: [String]
        public var errors: [DefinitionError]

        public init(table: DissectorTable, files: [String] = [], errors: [DefinitionError] = []) {
            self.table = table
            self.files = files
            self.errors = errors
        }
    }

    /// Folders searched when none is named: `./Dissectors`, then `$XDG_CONFIG_HOME/btlens/dissectors`
    /// (or `~/.config/btlens/dissectors`). Missing ones are skipped.
    public static func defaultDirectories(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        let config = environment["XDG_CONFIG_HOME"].map { $0 + "/btlens/dissectors" }
            ?? environment["HOME"].map { $0 + "/.config/btlens/dissectors" }
        return ["Dissectors"] + (config.map { [$0] } ?? [])
    }

    /// The `.yaml`/`.yml` files of a folder, sorted; a path to a file is that file.
    public static func files(in path: String) throws(DefinitionError) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw DefinitionError(file: path, line: nil, "no such file or folder")
        }
        guard isDirectory.boolValue else { return [path] }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else {
            throw DefinitionError(file: path, line: nil, "cannot list this folder")
        }
        let base = path.hasSuffix("/") ? path : path + "/"
        return names.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted().map { base + $0 }
    }

    public static func load(file: String) throws(DefinitionError) -> DefinitionDissector {
        guard let handle = FileHandle(forReadingAtPath: file) else { throw DefinitionError(file: file, line: nil, "cannot read this file") }
        defer { try? handle.close() }
        // One byte past the limit is enough to know the file is too large.
        let data = (try? handle.read(upToCount: DefinitionParser.maxFileBytes + 1)) ?? nil
        guard let text = String(data: data ?? Data(), encoding: .utf8) else {
            throw DefinitionError(file: file, line: nil, "not UTF-8 text")
        }
        return try DefinitionParser.parse(text: text, file: file)
    }

    /// A definition given as text; `file` names it in errors.
    public static func load(text: String, file: String) throws(DefinitionError) -> DefinitionDissector {
        try DefinitionParser.parse(text: text, file: file)
    }

    /// Reads every definition in `paths` (folders or files) into a copy of `base`. With `required`,
    /// a missing path is an error; otherwise it is skipped (the default search folders).
    public static func load(_ paths: [String], required: Bool, base: DissectorTable = .builtIn) -> Loaded {
        var loaded = Loaded(table: base, files: [], errors: [])
        for path in paths {
            let files: [String]
            do {
                files = try Self.files(in: path)
            } catch {
                if required { loaded.errors.append(error) }
                continue
            }
            for file in files {
                do {
                    let d = try load(file: file)
                    try register(d, into: &loaded.table)
                    loaded.files.append(file)
                } catch {
                    loaded.errors.append(error)
                }
            }
        }
        return loaded
    }

    private static func register(_ d: DefinitionDissector, into table: inout DissectorTable) throws(DefinitionError) {
        do {
            try table.register(d)
        } catch {
            let place = error.source.flatMap { $0.split(separator: ":").last.flatMap { Int($0) } }
            throw DefinitionError(file: d.origin, line: place, error.message)
        }
    }
}
