import BTLensCore
import BTLensDissect

private let hexDigit: [UInt8] = Array("0123456789abcdef".utf8)

/// Writes JSON objects with keys in the order given, straight into a byte buffer.
/// Output is deterministic: no dictionaries, no locale, no floating point.
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []
    private var needsComma: [Bool] = []

    public init() { bytes.reserveCapacity(512) }

    /// Empties the writer for the next document, keeping its storage and its time cache.
    public mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        needsComma.removeAll(keepingCapacity: true)
        afterKey = false
    }

    public mutating func beginObject() { value { $0.bytes.append(UInt8(ascii: "{")) }; needsComma.append(false) }
    public mutating func endObject() { needsComma.removeLast(); bytes.append(UInt8(ascii: "}")) }
    public mutating func beginArray() { value { $0.bytes.append(UInt8(ascii: "[")) }; needsComma.append(false) }
    public mutating func endArray() { needsComma.removeLast(); bytes.append(UInt8(ascii: "]")) }

    /// Keys are the program's own ASCII names: copied, not escaped.
    public mutating func key(_ k: String) {
        comma()
        bytes.append(UInt8(ascii: "\""))
        appendRaw(k)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
    }

    /// True between a key and its value: the value takes no comma.
    private var afterKey = false

    public mutating func string(_ s: String) { value { $0.appendEscaped(s) } }
    public mutating func int<T: BinaryInteger>(_ v: T) { value { $0.appendDecimal(Int64(truncatingIfNeeded: v)) } }
    public mutating func bool(_ v: Bool) { value { $0.appendRaw(v ? "true" : "false") } }
    public mutating func null() { value { $0.appendRaw("null") } }
    /// A number: integral values without a fraction, others in Swift's shortest round-trip form.
    public mutating func number(_ d: Double) {
        guard d.isFinite else { return null() }
        if d == d.rounded(), abs(d) < 1e15 { return int(Int64(d)) }
        value { $0.appendRaw(String(d)) }
    }

    /// Bytes as a lowercase hex string, written straight into the buffer.
    public mutating func hex<C: Collection>(_ v: C) where C.Element == UInt8 {
        value { w in
            // Room for the quotes and two digits a byte, then filled in place: payloads are most of a line.
            let start = w.bytes.count
            w.bytes.append(contentsOf: repeatElement(UInt8(ascii: "\""), count: v.count * 2 + 2))
            w.bytes.withUnsafeMutableBufferPointer { out in
                var i = start + 1
                for b in v {
                    out[i] = hexDigit[Int(b >> 4)]
                    out[i + 1] = hexDigit[Int(b & 0x0f)]
                    i += 2
                }
            }
        }
    }

    /// A timestamp as an ISO 8601 string; the date and time up to the second are cached.
    public mutating func time(_ t: Timestamp) {
        let (seconds, micros) = t.microseconds.quotientAndRemainder(dividingBy: 1_000_000)
        guard micros >= 0 else { return string(t.iso8601) }
        if seconds != cachedSecond {
            cachedSecond = seconds
            cachedPrefix = Array(t.iso8601.utf8.prefix(20))
        }
        value { w in
            w.bytes.append(UInt8(ascii: "\""))
            w.bytes.append(contentsOf: w.cachedPrefix)
            // Six digits of microseconds, "Z" and the quote, written in place.
            let start = w.bytes.count
            w.bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: 6))
            w.bytes.append(UInt8(ascii: "Z"))
            w.bytes.append(UInt8(ascii: "\""))
            var digits = micros
            w.bytes.withUnsafeMutableBufferPointer { out in
                for i in stride(from: start + 5, through: start, by: -1) {
                    out[i] = UInt8(0x30 + digits % 10)
                    digits /= 10
                }
            }
        }
    }

    private var cachedSecond = Int64.min
    private var cachedPrefix: [UInt8] = []

    public mutating func field(_ k: String, _ v: FieldValue) {
        key(k)
        switch v {
        case .int(let i): int(i)
        case .hex(let i, _): int(i)
        case .string(let s): string(s)
        case .bool(let b): bool(b)
        case .bytes(let b): hex(b)
        }
    }

    public mutating func field(_ k: String, _ s: String) { key(k); string(s) }
    public mutating func field<T: BinaryInteger>(_ k: String, _ v: T) { key(k); int(v) }
    public mutating func field(_ k: String, _ v: Bool) { key(k); bool(v) }

    private mutating func value(_ write: (inout JSONWriter) -> Void) {
        if afterKey { afterKey = false } else { comma() }
        write(&self)
        if !needsComma.isEmpty { needsComma[needsComma.count - 1] = true }
    }

    private mutating func comma() {
        if let last = needsComma.last, last { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func appendRaw(_ s: String) {
        var s = s
        s.withUTF8 { bytes.append(contentsOf: $0) }
    }

    private mutating func appendDecimal(_ v: Int64) {
        if v < 0 { bytes.append(UInt8(ascii: "-")) }
        var m = v.magnitude
        var count = 1
        while m >= 10 { m /= 10; count += 1 }
        // Written from the last digit back, in place: no array per number.
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: count))
        m = v.magnitude
        bytes.withUnsafeMutableBufferPointer { out in
            for i in stride(from: start + count - 1, through: start, by: -1) {
                out[i] = UInt8(0x30 + m % 10)
                m /= 10
            }
        }
    }

    /// RFC 8259 escaping; control characters and the bidi controls U+202A–202E, U+2066–2069 as \u escapes.
    private mutating func appendEscaped(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        var copy = s
        let plain = copy.withUTF8 { utf8 in
            utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7f && $0 != 0x22 && $0 != 0x5c }
        }
        if plain {
            copy.withUTF8 { bytes.append(contentsOf: $0) }
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for scalar in s.unicodeScalars {
            switch scalar.value {
            case 0x22: bytes.append(contentsOf: "\\\"".utf8)
            case 0x5c: bytes.append(contentsOf: "\\\\".utf8)
            case 0x0a: bytes.append(contentsOf: "\\n".utf8)
            case 0x0d: bytes.append(contentsOf: "\\r".utf8)
            case 0x09: bytes.append(contentsOf: "\\t".utf8)
            case 0x00..<0x20, 0x7f, 0x80..<0xa0, 0x202a...0x202e, 0x2066...0x2069, 0x2028, 0x2029:
                bytes.append(contentsOf: "\\u".utf8)
                let h = Hex.value(scalar.value, width: 4).dropFirst(2)
                bytes.append(contentsOf: h.utf8)
            default:
                bytes.append(contentsOf: String(scalar).utf8)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

extension JSONWriter {
    /// An iAP2 accessory as IdentificationInformation describes it: the same fields in JSONL and stats.
    mutating func identification(_ i: IAP2Identification) {
        for (k, v) in [("name", i.name), ("model", i.model), ("manufacturer", i.manufacturer), ("serial", i.serial),
                       ("firmware", i.firmware), ("hardware", i.hardware)] { field(k, v) }
        key("protocols"); beginArray()
        for p in i.protocols {
            beginObject(); field("id", p.id); field("name", p.name); endObject()
        }
        endArray()
    }
}
