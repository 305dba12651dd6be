/// Which frames' payloads a framer copies out of its buffer. Nothing reads the payload of a frame
/// no dissector names unless values are shown, and `stats` reads a named frame's payload only where
/// its message's fields could fail on their bytes (`MessageDissector.readsPayload`): the rest are
/// judged by their length, and copying 1.7 M payloads cost a fifth of a `stats` run.
public struct PayloadPolicy: Sendable, Equatable {
    /// One bit per one-byte command: its payload is kept. Longer commands always keep theirs.
    private var bits: (UInt64, UInt64, UInt64, UInt64)
    private var keepsLonger: Bool

    public static let keepAll = PayloadPolicy(bits: (~0, ~0, ~0, ~0), keepsLonger: true)
    public static let keepNone = PayloadPolicy(bits: (0, 0, 0, 0), keepsLonger: false)

    private init(bits: (UInt64, UInt64, UInt64, UInt64), keepsLonger: Bool) {
        self.bits = bits
        self.keepsLonger = keepsLonger
    }

    /// The payloads of the one-byte commands `keeps` says, and of all longer ones.
    public init(keeping keeps: (UInt8) -> Bool) {
        var words: [UInt64] = [0, 0, 0, 0]
        for command in 0...255 where keeps(UInt8(command)) { words[command >> 6] |= 1 << UInt64(command & 63) }
        self.init(bits: (words[0], words[1], words[2], words[3]), keepsLonger: true)
    }

    public func keeps(_ command: UInt16) -> Bool {
        guard command < 256 else { return keepsLonger }
        let word: UInt64
        switch command >> 6 {
        case 0: word = bits.0
        case 1: word = bits.1
        case 2: word = bits.2
        default: word = bits.3
        }
        return word >> UInt64(command & 63) & 1 == 1
    }

    public static func == (a: PayloadPolicy, b: PayloadPolicy) -> Bool {
        a.bits == b.bits && a.keepsLonger == b.keepsLonger
    }
}
