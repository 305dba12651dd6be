import BTLensCore
import CBTLensZlib

extension Report {
    /// The timeline rows a report keeps (at most 20,000, docs/limits.md), packed: each row one run
    /// of bytes (its numbers and strings, its dump as bytes) in chunks of 64 KiB, each chunk
    /// deflated once it is full. Rows of Strings took about 700 bytes each (an object per string,
    /// the dump as text, the array doubling as it grew); packed, 250; deflated, about 100. A `Row`
    /// is made when read; reading in order inflates each chunk once.
    public struct Rows: RandomAccessCollection {
        static let chunkBytes = 1 << 16
        /// Where each row begins: its chunk in the high 32 bits, its offset in the low.
        private var starts: [Int] = []
        private var sealed: [Chunk] = []
        /// The chunk rows are being added to, as it is.
        private var open: [UInt8] = []
        /// The sealed chunk read last, inflated. Replaced whenever a chunk is sealed, so that copies
        /// of the rows changed apart never share it.
        private var cache = Cache()

        public init() {}

        public var startIndex: Int { 0 }
        public var endIndex: Int { starts.count }

        /// Bytes held: what `ReportRowsTests` bounds.
        public var heldBytes: Int {
            starts.capacity * MemoryLayout<Int>.stride + open.capacity + cache.bytes.capacity
                + sealed.reduce(0) { $0 + $1.bytes.capacity }
        }

        public mutating func append(_ row: Row) {
            let size = Packed.size(row)
            if open.capacity - open.count < size {
                seal()
                open.reserveCapacity(Swift.max(Self.chunkBytes, size))
            }
            starts.append(sealed.count << 32 | open.count)
            Packed.write(row, into: &open)
        }

        public subscript(i: Int) -> Row {
            let (chunk, offset) = (starts[i] >> 32, starts[i] & 0xffff_ffff)
            guard chunk < sealed.count else { return open.withUnsafeBufferPointer { Packed.read($0, from: offset) } }
            if cache.chunk != chunk { (cache.chunk, cache.bytes) = (chunk, sealed[chunk].inflated) }
            return cache.bytes.withUnsafeBufferPointer { Packed.read($0, from: offset) }
        }

        /// The rows, each changed by `change` (`--redact`); a chunk is let go once its rows are
        /// repacked, so the rows are not held twice.
        public mutating func rewrite(_ change: (inout Row) -> Void) {
            var out = Rows()
            var old = self
            self = Rows()
            for i in old.indices {
                var row = old[i]
                change(&row)
                out.append(row)
                let chunk = old.starts[i] >> 32
                if chunk < old.sealed.count, i + 1 == old.count || old.starts[i + 1] >> 32 != chunk {
                    old.sealed[chunk] = Chunk(bytes: [], size: 0)
                }
            }
            self = out
        }

        private mutating func seal() {
            guard !open.isEmpty else { return }
            sealed.append(Chunk(open))
            open = []
            cache = Cache()
        }

        /// A full chunk: deflated (zlib's fastest level; the rows' text and hex shrink to about
        /// 40 %), or as it was if that would not be smaller.
        struct Chunk {
            var bytes: [UInt8]
            /// Its size inflated; 0 when `bytes` are not deflated.
            var size: Int

            init(bytes: [UInt8], size: Int) { (self.bytes, self.size) = (bytes, size) }

            init(_ raw: [UInt8]) {
                var out = [UInt8](repeating: 0, count: Int(compressBound(UInt(raw.count))))
                var length = UInt(out.count)
                let status = out.withUnsafeMutableBufferPointer { o in
                    raw.withUnsafeBufferPointer {
                        compress2(o.baseAddress, &length, $0.baseAddress, UInt(raw.count), 1)
                    }
                }
                if status == Z_OK, length < raw.count {
                    (bytes, size) = (Array(out.prefix(Int(length))), raw.count)
                } else {
                    (bytes, size) = (raw, 0)
                }
            }

            /// Its bytes as they were; none if zlib refuses them (the rows then read as empty).
            var inflated: [UInt8] {
                guard size > 0 else { return bytes }
                var out = [UInt8](repeating: 0, count: size)
                var length = UInt(size)
                let status = out.withUnsafeMutableBufferPointer { o in
                    bytes.withUnsafeBufferPointer { uncompress(o.baseAddress, &length, $0.baseAddress, UInt($0.count)) }
                }
                return status == Z_OK && length == size ? out : []
            }
        }

        final class Cache {
            var chunk = -1
            var bytes: [UInt8] = []
        }
    }
}

/// How a row is laid out in a chunk: its index and record (LEB128), its connection + 1 (0 for none),
/// its severity + 1 (a byte, 0 for none); then its strings, each a length and its UTF-8, an absent
/// one a length of 0 and a present one its length + 1; the fields as a count and pairs; the dump as
/// a tag (0 none, 1 bytes with the length they were cut from, 2 text); an app log's line as 0 (none)
/// or 1, its source, line, level, tag, message and matched record + 1 (0 for none).
private enum Packed {
    static func size(_ row: Report.Row) -> Int {
        var n = varint(row.index) + varint(row.record) + varint(row.connection.map { Int($0) + 1 } ?? 0) + 1
        n += string(row.offset) + string(row.arrow) + string(row.layer) + string(row.text)
        n += optional(row.diagnosticId) + optional(row.stream) + optional(row.command)
        n += varint(row.fields.count)
        for (k, v) in row.fields { n += string(k) + string(v) }
        switch row.dump {
        case nil: n += 1
        case .bytes(let b, let length)?: n += 1 + varint(length) + varint(b.count) + b.count
        case .text(let s)?: n += 1 + string(s)
        }
        n += 1
        if let l = row.log {
            n += string(l.source) + varint(l.line) + optional(l.level) + optional(l.tag) + string(l.message)
            n += varint(l.matchesRecord.map { $0 &+ 1 } ?? 0)
        }
        return n
    }

    static func write(_ row: Report.Row, into out: inout [UInt8]) {
        varint(row.index, &out)
        varint(row.record, &out)
        varint(row.connection.map { Int($0) + 1 } ?? 0, &out)
        out.append(row.severity.map { UInt8($0.rawValue + 1) } ?? 0)
        string(row.offset, &out)
        string(row.arrow, &out)
        string(row.layer, &out)
        string(row.text, &out)
        optional(row.diagnosticId, &out)
        optional(row.stream, &out)
        optional(row.command, &out)
        varint(row.fields.count, &out)
        for (k, v) in row.fields {
            string(k, &out)
            string(v, &out)
        }
        switch row.dump {
        case nil: out.append(0)
        case .bytes(let b, let length)?:
            out.append(1)
            varint(length, &out)
            varint(b.count, &out)
            out += b
        case .text(let s)?:
            out.append(2)
            string(s, &out)
        }
        guard let l = row.log else { return out.append(0) }
        out.append(1)
        string(l.source, &out)
        varint(l.line, &out)
        optional(l.level, &out)
        optional(l.tag, &out)
        string(l.message, &out)
        varint(l.matchesRecord.map { $0 &+ 1 } ?? 0, &out)
    }

    /// The row written at `at`.
    static func read(_ b: UnsafeBufferPointer<UInt8>, from at: Int) -> Report.Row {
        var at = min(max(at, 0), b.count)
        func int() -> Int {
            var v = 0
            var shift = 0
            while at < b.count {
                let byte = b[at]
                at += 1
                v |= Int(byte & 0x7f) << shift
                if byte < 0x80 { break }
                shift += 7
            }
            return v
        }
        func bytes(_ n: Int) -> UnsafeBufferPointer<UInt8> {
            let end = n >= 0 && n <= b.count - at ? at + n : b.count
            defer { at = end }
            return UnsafeBufferPointer(rebasing: b[at..<end])
        }
        func byte() -> UInt8 { bytes(1).first ?? 0 }
        func string() -> String { String(decoding: bytes(int()), as: UTF8.self) }
        func optional() -> String? {
            let n = int()
            return n == 0 ? nil : String(decoding: bytes(n &- 1), as: UTF8.self)
        }
        let (index, record, connection) = (int(), int(), int())
        let severity = Severity(rawValue: Int(byte()) - 1)
        var row = Report.Row(
            index: index, record: record, offset: string(), arrow: string(),
            connection: connection == 0 ? nil : UInt16(truncatingIfNeeded: connection &- 1), layer: string(),
            text: string())
        row.severity = severity
        row.diagnosticId = optional()
        row.stream = optional()
        row.command = optional()
        // Each field takes two bytes at least.
        let fields = min(int(), (b.count - at) / 2)
        row.fields.reserveCapacity(max(fields, 0))
        for _ in 0..<max(fields, 0) { row.fields.append((string(), string())) }
        switch byte() {
        case 1:
            let length = int()
            row.dump = .bytes(Array(bytes(int())), length: length)
        case 2: row.dump = .text(string())
        default: break
        }
        if byte() == 1 {
            let (source, line, level, tag, message, matched) = (
                string(), int(), optional(), optional(), string(), int()
            )
            row.log = Report.LogLine(
                source: source, line: line, level: level, tag: tag, message: message,
                matchesRecord: matched == 0 ? nil : matched &- 1)
        }
        return row
    }

    static func varint(_ v: Int) -> Int {
        var n = 1
        var v = UInt(bitPattern: v) >> 7
        while v > 0 {
            n += 1
            v >>= 7
        }
        return n
    }

    static func string(_ s: String) -> Int { varint(s.utf8.count) + s.utf8.count }
    static func optional(_ s: String?) -> Int { s.map { varint($0.utf8.count + 1) + $0.utf8.count } ?? 1 }

    static func varint(_ v: Int, _ out: inout [UInt8]) {
        var v = UInt(bitPattern: v)
        while v >= 0x80 {
            out.append(UInt8(v & 0x7f) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    static func string(_ s: String, _ out: inout [UInt8]) {
        varint(s.utf8.count, &out)
        out += s.utf8
    }

    static func optional(_ s: String?, _ out: inout [UInt8]) {
        guard let s else { return out.append(0) }
        varint(s.utf8.count + 1, &out)
        out += s.utf8
    }
}
