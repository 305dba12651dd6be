import Foundation

/// What a definition file is before it is read, and where its text stops being UTF-8.
enum DefinitionFile {
    /// Nil for a regular file (or a link to one); else what it is, as a definition error names it.
    static func irregular(_ path: String) -> String? {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard let type = (try? FileManager.default.attributesOfItem(atPath: resolved))?[.type] as? FileAttributeType
        else { return nil }
        switch type {
        case .typeRegular: return nil
        case .typeDirectory: return "a folder"
        case .typeCharacterSpecial, .typeBlockSpecial: return "a device"
        case .typeSocket: return "a socket"
        // A link that reaches nothing: opening it says why (`OS.openFailure`).
        case .typeSymbolicLink: return nil
        // Foundation has no type for a FIFO: it is the special file a definition folder may hold.
        default: return "a FIFO or other special file"
        }
    }

    static func skipped(_ kind: String) -> String {
        "\(kind), not a regular file: not read (definitions are regular files)"
    }

    /// The line and byte offset of the first byte that is not UTF-8.
    static func notUTF8(_ bytes: [UInt8], file: String) -> DefinitionError {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        var line = 1
        while case .valid(let scalar) = parser.parseScalar(from: &iterator) {
            if scalar.count == 1, scalar.first == UInt8(ascii: "\n") { line += 1 }
            offset += scalar.count
        }
        let shown = offset < bytes.count ? String(format: "0x%02x", bytes[offset]) : "the end"
        return DefinitionError(
            file: file, line: line, "not UTF-8 text: byte \(shown) at byte offset \(offset) is not UTF-8")
    }
}
