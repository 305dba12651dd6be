import BTLensCore
import BTLensDissect
import Foundation

/// Finds definition files, reads them, and registers them next to the built-in dissectors.
public enum DefinitionLoader {
    /// What loading gave: the tables, the files read, every error (a broken file is left out), the
    /// examples that do not hold (their definitions still load), and the files of the current
    /// folder left out because the user's bind the same (each a sentence, also in the table's sources).
    public struct Loaded: Sendable {
        public var table: DissectorTable
        public var files: [String]
        public var errors: [DefinitionError]
        public var warnings: [DefinitionError]
        public var leftOut: [String]

        public init(
            table: DissectorTable, files: [String] = [], errors: [DefinitionError] = [],
            warnings: [DefinitionError] = [],
            leftOut: [String] = []
        ) {
            self.table = table
            self.files = files
            self.errors = errors
            self.warnings = warnings
            self.leftOut = leftOut
        }
    }

    /// A folder (or file) definitions are read from, and why.
    public struct Folder: Sendable, Equatable {
        public enum Role: String, Sendable {
            /// `./Dissectors`: the examples of the folder btlens runs in; the user's definitions win over them.
            case currentFolder = "current folder"
            /// `~/.config/btlens/dissectors`.
            case user = "yours"
            /// Named with `--dissectors` or `dissectors check`: a missing one is an error.
            case given = "--dissectors"
        }

        public var path: String
        public var role: Role

        public init(_ path: String, _ role: Role) {
            self.path = path
            self.role = role
        }
    }

    /// Folders searched when none is named: `$XDG_CONFIG_HOME/btlens/dissectors` (or
    /// `~/.config/btlens/dissectors`), then `./Dissectors`. Missing ones are skipped.
    public static func defaultFolders(environment: [String: String] = ProcessInfo.processInfo.environment) -> [Folder] {
        let config =
            environment["XDG_CONFIG_HOME"].map { $0 + "/btlens/dissectors" }
            ?? environment["HOME"].map { $0 + "/.config/btlens/dissectors" }
        return (config.map { [Folder($0, .user)] } ?? []) + [Folder("Dissectors", .currentFolder)]
    }

    /// The `.yaml`/`.yml` files of a folder, sorted; a path to a file is that file.
    public static func files(in path: String) throws(DefinitionError) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            if let link = OS.brokenLink(path) { throw DefinitionError(file: path, line: nil, link) }
            throw DefinitionError(file: path, line: nil, "no such file or folder")
        }
        guard isDirectory.boolValue else { return [path] }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else {
            throw DefinitionError(file: path, line: nil, "cannot list this folder")
        }
        let base = path.hasSuffix("/") ? path : path + "/"
        return names.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted().map { base + $0 }
    }

    /// A definition file; every error in it, in line order.
    public static func load(file: String) throws(DefinitionErrors) -> DefinitionDissector {
        // Opening a FIFO would wait for a writer: only regular files are read.
        if let kind = DefinitionFile.irregular(file) {
            throw DefinitionErrors([DefinitionError(file: file, line: nil, DefinitionFile.skipped(kind))])
        }
        guard let handle = FileHandle(forReadingAtPath: file) else {
            let reason = OS.openFailure(file, OS.errno)
            throw DefinitionErrors([DefinitionError(file: file, line: nil, "cannot read this file: \(reason)")])
        }
        defer { try? handle.close() }
        // Said with its own size, not the limit's one byte more that is read.
        if let size = try? handle.seekToEnd(), size > UInt64(DefinitionParser.maxFileBytes) {
            throw DefinitionErrors([
                DefinitionError(
                    file: file, line: nil,
                    "file of \(size) bytes; definitions are limited to \(DefinitionParser.maxFileBytes)")
            ])
        }
        try? handle.seek(toOffset: 0)
        // One byte past the limit is enough to know the file is too large.
        let data = [UInt8]((try? handle.read(upToCount: DefinitionParser.maxFileBytes + 1)) ?? Data())
        guard let text = String(validating: data, as: UTF8.self) else {
            throw DefinitionErrors([DefinitionFile.notUTF8(data, file: file)])
        }
        return try DefinitionParser.parse(text: text, file: file)
    }

    /// A definition given as text; `file` names it in errors.
    public static func load(text: String, file: String) throws(DefinitionErrors) -> DefinitionDissector {
        try DefinitionParser.parse(text: text, file: file)
    }

    /// Reads every definition in `paths` (folders or files) into a copy of `base`. With `required`,
    /// a missing path is an error; otherwise it is skipped.
    public static func load(_ paths: [String], required: Bool, base: DissectorTable = .builtIn) -> Loaded {
        load(paths.map { Folder($0, required ? .given : .currentFolder) }, base: base)
    }

    /// Reads the folders in order. A file of the current folder whose bindings clash only with the
    /// user's definitions is left out with a note: the user's win. Any other clash is an error.
    public static func load(_ folders: [Folder], base: DissectorTable = .builtIn) -> Loaded {
        var loaded = Loaded(table: base)
        var userFiles: Set<String> = []
        for folder in folders {
            let files: [String]
            do {
                files = try Self.files(in: folder.path)
            } catch {
                if folder.role == .given { loaded.errors.append(error) }
                loaded.table.sources.folders.append(source(folder, files: [], exists: false))
                continue
            }
            var read: [String] = []
            for file in files {
                if let kind = DefinitionFile.irregular(file) {
                    // Said on every run, never waited on: a FIFO would block the open.
                    let skipped = DefinitionError(file: file, line: nil, DefinitionFile.skipped(kind))
                    loaded.warnings.append(skipped)
                    loaded.table.sources.notes.append(skipped.description)
                    continue
                }
                let d: DefinitionDissector
                do {
                    d = try load(file: file)
                    let others = loaded.table.dissectors.compactMap { $0 as? DefinitionDissector }
                    if let clash = WiresharkExport.clash(d, with: others) {
                        throw DefinitionErrors([DefinitionError(file: file, line: d.protocolLine, clash)])
                    }
                    try loaded.table.register(d)
                } catch let errors as DefinitionErrors {
                    loaded.errors += errors.all
                    continue
                } catch let clashes as DissectorTable.Conflicts {
                    let conflicts = clashes.all
                    if folder.role == .currentFolder, Set(conflicts.map(\.owner)).isSubset(of: userFiles) {
                        let clash = conflicts.map {
                            $0.message.replacingOccurrences(of: "conflicting binding: ", with: "")
                        }.joined(separator: "; ")
                        let note = "\(file) is not loaded, as yours win over the current folder's: \(clash)"
                        loaded.leftOut.append(note)
                        loaded.table.sources.notes.append(note)
                    } else {
                        loaded.errors += conflicts.map { c in
                            DefinitionError(
                                file: file,
                                line: c.source.flatMap { $0.split(separator: ":").last.flatMap { Int($0) } }, c.message)
                        }
                    }
                    continue
                } catch {
                    loaded.errors.append(DefinitionError(file: file, line: nil, "\(error)"))
                    continue
                }
                if folder.role == .user { userFiles.insert(d.origin) }
                loaded.files.append(file)
                read.append(file)
                let failed = ExampleReplay.check(d)
                loaded.warnings += failed
                if !failed.isEmpty {
                    loaded.table.sources.notes.append(
                        "\(file): \(failed.count) of \(d.examples.count) examples do not hold (btlens dissectors check)"
                    )
                }
            }
            loaded.table.sources.folders.append(source(folder, files: read, exists: true))
        }
        return loaded
    }

    /// A folder as every output names it; a file given is named in its folder.
    private static func source(_ folder: Folder, files: [String], exists: Bool) -> DefinitionSources.Folder {
        var isDirectory: ObjCBool = false
        let isFile =
            FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) && !isDirectory.boolValue
        // A FIFO or device given is named itself, as what it is: its folder was not read.
        let irregular = isFile ? DefinitionFile.irregular(folder.path) : nil
        let path =
            isFile && irregular == nil
            ? ((folder.path as NSString).deletingLastPathComponent).nonEmpty ?? "." : folder.path
        return DefinitionSources.Folder(
            path: path, absolute: URL(fileURLWithPath: path).standardizedFileURL.path, role: folder.role.rawValue,
            files: files.map { ($0 as NSString).lastPathComponent }, exists: exists, irregular: irregular)
    }
}

extension String {
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
