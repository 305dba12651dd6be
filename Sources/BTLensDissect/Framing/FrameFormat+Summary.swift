import BTLensCore

/// A framing in one line, in the words a definition writes it (`dissectors list`):
/// `magic 0xaa55, command, sequence, length u2le, crc-16/ibm-3740 over after-magic (be)`,
/// `delimiter slip, command, no checksum`.
extension FrameFormat {
    public var summary: String {
        var parts: [String] = []
        if let d = delimiting { parts.append("delimiter \(d.summary)") }
        if !magic.isEmpty {
            parts.append("magic " + Self.hex(magic))
        } else if delimiting == nil {
            parts.append("magic none")
        }
        parts += header.map { field in
            guard case .length = field, lengthCounts != .payload else { return field.summary }
            return "\(field.summary) (counts \(lengthCounts.rawValue))"
        }
        if let size { parts.append("size \(size)") }
        if lengthAdjust != 0 { parts.append("length-adjust \(lengthAdjust)") }
        if let c = checksum {
            let order = c.algorithm.width > 1 ? (c.bigEndian ? " (be)" : " (le)") : ""
            let over =
                c.span.map { s in "bytes \(s.from)…\(s.to.map(String.init) ?? "payload end")" } ?? c.covers.rawValue
            let flagged = c.flag.map { " when flags \(Hex.value($0, width: 2))" } ?? ""
            parts.append("\(c.algorithm.summary) over \(over)\(order)\(flagged)")
        } else {
            parts.append("no checksum")
        }
        if !end.isEmpty { parts.append("end " + Self.hex(end)) }
        if let maxLength { parts.append("max-length \(maxLength)") }
        if !preamble.isEmpty { parts.append("preamble " + Self.hex(preamble)) }
        if let more { parts.append("more-follows flag \(Hex.value(more.flag, width: 2))") }
        if sequences != SequenceScopes() {
            parts.append("sequence-per phone \(sequences.sent.name), accessory \(sequences.received.name)")
        }
        if !spansValues { parts.append("span-values false") }
        if let encryptedFlag { parts.append("encrypted when flags \(Hex.value(encryptedFlag, width: 2))") }
        return parts.joined(separator: ", ")
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        "0x" + bytes.map { Hex.value($0, width: 2).dropFirst(2) }.joined()
    }
}

extension FrameFormat.HeaderField {
    var summary: String {
        func integer(_ width: Int, _ bigEndian: Bool) -> String {
            width == 1 ? "u1" : "u\(width)\(bigEndian ? "be" : "le")"
        }
        switch self {
        case .version: return "version"
        case .command(let w, let be): return w == 1 ? "command" : "command \(integer(w, be))"
        case .sequence: return "sequence"
        case .flags: return "flags"
        case .length(let w, let be): return "length \(integer(w, be))"
        case .reserved(let n): return "reserved \(n)"
        case .fragmentCount: return "fragment-count"
        case .fragmentIndex: return "fragment-index"
        case .word(let w, let be, let bits):
            let fields = bits.map { "\($0.role.rawValue) \(Hex.value($0.mask, width: 2 * w))" }
            return "word \(integer(w, be)) {\(fields.joined(separator: ", "))}"
        }
    }
}

extension ChecksumAlgorithm {
    /// The catalogue's name; a CRC given by parameters that match none, by its width and polynomial.
    public var summary: String {
        guard case .crc(let c) = self, c.name == nil else { return name }
        return "crc-\(c.width) poly \(Hex.value(c.polynomial, width: c.width / 4))"
    }
}

extension Delimiting {
    /// `slip`, `hdlc`, `cobs`, or the marks: `start 0x3e, end 0x3c, escape 0x3d xor 0x10`.
    var summary: String {
        if let named = Self.named.first(where: { $0.delimiting == self }) { return named.name }
        var parts = start.map { ["start \(Hex.value($0, width: 2))"] } ?? []
        parts.append("end \(Hex.value(end, width: 2))")
        switch escape {
        case .none, .cobs: break
        case .xor(let e, let mask): parts.append("escape \(Hex.value(e, width: 2)) xor \(Hex.value(mask, width: 2))")
        case .codes(let e, let codes):
            let list = codes.sorted { $0.key < $1.key }.map {
                "\(Hex.value($0.key, width: 2))→\(Hex.value($0.value, width: 2))"
            }
            parts.append("escape \(Hex.value(e, width: 2)) codes \(list.joined(separator: " "))")
        }
        return "{" + parts.joined(separator: ", ") + "}"
    }
}
