/// A JSON checker stricter than the parsers consumers use: those keep the last of two equal keys
/// and lose the first silently, so a line with a duplicate key is refused here (RFC 8259 §4 says
/// names "SHOULD be unique"; the JSONL contract says they are).
public enum StrictJSON {
    public struct Invalid: Error, CustomStringConvertible {
        public var offset: Int
        public var reason: String
        public var description: String { "at byte \(offset): \(reason)" }
    }

    /// Checks that `text` is one JSON value whose objects have unique keys; returns the top level's keys
    /// when it is an object.
    @discardableResult
    public static func check(_ text: String) throws -> [String] {
        var p = Parser(bytes: Array(text.utf8))
        p.skipSpace()
        let keys = try p.value()
        p.skipSpace()
        guard p.i == p.bytes.count else { throw Invalid(offset: p.i, reason: "text after the value") }
        return keys
    }

    private struct Parser {
        var bytes: [UInt8]
        var i = 0

        mutating func skipSpace() {
            while i < bytes.count, [0x20, 0x09, 0x0a, 0x0d].contains(bytes[i]) { i += 1 }
        }

        func fail(_ reason: String) -> Invalid { Invalid(offset: i, reason: reason) }

        mutating func expect(_ c: UInt8) throws {
            guard i < bytes.count, bytes[i] == c else { throw fail("expected '\(Character(Unicode.Scalar(c)))'") }
            i += 1
        }

        /// Parses one value; an object's keys are returned.
        mutating func value() throws -> [String] {
            guard i < bytes.count else { throw fail("value expected") }
            switch bytes[i] {
            case UInt8(ascii: "{"): return try object()
            case UInt8(ascii: "["):
                i += 1
                skipSpace()
                if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
                    i += 1
                    return []
                }
                while true {
                    skipSpace()
                    _ = try value()
                    skipSpace()
                    if i < bytes.count, bytes[i] == UInt8(ascii: ",") {
                        i += 1
                        continue
                    }
                    try expect(UInt8(ascii: "]"))
                    return []
                }
            case UInt8(ascii: "\""):
                _ = try string()
                return []
            default:
                try scalar()
                return []
            }
        }

        mutating func object() throws -> [String] {
            try expect(UInt8(ascii: "{"))
            var keys: [String] = []
            var seen = Set<String>()
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
                i += 1
                return keys
            }
            while true {
                skipSpace()
                let at = i
                let key = try string()
                guard seen.insert(key).inserted else { throw Invalid(offset: at, reason: "duplicate key \"\(key)\"") }
                keys.append(key)
                skipSpace()
                try expect(UInt8(ascii: ":"))
                skipSpace()
                _ = try value()
                skipSpace()
                if i < bytes.count, bytes[i] == UInt8(ascii: ",") {
                    i += 1
                    continue
                }
                try expect(UInt8(ascii: "}"))
                return keys
            }
        }

        mutating func string() throws -> String {
            try expect(UInt8(ascii: "\""))
            let start = i
            while i < bytes.count, bytes[i] != UInt8(ascii: "\"") {
                guard bytes[i] >= 0x20 else { throw fail("control character in a string") }
                if bytes[i] == UInt8(ascii: "\\") {
                    i += 1
                    guard i < bytes.count, Array("\"\\/bfnrtu".utf8).contains(bytes[i]) else {
                        throw fail("bad escape")
                    }
                }
                i += 1
            }
            let text = String(decoding: bytes[start..<min(i, bytes.count)], as: UTF8.self)
            try expect(UInt8(ascii: "\""))
            return text
        }

        /// A number, true, false or null.
        mutating func scalar() throws {
            let start = i
            while i < bytes.count, !Array(",]} \t\r\n".utf8).contains(bytes[i]) { i += 1 }
            let word = String(decoding: bytes[start..<i], as: UTF8.self)
            if ["true", "false", "null"].contains(word) { return }
            guard Double(word) != nil, word.first.map({ $0 == "-" || $0.isNumber }) == true else {
                throw Invalid(offset: start, reason: "not a JSON value: \(word)")
            }
        }
    }
}
