import BTLensCore
import BTLensDissect

/// Payload types beyond fixed integers, bytes and text: varints, floats, zero-terminated text and
/// times.
extension FieldDecoder {
    /// `bytes` as an unsigned integer, most significant byte first when `bigEndian`.
    static func unsigned(_ bytes: ArraySlice<UInt8>, bigEndian: Bool) -> UInt64 {
        var raw: UInt64 = 0
        for i in 0..<bytes.count {
            raw = raw << 8 | UInt64(bytes[bytes.startIndex + (bigEndian ? i : bytes.count - 1 - i)])
        }
        return raw
    }

    /// A field whose bytes are not what its type says: `a5.field.invalid` at `offset`.
    mutating func invalid(_ name: String, at offset: Int, _ why: String) {
        problems.append(
            Diagnostic(
                DissectorDiagnostics.fieldInvalid, "\(message): \(name) \(why) at payload offset \(offset)",
                fields: [("field", .string(name)), ("offset", .int(offset))]))
    }

    /// An unsigned LEB128 varint, low group first (protobuf.dev, "Encoding": Base 128 Varints), at
    /// most 10 bytes. One cut off or longer stops the message: what follows has no known start.
    mutating func varint(_ name: String) throws(Stop) -> UInt64 {
        let start = reader.offset
        var value: UInt64 = 0
        for i in 0..<10 {
            guard let b = try? reader.u8() else {
                invalid(name, at: start, "is a varint cut off")
                throw Stop()
            }
            value |= UInt64(b & 0x7f) << UInt64(7 * i)
            if b & 0x80 == 0 { return value }
        }
        invalid(name, at: start, "is a varint longer than 10 bytes")
        throw Stop()
    }

    /// `n` bits, most significant first (Kaitai Struct's default `bit-endian: be`), from the bits
    /// the fields before left in their last byte, then from the next bytes.
    mutating func bits(_ name: String, _ n: Int) throws(Stop) -> UInt64 {
        var value: UInt64 = 0
        var needed = n
        while needed > 0 {
            if heldBits.left == 0 { heldBits = (try read(name, 1).first ?? 0, 8) }
            let take = min(needed, heldBits.left)
            let chunk = UInt64(heldBits.byte >> (heldBits.left - take)) & (1 << UInt64(take) - 1)
            value = value << UInt64(take) | chunk
            heldBits.left -= take
            needed -= take
        }
        return value
    }

    /// An IEEE 754 value of `width` bytes (binary16, 32 or 64), finite ones in the shortest form
    /// that reads back as the same value of that width: binary32's 0.1 is 0.1, not the binary64
    /// 0.10000000149011612 it widens to. JSON has no NaN or infinity: those are the strings `nan`,
    /// `inf` and `-inf`, as the text shows them.
    static func float(_ raw: UInt64, width: Int, _ spec: borrowing FieldSpec) -> MessageValue {
        let d = ieee(raw, width: width)
        guard d.isFinite else { return nonFinite(d) }
        guard spec.scale != nil || spec.offset != nil else { return .measure(d, unit: spec.unit) }
        return .measure(decimal(d * (spec.scale ?? 1) + (spec.offset ?? 0)), unit: spec.unit)
    }

    /// The value of the `width`-byte IEEE 754 number `raw`, in its shortest form for that width.
    static func ieee(_ raw: UInt64, width: Int) -> Double {
        switch width {
        case 2: return half(UInt16(truncatingIfNeeded: raw))
        case 4: return Double(String(Float(bitPattern: UInt32(truncatingIfNeeded: raw)))) ?? .nan
        default: return Double(bitPattern: raw)
        }
    }

    static func nonFinite(_ d: Double) -> MessageValue { .enumerated(d.isNaN ? "nan" : d < 0 ? "-inf" : "inf", raw: 0) }

    /// binary16 in the fewest significant digits that read back as it (round to nearest, ties to
    /// even), worked out here: Swift's Float16 is missing on macOS on Intel, and prints 65504
    /// where 65500 reads back the same.
    private static func half(_ bits: UInt16) -> Double {
        let exponent = Int(bits >> 10 & 0x1f)
        let fraction = Int(bits & 0x3ff)
        let sign: Double = bits & 0x8000 != 0 ? -1 : 1
        guard exponent != 0x1f else { return fraction == 0 ? sign * .infinity : .nan }
        let m = exponent == 0 ? fraction : 1024 + fraction
        guard m != 0 else { return sign * 0 }
        let gap = Double(sign: .plus, exponent: max(exponent, 1) - 25, significand: 1)
        let exact = gap * Double(m)
        // Half the distance to each neighbour: below a power of two the neighbour is nearer.
        let (above, below) = (gap / 2, fraction == 0 && exponent > 1 ? gap / 4 : gap / 2)
        var magnitude = 0
        while power10(magnitude + 1) <= exact { magnitude += 1 }
        while power10(magnitude) > exact { magnitude -= 1 }
        for digits in 1...5 {
            let p = digits - 1 - magnitude
            let candidate =
                p >= 0 ? (exact * power10(p)).rounded() / power10(p) : (exact / power10(-p)).rounded() * power10(-p)
            let d = candidate - exact
            if (d < above || (d == above && m % 2 == 0)) && (-d < below || (-d == below && m % 2 == 0)) {
                return sign * candidate
            }
        }
        return sign * exact
    }

    /// 10^n, exact for the exponents binary16 needs.
    private static func power10(_ n: Int) -> Double {
        var r = 1.0
        for _ in 0..<abs(n) { r *= 10 }
        return n >= 0 ? r : 1 / r
    }

    /// `strz`: text up to the first 0x00, which is read too; within `size` bytes when given
    /// (Kaitai Struct's `type: strz` with `size`). With no 0x00 before the payload ends, the rest
    /// is the text and `a5.field.invalid` says the terminator is missing.
    mutating func stringZ<Sink: FieldSink & ~Copyable>(
        _ spec: FieldSpec, _ size: FieldSpec.Size?, _ sink: inout Sink
    ) throws(Stop) {
        let start = reader.offset
        if let size {
            let area = try read(spec.name, length(size))
            if keepsValues { text(area[..<(area.firstIndex(of: 0) ?? area.endIndex)], &sink) }
            return
        }
        let rest = reader.remainingIndices
        guard let end = reader.bytes[rest].firstIndex(of: 0) else {
            let all = reader.rest()
            invalid(spec.name, at: start, "has no 00 terminator")
            if keepsValues { text(all, &sink) }
            return
        }
        let bytes = try read(spec.name, end - rest.lowerBound + 1)
        if keepsValues { text(bytes.dropLast(), &sink) }
    }

    /// Text when the bytes are UTF-8, else the bytes.
    func text<Sink: FieldSink & ~Copyable>(_ bytes: ArraySlice<UInt8>, _ sink: inout Sink) {
        guard let s = String(validating: bytes, as: UTF8.self) else { return sink.raw(bytes) }
        sink.value(.string(s))
    }

    /// An integer counting `unit`s since 1970, shown as ISO 8601 UTC; one before 1970 or after
    /// 9999 is shown as its number, with `a5.field.invalid`.
    mutating func time<Sink: FieldSink & ~Copyable>(
        _ spec: FieldSpec, _ value: Int64, _ unit: FieldSpec.TimeUnit, _ sink: inout Sink
    ) {
        guard let shown = Self.iso8601(value, unit) else {
            problems.append(
                Diagnostic(
                    DissectorDiagnostics.fieldInvalid,
                    "\(message): \(spec.name) is \(value); expected a time from 1970 to 9999",
                    fields: [("field", .string(spec.name)), ("value", .int(value))]))
            if keepsValues { sink.value(.int(value)) }
            return
        }
        // Shown by its time, its number kept, as an enum's name is.
        if keepsValues { sink.value(.enumerated(shown, raw: value)) }
    }

    /// `2024-03-01T12:00:00Z`, with the fraction of a second when there is one; days to a civil
    /// date by Howard Hinnant's `civil_from_days` ("chrono-Compatible Low-Level Date Algorithms").
    static func iso8601(_ value: Int64, _ unit: FieldSpec.TimeUnit) -> String? {
        let seconds = value / unit.rawValue
        guard value >= 0, seconds <= 253_402_300_799 else { return nil }
        let days = seconds / 86_400
        let era = (days + 719_468) / 146_097
        let dayOfEra = days + 719_468 - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let s = seconds % 86_400
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        // From 1970: four digits.
        var text = "\(year)-\(two(month))-\(two(day))T\(two(s / 3600)):\(two(s / 60 % 60)):\(two(s % 60))"
        let fraction = value % unit.rawValue
        if fraction != 0 {
            let digits = "\(fraction)"
            text += "." + String(repeating: "0", count: (unit == .milliseconds ? 3 : 6) - digits.count) + digits
        }
        return text + "Z"
    }
}
