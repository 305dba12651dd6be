/// Writes JSON objects with keys in the order given, straight into a byte buffer.
/// Output is deterministic: no dictionaries, no locale, no floating point.
///
/// The buffer is raw memory that grows by doubling: each value reserves its room once and is then
/// written through a pointer, as a JSONL line is hundreds of small writes (no array uniqueness or
/// bounds check per byte: scripts/benchmark's JSONL timeline figure). Safe because every write stays within what
/// `reserve` made room for, so `end <= capacity`, and because the writer is not copyable: one
/// owner, which frees the memory once.
public struct JSONWriter: ~Copyable {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int
    /// Bytes written.
    @inlinable public var count: Int { end }
    @usableFromInline var end = 0
    /// Whether the innermost open object or array has a member yet. An enclosing one always has:
    /// the one open inside it.
    @usableFromInline var needsComma = false
    /// True between a key and its value: the value takes no comma.
    @usableFromInline var afterKey = false
    @usableFromInline var cachedSecond = Int64.min
    /// `"` and the date and time up to the second of the last timestamp written (lines in a row
    /// share them), in a register's width: one store writes them.
    @usableFromInline var cachedPrefix = SIMD32<UInt8>()
    @usableFromInline var cachedPrefixCount = 0

    @inlinable public init() {
        capacity = 512
        base = .allocate(capacity: capacity)
    }

    deinit { base.deallocate() }

    /// A copy of what was written.
    @inlinable public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: end)) }

    /// What was written, without copying it.
    @inlinable public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: base, count: end))
    }

    /// Hands what was written so far to `body` and empties the writer, which goes on with the same
    /// document: a long document is written out in pieces.
    @inlinable public mutating func drain(_ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        body(UnsafeBufferPointer(start: base, count: end))
        end = 0
    }

    /// Empties the writer for the next document, keeping its storage and its time cache.
    @inlinable public mutating func reset() {
        end = 0
        needsComma = false
        afterKey = false
    }

    /// Where the writer stands: `rewind(to:)` forgets what was written since (a field whose bytes
    /// ran short). The time cache stays: it describes a timestamp, not the buffer.
    public struct Mark {
        @usableFromInline let count: Int
        @usableFromInline let needsComma: Bool
        @usableFromInline let afterKey: Bool

        @inlinable init(count: Int, needsComma: Bool, afterKey: Bool) {
            (self.count, self.needsComma, self.afterKey) = (count, needsComma, afterKey)
        }
    }

    @inlinable public func mark() -> Mark { Mark(count: end, needsComma: needsComma, afterKey: afterKey) }

    @inlinable public mutating func rewind(to mark: Mark) {
        // Never forward: past `end` the buffer holds nothing written.
        end = min(mark.count, end)
        needsComma = mark.needsComma
        afterKey = mark.afterKey
    }

    /// Ends a JSONL line.
    @inlinable public mutating func newline() { put(0x0a) }

    @inlinable public mutating func beginObject() { open(UInt8(ascii: "{")) }
    @inlinable public mutating func endObject() { close(UInt8(ascii: "}")) }
    @inlinable public mutating func beginArray() { open(UInt8(ascii: "[")) }
    @inlinable public mutating func endArray() { close(UInt8(ascii: "]")) }

    /// Keys are the program's own ASCII names, literals: copied whole with one room check, not escaped.
    @inlinable @inline(__always) public mutating func key(_ k: StaticString) {
        guard k.hasPointerRepresentation else { return k.withUTF8Buffer { key($0) } }
        key(UnsafeBufferPointer(start: k.utf8Start, count: k.utf8CodeUnitCount))
    }

    /// A key only known at run time (a decoder's field name).
    @inlinable public mutating func key(named k: String) {
        var k = k
        k.withUTF8 { key($0) }
    }

    /// A key already quoted and escaped (`encode(_:)`).
    @inlinable public mutating func key(encoded json: [UInt8]) {
        json.withUnsafeBufferPointer { json in
            reserve(json.count + 2)
            if needsComma {
                base[end] = UInt8(ascii: ",")
                end += 1
            }
            ShortCopy.copy(json, to: base + end)
            base[end + json.count] = UInt8(ascii: ":")
            end += json.count + 1
        }
        afterKey = true
    }

    /// `,"name":`
    @inline(__always) @inlinable mutating func key(_ name: UnsafeBufferPointer<UInt8>) {
        reserve(name.count + 4)
        if needsComma {
            base[end] = UInt8(ascii: ",")
            end += 1
        }
        base[end] = UInt8(ascii: "\"")
        ShortCopy.copy(name, to: base + end + 1)
        base[end + name.count + 1] = UInt8(ascii: "\"")
        base[end + name.count + 2] = UInt8(ascii: ":")
        end += name.count + 3
        afterKey = true
    }

    @inlinable public mutating func string(_ s: String) {
        beginValue()
        appendEscaped(s)
    }

    /// A string in its JSON form from `encode(_:)`, copied as it is: for names written on many lines.
    @inlinable public mutating func string(encoded json: [UInt8]) {
        beginValue()
        json.withUnsafeBufferPointer { append($0) }
    }

    /// `s` as a JSON string, quoted and escaped once, to be written with `string(encoded:)`.
    @inlinable public static func encode(_ s: String) -> [UInt8] {
        var w = JSONWriter()
        w.string(s)
        return w.bytes
    }

    /// One of the program's own names (an event type): plain ASCII, copied without an escaping pass.
    @inlinable @inline(__always) public mutating func string(literal s: StaticString) {
        beginValue()
        s.withUTF8Buffer { name in
            reserve(name.count + 2)
            base[end] = UInt8(ascii: "\"")
            ShortCopy.copy(name, to: base + end + 1)
            base[end + name.count + 1] = UInt8(ascii: "\"")
            end += name.count + 2
        }
    }

    @inlinable @inline(__always) public mutating func int<T: BinaryInteger>(_ v: T) {
        beginValue()
        // A UInt64 past Int64.max (a definition's u8 field) is written whole, not wrapped negative.
        guard let i = Int64(exactly: v) else { return appendRaw(String(v)) }
        appendDecimal(i)
    }

    @inlinable public mutating func bool(_ v: Bool) {
        beginValue()
        appendLiteral(v ? "true" : "false")
    }

    @inlinable public mutating func null() {
        beginValue()
        appendLiteral("null")
    }

    /// A number: integral values without a fraction, others in Swift's shortest round-trip form.
    @inlinable public mutating func number(_ d: Double) {
        guard d.isFinite else { return null() }
        if d == d.rounded(), abs(d) < 1e15 { return int(Int64(d)) }
        beginValue()
        appendRaw(String(d))
    }

    /// Microseconds as milliseconds: the text `number(Double(us) / 1000)` writes, made with integers.
    @inlinable public mutating func milliseconds(microseconds us: Int64) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { text in
            guard let start = text.baseAddress, let n = DecimalDigits.milliseconds(us, into: start) else {
                return number(Double(us) / 1000)
            }
            beginValue()
            append(UnsafeBufferPointer(start: start, count: n))
        }
    }

    /// Bytes as a lowercase hex string, written in place: payloads are most of a line.
    @inlinable public mutating func hex<C: Collection>(_ v: C) where C.Element == UInt8 {
        beginValue()
        reserve(Hex.encodedLength(v.count, separated: false) + 2)
        base[end] = UInt8(ascii: "\"")
        let written = Hex.write(v, into: base + end + 1)
        base[end + 1 + written] = UInt8(ascii: "\"")
        end += written + 2
    }

    /// A timestamp as an ISO 8601 string; the date and time up to the second are cached.
    @inlinable public mutating func time(_ t: Timestamp) {
        let (seconds, micros) = t.microseconds.quotientAndRemainder(dividingBy: 1_000_000)
        guard micros >= 0 else { return string(t.iso8601) }
        if seconds != cachedSecond {
            cachedSecond = seconds
            // All but the six digits and "Z": a damaged capture's year can have more than four digits.
            let prefix = [UInt8(ascii: "\"")] + t.iso8601.utf8.dropLast(7)
            cachedPrefix = SIMD32()
            for (i, byte) in prefix.enumerated() { cachedPrefix[i] = byte }
            cachedPrefixCount = prefix.count
        }
        beginValue()
        reserve(cachedPrefix.scalarCount + 8)
        UnsafeMutableRawPointer(base + end).storeBytes(of: cachedPrefix, as: SIMD32<UInt8>.self)
        end += cachedPrefixCount
        // Six digits of microseconds, then "Z" and the quote.
        DecimalDigits.write(UInt64(micros), count: 6, into: base + end)
        base[end + 6] = UInt8(ascii: "Z")
        base[end + 7] = UInt8(ascii: "\"")
        end += 8
    }

    /// A decoder's field: its name is only known at run time.
    @inlinable public mutating func field(named k: String, _ v: FieldValue) {
        key(named: k)
        switch v {
        case .int(let i): int(i)
        case .hex(let i, _): int(i)
        case .string(let s): string(s)
        case .bool(let b): bool(b)
        case .bytes(let b): hex(b)
        case .decimal(let units, let scale):
            beginValue()
            appendRaw(FieldValue.decimalText(units, scale: scale))
        }
    }

    @inlinable public mutating func field(_ k: StaticString, _ s: String) {
        key(k)
        string(s)
    }
    @inlinable public mutating func field<T: BinaryInteger>(_ k: StaticString, _ v: T) {
        key(k)
        int(v)
    }
    @inlinable public mutating func field(_ k: StaticString, _ v: Bool) {
        key(k)
        bool(v)
    }
    @inlinable public mutating func field<T: BinaryInteger>(named k: String, _ v: T) {
        key(named: k)
        int(v)
    }
    @inlinable public mutating func field(named k: String, _ s: String) {
        key(named: k)
        string(s)
    }

    // MARK: the buffer

    @inline(__always) @inlinable mutating func beginValue() {
        if afterKey { afterKey = false } else if needsComma { put(UInt8(ascii: ",")) }
        needsComma = true
    }

    @inlinable mutating func open(_ bracket: UInt8) {
        beginValue()
        put(bracket)
        needsComma = false
    }

    @inlinable mutating func close(_ bracket: UInt8) {
        needsComma = true
        put(bracket)
    }

    /// Room for `n` more bytes.
    @inline(__always) @inlinable mutating func reserve(_ n: Int) {
        if end + n > capacity { grow(end + n) }
    }

    @inlinable mutating func grow(_ needed: Int) {
        var grown = capacity * 2
        while grown < needed { grown *= 2 }
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        moved.update(from: base, count: end)
        base.deallocate()
        base = moved
        capacity = grown
    }

    @inline(__always) @inlinable mutating func put(_ byte: UInt8) {
        reserve(1)
        base[end] = byte
        end += 1
    }

    @inline(__always) @inlinable mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        reserve(bytes.count)
        ShortCopy.copy(bytes, to: base + end)
        end += bytes.count
    }

    @inline(__always) @inlinable mutating func appendLiteral(_ s: StaticString) {
        s.withUTF8Buffer { append($0) }
    }

    @inlinable mutating func appendRaw(_ s: String) {
        var s = s
        s.withUTF8 { append($0) }
    }

    /// Most numbers on a line (handles, opcodes, commands, flags) have one or two digits: those are
    /// written where the number is, the rest by `appendDigits`.
    @inline(__always) @inlinable mutating func appendDecimal(_ v: Int64) {
        guard v >= 0 && v < 100 else { return appendDigits(v) }
        reserve(2)
        if v >= 10 {
            base[end] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: v / 10)
            end += 1
        }
        base[end] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: v % 10)
        end += 1
    }

    @inlinable mutating func appendDigits(_ v: Int64) {
        reserve(21)
        if v < 0 {
            base[end] = UInt8(ascii: "-")
            end += 1
        }
        let digits = DecimalDigits.count(v.magnitude)
        DecimalDigits.write(v.magnitude, count: digits, into: base + end)
        end += digits
    }

    /// Whether `utf8` is printable ASCII with no quote or backslash: nothing to escape. Eight bytes
    /// a test (SWAR: each test below is true when some byte of the word matches), as names and
    /// enum values are written on every line.
    @inlinable static func isPlain(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let raw = UnsafeRawPointer(utf8.baseAddress) else { return true }
        let n = utf8.count
        guard n >= 8 else {
            // Fewer than eight: gathered into one word, the rest filled with a plain byte.
            var x: UInt64 = 0x4141_4141_4141_4141
            for i in 0..<n { x = x << 8 | UInt64(utf8[i]) }
            return Self.isPlain(x)
        }
        var i = 0
        while i + 8 <= n {
            guard Self.isPlain(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) else { return false }
            i += 8
        }
        // The last bytes in one word that overlaps the one before.
        return i == n || Self.isPlain(raw.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self))
    }

    /// Whether no byte of `x` is ≥ 0x80, < 0x20, a quote, a backslash or DEL.
    @inline(__always) @inlinable static func isPlain(_ x: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZero(_ v: UInt64) -> Bool { (v &- ones) & ~v & highs != 0 }
        return
            !(x & highs != 0 || (x &- 0x20 &* ones) & ~x & highs != 0 || hasZero(x ^ (0x22 &* ones))
            || hasZero(x ^ (0x5c &* ones)) || hasZero(x ^ (0x7f &* ones)))
    }

    /// `"utf8"` when it needs no escaping; false, and nothing written, otherwise.
    @inlinable mutating func appendPlain(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard Self.isPlain(utf8) else { return false }
        reserve(utf8.count + 2)
        base[end] = UInt8(ascii: "\"")
        ShortCopy.copy(utf8, to: base + end + 1)
        base[end + utf8.count + 1] = UInt8(ascii: "\"")
        end += utf8.count + 2
        return true
    }

    /// RFC 8259 escaping; control characters and the bidi controls U+202A–202E, U+2066–2069 as \u escapes.
    @inlinable mutating func appendEscaped(_ s: String) {
        // Names and most text are printable ASCII: checked in place and copied whole. A string of
        // up to 15 bytes (most enum and message names) is stored inline, not in contiguous storage:
        // it is copied out for the check.
        if let plain = s.utf8.withContiguousStorageIfAvailable({ appendPlain($0) }) {
            if plain { return }
        } else {
            var s = s
            if s.withUTF8({ appendPlain($0) }) { return }
        }
        put(UInt8(ascii: "\""))
        for scalar in s.unicodeScalars {
            switch scalar.value {
            case 0x22: appendRaw("\\\"")
            case 0x5c: appendRaw("\\\\")
            case 0x0a: appendRaw("\\n")
            case 0x0d: appendRaw("\\r")
            case 0x09: appendRaw("\\t")
            case 0x00..<0x20, 0x7f, 0x80..<0xa0, 0x202a...0x202e, 0x2066...0x2069, 0x2028, 0x2029:
                appendRaw("\\u")
                appendRaw(String(Hex.value(scalar.value, width: 4).dropFirst(2)))
            default:
                appendRaw(String(scalar))
            }
        }
        put(UInt8(ascii: "\""))
    }
}
