import BTLensCore
import BTLensCrypto

/// A long-term key the user gives (`--ltk`, `--keys`) to decrypt a sniffer capture's connections.
public struct LinkLayerKey: Sendable {
    /// The device it belongs to (either side of a connection), or nil for any.
    public var address: BDAddr?
    public var ltk: Key128
    /// Where it was given, as the timeline names it (`--ltk 2`, `keys.txt:3`): keys are not printed.
    public var source: String

    public init(address: BDAddr?, ltk: Key128, source: String) {
        self.address = address
        self.ltk = ltk
        self.source = source
    }
}

/// Keys given as text: one `--ltk [ADDRESS=]KEY`, a list of `[ADDRESS] KEY` lines, or BlueZ's
/// `info` file of a device (its `[LongTermKey]` groups). A key is written most significant octet
/// first, as the Core specification writes it; BlueZ stores it least significant octet first.
public enum LinkLayerKeys {
    /// How a key given is named when it decrypts read the other way round.
    static let reversed = ", read least significant octet first"

    /// Keys read from one file at most; a longer list is refused.
    public static let limit = 4096

    public struct Error: Swift.Error, Sendable {
        public var message: String
    }

    /// One `--ltk` value, the `index`-th given.
    public static func argument(_ text: String, index: Int) throws(Error) -> LinkLayerKey {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        let keyText = parts.last ?? ""
        var address: BDAddr?
        if parts.count == 2 {
            guard let a = BDAddr(text: parts[0]) else {
                throw Error(
                    message: "expected ADDRESS=KEY with an address like C0:FF:EE:00:11:22, found \"\(parts[0])\"")
            }
            address = a
        }
        guard let key = key(keyText) else {
            throw Error(message: "expected a key of 32 hex digits, found \(describe(keyText))")
        }
        return LinkLayerKey(address: address, ltk: key, source: "--ltk \(index)")
    }

    /// The keys of a file named `name`; `device` is the address its folder gives (BlueZ names a
    /// device's folder by its address).
    public static func read(_ text: String, name: String, device: BDAddr?) throws(Error) -> [LinkLayerKey] {
        // A byte order mark (some editors write one) is no part of the first line.
        let text = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        if text.contains("LongTermKey]") {
            return try bluez(text, name: name, device: device)
        }
        var keys: [LinkLayerKey] = []
        for (n, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," || $0 == "\r" })
            if words.isEmpty { continue }
            let at = "\(name):\(n + 1)"
            guard words.count <= 2, let key = key(words[words.count - 1]) else {
                throw Error(message: "\(at): expected [ADDRESS] KEY (32 hex digits), found \(describe(line))")
            }
            var address: BDAddr?
            if words.count == 2 {
                guard let a = BDAddr(text: words[0]) else {
                    throw Error(message: "\(at): expected an address like C0:FF:EE:00:11:22, found \"\(words[0])\"")
                }
                address = a
            }
            keys.append(LinkLayerKey(address: address, ltk: key, source: at))
            guard keys.count <= limit else { throw Error(message: "\(at): expected at most \(limit) keys") }
        }
        guard !keys.isEmpty else { throw Error(message: "\(name): expected [ADDRESS] KEY lines, found no key") }
        return keys
    }

    /// BlueZ's `info` file: `Key=` in each `[LongTermKey]`, `[PeripheralLongTermKey]` (older:
    /// `[SlaveLongTermKey]`) group, as hex of the key's octets least significant first.
    private static func bluez(_ text: String, name: String, device: BDAddr?) throws(Error) -> [LinkLayerKey] {
        var group: Substring = ""
        var keys: [LinkLayerKey] = []
        for (n, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingCharacters(in: " \t\r")
            if line.hasPrefix("[") {
                group = line
                continue
            }
            guard group.hasSuffix("LongTermKey]"), line.hasPrefix("Key=") else { continue }
            let hex = line.dropFirst(4)
            guard let big = key(hex), let key = Key128(littleEndian: big.littleEndian.reversed()) else {
                throw Error(message: "\(name):\(n + 1): expected Key= and 32 hex digits, found \(describe(line))")
            }
            keys.append(LinkLayerKey(address: device, ltk: key, source: "\(name):\(n + 1)"))
        }
        guard !keys.isEmpty else {
            throw Error(message: "\(name): expected a Key= in a [LongTermKey] group, found none")
        }
        return keys
    }

    /// 32 hex digits (an optional `0x`), most significant octet first.
    static func key(_ text: some StringProtocol) -> Key128? { Key128(hex: String(text)) }

    private static func describe(_ text: some StringProtocol) -> String {
        text.isEmpty ? "nothing" : "\"\(text.prefix(80))\""
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in set: String) -> Substring {
        let s = Substring(self)
        guard let first = s.firstIndex(where: { !set.contains($0) }),
            let last = s.lastIndex(where: { !set.contains($0) })
        else { return "" }
        return s[first...last]
    }
}
