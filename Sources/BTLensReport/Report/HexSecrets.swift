/// Secrets as bytes, found wherever a string writes bytes as hex: `41424344`, `41 42 43 44`,
/// `41:42:43:44` or `41-42-43-44`, in either case, at any digit (a dump may follow a hex word), the
/// start of one that a dump's `…` cut off, and any 8 bytes or more of one (the parts a long read
/// carried, each in its own PDU). Each is replaced by its placeholder (`--redact`).
struct HexSecrets {
    /// Fewer bytes would match by chance.
    static let shortest = 4
    /// A part of a secret found anywhere: long enough not to be some other value's bytes.
    static let shortestPart = 8
    private static let keyNibbles = 2 * shortest

    private var secrets: [(nibbles: [UInt8], placeholder: String)] = []
    /// Secrets by their first 4 bytes, so a string is read once however many there are.
    private var byKey: [UInt64: [Int]] = [:]
    /// Each byte offset of each secret of `shortestPart` bytes or more, by the 4 bytes there.
    private var parts: [UInt64: [(secret: Int, from: Int)]] = [:]

    var count: Int { secrets.count }

    mutating func add(_ bytes: [UInt8], _ placeholder: String) {
        guard bytes.count >= Self.shortest else { return }
        let nibbles = bytes.flatMap { [$0 >> 4, $0 & 0x0f] }
        let key = Self.key(nibbles[...])
        if byKey[key]?.contains(where: { secrets[$0].nibbles == nibbles }) == true { return }
        byKey[key, default: []].append(secrets.count)
        if bytes.count >= Self.shortestPart {
            for from in stride(from: 0, through: nibbles.count - 2 * Self.shortestPart, by: 2) {
                parts[Self.key(nibbles[from...]), default: []].append((secrets.count, from))
            }
        }
        secrets.append((nibbles, placeholder))
    }

    func scrub(_ s: String) -> String {
        guard !secrets.isEmpty else { return s }
        let utf8 = Array(s.utf8)
        var out: [UInt8] = []
        var copied = 0
        var i = 0
        while i < utf8.count {
            guard Self.nibble(utf8[i]) != nil else {
                i += 1
                continue
            }
            // A run of hex digits, with single separators between them.
            var nibbles: [UInt8] = []
            var at: [Int] = []
            var j = i
            while j < utf8.count {
                if let n = Self.nibble(utf8[j]) {
                    nibbles.append(n)
                    at.append(j)
                } else if !Self.separators.contains(utf8[j]) || j + 1 == utf8.count || Self.nibble(utf8[j + 1]) == nil {
                    break
                }
                j += 1
            }
            let rest = utf8[j...].drop { $0 == 0x20 }
            let cut = rest.starts(with: Self.ellipsis)
            for (from, to, placeholder) in matches(nibbles, cut: cut) {
                out += utf8[copied..<at[from]]
                out += placeholder.utf8
                copied = at[to - 1] + 1
            }
            i = j
        }
        guard copied > 0 else { return s }
        out += utf8[copied...]
        return String(decoding: out, as: UTF8.self)
    }

    /// The secrets in `nibbles`, leftmost first, longest at a place; with `cut`, a secret's start
    /// that ends the run counts too.
    private func matches(_ nibbles: [UInt8], cut: Bool) -> [(Int, Int, String)] {
        var found: [(Int, Int, String)] = []
        var p = 0
        while p + Self.keyNibbles <= nibbles.count {
            var best: (end: Int, placeholder: String)?
            for k in byKey[Self.key(nibbles[p...])] ?? [] {
                let secret = secrets[k].nibbles
                let end = p + secret.count
                let whole = end <= nibbles.count && nibbles[p..<end].elementsEqual(secret)
                let start = cut && end > nibbles.count && secret.starts(with: nibbles[p...])
                guard whole || start, min(end, nibbles.count) > best?.end ?? 0 else { continue }
                best = (min(end, nibbles.count), secrets[k].placeholder)
            }
            for (k, from) in parts[Self.key(nibbles[p...])] ?? [] {
                let shared = zip(nibbles[p...], secrets[k].nibbles[from...]).prefix { $0 == $1 }.count
                guard shared >= 2 * Self.shortestPart, p + shared > best?.end ?? 0 else { continue }
                best = (p + shared, secrets[k].placeholder)
            }
            guard let best else {
                p += 1
                continue
            }
            found.append((p, best.end, best.placeholder))
            p = best.end
        }
        return found
    }

    private static func key(_ nibbles: ArraySlice<UInt8>) -> UInt64 {
        nibbles.prefix(keyNibbles).reduce(0) { $0 << 4 | UInt64($1) }
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x37
        case 0x61...0x66: return c - 0x57
        default: return nil
        }
    }

    /// Space, colon, dash.
    private static let separators: [UInt8] = [0x20, 0x3a, 0x2d]
    private static let ellipsis = Array("…".utf8)
}
