import BTLensCore

/// One frame of a framed vendor protocol: the A5 frame of docs/protocols/a5-frame.md (magic 0xA5, version, command,
/// sequence, flags, length N, N payload bytes, checksum = sum mod 256) or a vendor's variant of it
/// (`FrameFormat`). Header fields a format does not have are nil.
public struct Frame: Sendable, Equatable {
    public static let magic: UInt8 = 0xa5

    public var version: UInt8?
    public var command: UInt16
    public var sequence: UInt8?
    public var flags: UInt8?
    /// Empty where the framer's `PayloadPolicy` did not keep it.
    public var payload: [UInt8]
    /// The payload's length, kept or not.
    public var payloadCount: Int
    /// The checksum carried by the frame, and the one its bytes call for (nil: the format has none).
    public var checksum: UInt32?
    /// For a message sent in several frames: this frame's place and how many there are. Declared
    /// between the checksums, where it fills their padding: the frame stays 48 bytes.
    public var fragment: Fragment? = nil
    public var expectedChecksum: UInt32?
    /// Bytes on the wire, magic to checksum.
    public var length: Int

    public struct Fragment: Sendable, Equatable {
        /// 1-based.
        public var index: UInt8
        public var count: UInt8

        public init(index: UInt8, count: UInt8) {
            self.index = index
            self.count = count
        }
    }

    /// One frame of several: its checksum (last frame only) can be checked once the message is joined.
    public var isPartOfMessage: Bool { (fragment?.count ?? 1) > 1 }

    public init(
        version: UInt8?, command: UInt16, sequence: UInt8?, flags: UInt8?, payload: [UInt8],
        payloadCount: Int? = nil, checksum: UInt32?, expectedChecksum: UInt32?, length: Int? = nil,
        fragment: Fragment? = nil
    ) {
        self.version = version
        self.command = command
        self.sequence = sequence
        self.flags = flags
        self.payload = payload
        self.payloadCount = payloadCount ?? payload.count
        self.checksum = checksum
        self.expectedChecksum = expectedChecksum
        self.length = length ?? FrameFormat.a5.headerLength + payload.count + 1
        self.fragment = fragment
    }

    public var checksumOK: Bool { checksum == expectedChecksum }

    /// The wire bytes of an A5 frame, checksum included (for tests and capture builders).
    public static func encode(
        command: UInt8, sequence: UInt8, flags: UInt8 = 0, payload: [UInt8],
        version: UInt8 = 1
    ) -> [UInt8] {
        FrameFormat.a5.encode(
            command: UInt16(command), sequence: sequence, flags: flags, version: version, payload: payload)
    }
}

extension FrameFormat {
    /// The wire bytes of a frame in this format (for tests, examples and capture builders).
    /// With `fragment`, one frame of a message sent in several: only the last carries a checksum,
    /// given as `messageChecksum` (over the joined payload).
    public func encode(
        command: UInt16, sequence: UInt8 = 0, flags: UInt8 = 0, version: UInt8 = 1, payload: [UInt8],
        fragment: Frame.Fragment? = nil, messageChecksum: UInt32? = nil
    ) -> [UInt8] {
        var bytes = magic
        let last = fragment.map { $0.index >= $0.count } ?? true
        let flagged = checksum?.flag.map { flags & $0 != 0 } ?? true
        let trailer = last && flagged ? trailerLength : 0
        let lengthValue: Int
        switch lengthCounts {
        case .payload: lengthValue = payload.count
        case .frame: lengthValue = headerLength + payload.count + trailer + end.count
        case .rest: lengthValue = headerLength - lengthFieldEnd + payload.count + trailer + end.count
        case .payloadAndChecksum: lengthValue = payload.count + trailer
        case .headerAndPayload: lengthValue = headerLength - magic.count + payload.count
        }
        let values: [BitField.Role: Int] = [
            .length: lengthValue - lengthAdjust, .command: Int(command), .sequence: Int(sequence), .flags: Int(flags),
        ]
        for f in header {
            switch f {
            case .version: bytes.append(version)
            case .sequence: bytes.append(sequence)
            case .flags: bytes.append(flags)
            case .command(let w, let big): bytes += Self.integer(Int(command), width: w, bigEndian: big)
            case .length(let w, let big): bytes += Self.integer(lengthValue - lengthAdjust, width: w, bigEndian: big)
            case .reserved(let n): bytes += [UInt8](repeating: 0, count: n)
            case .fragmentCount: bytes.append(fragment?.count ?? 1)
            case .fragmentIndex: bytes.append(fragment?.index ?? 1)
            case .word(let w, let big, let bits):
                let word = bits.reduce(0) { $0 | (((values[$1.role] ?? 0) << $1.shift) & Int($1.mask)) }
                bytes += Self.integer(word, width: w, bigEndian: big)
            }
        }
        bytes += payload
        if let size { bytes += [UInt8](repeating: 0, count: max(0, size - bytes.count - trailer - end.count)) }
        if let c = checksum, last {
            let value = messageChecksum ?? c.algorithm.compute(checksummed(bytes, payloadStart: headerLength))
            bytes += Self.integer(Int(value), width: c.algorithm.width, bigEndian: c.bigEndian)
        }
        bytes += end
        return delimiting?.wrap(bytes) ?? bytes
    }

    /// The bytes the checksum covers, given a frame's bytes up to (not including) the checksum.
    func checksummed<C: Collection>(_ frame: C, payloadStart: Int) -> C.SubSequence where C.Index == Int {
        if let span = checksum?.span {
            let start = frame.startIndex
            return frame[(start + span.from)..<(span.to.map { start + $0 } ?? frame.endIndex)]
        }
        switch checksum?.covers ?? .frame {
        case .frame: return frame[frame.startIndex...]
        case .afterMagic: return frame[(frame.startIndex + magic.count)...]
        case .payload: return frame[(frame.startIndex + payloadStart)...]
        }
    }

    static func integer(_ value: Int, width: Int, bigEndian: Bool) -> [UInt8] {
        let le = (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        return bigEndian ? le.reversed() : le
    }
}

/// A frame as an event: the frame, the stream it came from, and what a dissector made of it.
/// A class, built whole and never changed: every consumer of the event (stats, renderers, the
/// report) reads it through one reference instead of copying a dozen fields.
public final class FrameInfo: Sendable {
    public let frame: Frame
    public let transport: Transport
    /// The characteristic value handle (ATT).
    public let attHandle: UInt16?
    public let uuid: BluetoothUUID?
    /// The External Accessory session and its protocol string (iAP2).
    public let eaSession: UInt16?
    public let protocolName: String?
    /// The RFCOMM server channel (a dissector bound by SDP service class).
    public let rfcommChannel: UInt8?
    /// The L2CAP credit-based channel: its PSM and the receiver's CID (a dissector bound by PSM).
    public let l2capChannel: (psm: UInt16, cid: UInt16)?
    /// What the stream and its dissector say about the frame, kept as the decoder built it.
    @usableFromInline let naming: Naming

    /// The frame format's name (`a5` for the A5 frame), or nil for a message that is one whole ATT value.
    @inlinable public var framing: String? { naming.framing }
    /// False for a whole-value message with no command byte: `frame.command` means nothing then.
    @inlinable public var hasCommand: Bool { naming.hasCommand }
    /// The dissector bound to the stream and what it decoded.
    @inlinable public var dissector: String? { naming.dissector }
    /// What the dissector makes of the frame, fields included. The analyzer decodes only names and
    /// problems; the fields are decoded here, by whoever shows the frame (on its own thread), and
    /// again at each read: read it once.
    public var decoded: DecodedMessage? {
        guard let d = naming.decoder else { return naming.decoded }
        return d.base.decode(message)
    }
    /// `decoded`, its fields put into `sink` as they are read instead of kept in the result: the
    /// JSONL renderer writes them so.
    public func decode<Sink: FieldSink & ~Copyable>(into sink: inout Sink) -> DecodedMessage? {
        guard let d = naming.decoder else {
            guard var decoded = naming.decoded else { return nil }
            sink.put(fields: decoded.fields)
            decoded.fields = []
            return decoded
        }
        return d.base.decode(message, into: &sink)
    }
    /// The message its dissector decodes, fields wanted.
    private var message: Message {
        Message(
            command: naming.hasCommand ? frame.command : nil, flags: frame.flags, payload: frame.payload,
            direction: naming.direction, characteristic: naming.characteristic)
    }
    /// Whether the stream's dissector decoded the frame (its name, kind and fields can be read).
    @inlinable public var isDecoded: Bool { naming.named != nil || naming.decoded != nil }
    /// The message's name, without decoding its fields.
    @inlinable public var messageName: String? { naming.named != nil ? naming.named?.name : naming.decoded?.name }
    /// Whether it is a request, a response or an event, without decoding its fields.
    @inlinable public var messageKind: MessageKind? { naming.named != nil ? naming.named?.kind : naming.decoded?.kind }
    /// The request this frame answers.
    @inlinable public var pairing: PairedResponse? { naming.pairing }
    /// The A5 frame itself, not a vendor's variant or a whole value.
    public let isA5: Bool

    /// What carried the frame.
    public enum Transport: String, Sendable {
        case att, iap2, rfcomm, l2cap
    }

    /// What a frame's stream and dissector say about it, apart from where it came from.
    @usableFromInline struct Naming: Sendable {
        @usableFromInline var framing: String?
        @usableFromInline var hasCommand: Bool
        @usableFromInline var dissector: String?
        /// A message given whole (`FrameInfo`'s public initializer).
        @usableFromInline var decoded: DecodedMessage?
        /// What the stream's dissector named the frame (with `decoder`, which decodes its fields).
        @usableFromInline var named: MessageVerdict?
        @usableFromInline var pairing: PairedResponse?
        /// The stream's dissector, which decodes the frame's fields when it is shown (`decoded`):
        /// a reference, as the naming is copied on its way to the renderer. With the direction
        /// and characteristic its message is decoded for.
        @usableFromInline var decoder: BoundDissector?
        @usableFromInline var direction = Direction.sent
        @usableFromInline var characteristic: BluetoothUUID?
    }

    public convenience init(
        frame: Frame, transport: Transport, attHandle: UInt16?, uuid: BluetoothUUID?, eaSession: UInt16? = nil,
        protocolName: String? = nil, rfcommChannel: UInt8? = nil, framing: String? = FrameFormat.a5Name,
        hasCommand: Bool = true, dissector: String? = nil, decoded: DecodedMessage? = nil,
        pairing: PairedResponse? = nil
    ) {
        self.init(
            frame: frame, transport: transport, attHandle: attHandle, uuid: uuid, eaSession: eaSession,
            protocolName: protocolName, rfcommChannel: rfcommChannel,
            Naming(framing: framing, hasCommand: hasCommand, dissector: dissector, decoded: decoded, pairing: pairing))
    }

    init(
        frame: consuming Frame, transport: Transport, attHandle: UInt16? = nil, uuid: BluetoothUUID? = nil,
        eaSession: UInt16? = nil, protocolName: String? = nil, rfcommChannel: UInt8? = nil,
        l2capChannel: (psm: UInt16, cid: UInt16)? = nil, _ naming: consuming Naming
    ) {
        self.frame = frame
        self.transport = transport
        self.attHandle = attHandle
        self.uuid = uuid
        self.eaSession = eaSession
        self.protocolName = protocolName
        self.rfcommChannel = rfcommChannel
        self.l2capChannel = l2capChannel
        isA5 = naming.framing == FrameFormat.a5Name
        self.naming = naming
    }
}
