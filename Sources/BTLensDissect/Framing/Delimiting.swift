/// How a delimited framing marks its frames and hides its marks inside them: an end byte (and a
/// start byte, for some), with an escape byte before any mark in the frame's own bytes, or COBS.
/// SLIP (RFC 1055), HDLC-like framing (RFC 1662 §4) and COBS (Cheshire and Baker, 1999) are named;
/// vendors' own (Sony's headphones: 3E … 3C, escape 3D and bit 4 cleared) are written out.
public struct Delimiting: Sendable, Equatable {
    public enum Escape: Sendable, Equatable {
        /// Marks appear only as delimiters.
        case none
        /// `escape`, then the byte XORed with `mask` (HDLC: 7D, 0x20).
        case xor(escape: UInt8, mask: UInt8)
        /// `escape`, then a code that stands for a byte (SLIP: DB DC for C0, DB DD for DB).
        case codes(escape: UInt8, codes: [UInt8: UInt8])
        /// Consistent Overhead Byte Stuffing: no zero inside a frame, each run led by its length.
        case cobs
    }

    /// The byte before a frame, where there is one; without it, a frame runs from the byte after
    /// the last end (a leading end byte, as SLIP senders put, delimits nothing).
    public var start: UInt8?
    public var end: UInt8
    public var escape: Escape

    public init(start: UInt8? = nil, end: UInt8, escape: Escape) {
        self.start = start
        self.end = end
        self.escape = escape
    }

    public static let slip = Delimiting(end: 0xc0, escape: .codes(escape: 0xdb, codes: [0xdc: 0xc0, 0xdd: 0xdb]))
    public static let hdlc = Delimiting(end: 0x7e, escape: .xor(escape: 0x7d, mask: 0x20))
    public static let cobs = Delimiting(end: 0x00, escape: .cobs)
    public static let named: [(name: String, delimiting: Delimiting)] = [
        ("slip", slip), ("hdlc", hdlc), ("cobs", cobs),
    ]

    /// A frame's bytes between its delimiters, unescaped; nil when an escape is cut off or unknown.
    public func unescape(_ body: ArraySlice<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(body.count)
        var i = body.startIndex
        switch escape {
        case .none: return Array(body)
        case .xor(let e, _), .codes(let e, _):
            while i < body.endIndex {
                let b = body[i]
                i += 1
                guard b == e else {
                    out.append(b)
                    continue
                }
                guard i < body.endIndex, let byte = unescaped(body[i]) else { return nil }
                out.append(byte)
                i += 1
            }
        case .cobs:
            while i < body.endIndex {
                let code = Int(body[i])
                let next = i + code
                guard code > 0, next <= body.endIndex else { return nil }
                out += body[(i + 1)..<next]
                i = next
                if code < 0xff && i < body.endIndex { out.append(0) }
            }
        }
        return out
    }

    private func unescaped(_ code: UInt8) -> UInt8? {
        switch escape {
        case .xor(_, let mask): return code ^ mask
        case .codes(_, let codes): return codes[code]
        case .none, .cobs: return nil
        }
    }

    /// A frame's wire bytes: escaped and delimited (for tests, examples and capture builders).
    public func wrap(_ frame: [UInt8]) -> [UInt8] {
        var out: [UInt8] = start.map { [$0] } ?? []
        switch escape {
        case .none: out += frame
        case .xor(let e, let mask):
            for b in frame { out += b == end || b == e || b == start ? [e, b ^ mask] : [b] }
        case .codes(let e, let codes):
            for b in frame {
                if let code = codes.first(where: { $0.value == b })?.key { out += [e, code] } else { out.append(b) }
            }
        case .cobs:
            var block: [UInt8] = []
            for b in frame {
                if b != 0 { block.append(b) }
                if b == 0 || block.count == 254 {
                    out += [UInt8(block.count + 1)] + block
                    block = []
                }
            }
            out += [UInt8(block.count + 1)] + block
        }
        return out + [end]
    }
}
