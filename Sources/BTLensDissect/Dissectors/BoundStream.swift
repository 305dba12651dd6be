import BTLensCore

/// One stream (a characteristic or EA session, and a direction) with what decodes it: a framer, and
/// the dissector bound to it if any. A stream no dissector claims is framed as A5 once detected.
/// Where responses carry their request's sequence (`match: sequence`), the accessory's stream is
/// not checked for sequence gaps.
struct BoundStream {
    /// What names the stream's frames: handed to the event path instead of the whole stream (its
    /// framer and buffers), once a frame.
    struct Label {
        /// Also `bound.base`. Kept here as an existential, the label is passed by address along
        /// the frame path; a label of references only was copied or retained several times a frame
        /// in the optimised build (detection 8 % slower, callgrind).
        let dissector: (any MessageDissector)?
        /// What the frame path reads of the dissector, read once: nil for most streams.
        let bound: BoundDissector?
        /// The frame format's name, or nil for one message per value.
        let framing: String?
        /// The framing is the A5 frame's, not a vendor's variant: read once, not compared per frame.
        let isA5: Bool
        let commandByte: Bool
        /// A whole value's checksum, at its end: boxed, as the label is copied along the frame path
        /// and most streams have none.
        private let valueChecksumBox: ValueChecksum?
        var valueChecksum: FrameFormat.Checksum? { valueChecksumBox?.checksum }
        /// The characteristic it belongs to, when discovery was captured.
        let uuid: BluetoothUUID?

        init(
            dissector: (any MessageDissector)?, framing: String?, commandByte: Bool, uuid: BluetoothUUID?,
            valueChecksum: FrameFormat.Checksum? = nil
        ) {
            valueChecksumBox = valueChecksum.map(ValueChecksum.init)
            self.dissector = dissector
            bound = dissector.map(BoundDissector.init)
            self.uuid = uuid
            self.framing = framing
            isA5 = framing == FrameFormat.a5Name
            self.commandByte = commandByte
        }
    }

    /// Nil when each value is one message.
    private var framed: FramedStream?
    let label: Label
    var dissector: (any MessageDissector)? { label.dissector }
    var framing: String? { label.framing }
    /// Frames are being read: a dissector's framing, or A5 detected.
    var isFramed: Bool { framed?.isFramed ?? false }

    /// `keepsPayloads`: false where no consumer but its dissector reads the payloads of the stream's
    /// frames: with no dissector none are kept, with one those it reads (`stats`).
    init(
        _ dissector: (any MessageDissector)?, framing: Framing?, detect: Bool, direction: Direction,
        messageLimit: Int = Limits().messageBytes, keepsPayloads: Bool = true, uuid: BluetoothUUID? = nil
    ) {
        let payloads: PayloadPolicy
        if keepsPayloads {
            payloads = .keepAll
        } else if let dissector {
            payloads = dissector.payloadsRead(from: direction)
        } else {
            payloads = .keepNone
        }
        switch framing {
        case .values(let commandByte, let checksum)?:
            framed = nil
            label = Label(
                dissector: dissector, framing: nil, commandByte: commandByte, uuid: uuid, valueChecksum: checksum)
        case .frames(let format)?:
            let echoes = dissector?.pairing?.match == .sequence && direction == .received
            let scope = format.sequences[direction]
            framed = FramedStream(
                format: format, detect: detect, tracksSequence: !echoes && scope != .none, sequencePer: scope.key,
                messageLimit: messageLimit, payloads: payloads)
            label = Label(dissector: dissector, framing: format.name, commandByte: false, uuid: uuid)
        case nil:
            framed = FramedStream(payloads: payloads)
            label = Label(dissector: dissector, framing: FrameFormat.a5Name, commandByte: false, uuid: uuid)
        }
    }

    /// Feeds one value, handing each frame and diagnostic to `out` with the label to name it by
    /// (read while the stream is at hand: a stream kept in a table is not copied to get it).
    mutating func push(
        _ value: some Collection<UInt8>, at place: RecordPlace, _ out: (consuming FramedStream.Output, Label) -> Void
    ) {
        let label = label
        guard framed != nil else {
            switch ValueMessage.frame(value, commandByte: label.commandByte, checksum: label.valueChecksum) {
            case .short(let d): return out(.diagnostic(d), label)
            case .frame(let frame):
                let (command, actual, expected) = (frame.command, frame.checksum, frame.expectedChecksum)
                out(.frame(frame), label)
                if actual != expected, let actual, let expected {
                    let width = label.valueChecksum?.algorithm.width ?? 1
                    out(
                        .diagnostic(
                            FramingDiagnostics.badChecksum(
                                command: label.commandByte ? command : nil, sequence: nil, actual: actual,
                                expected: expected, width: width)),
                        label)
                }
                return
            }
        }
        framed?.push(value, at: place) { out($0, label) }
    }

    mutating func hole() -> [FramedStream.Output] { framed?.hole() ?? [] }

    mutating func finish(reason: String) -> [FramedStream.Output] { framed?.finish(reason: reason) ?? [] }
}

extension FrameInfo.Naming {
    /// What a stream's label says of its frames, before a dissector adds to it. The label is lent:
    /// copying it would copy its dissector (an existential).
    init(_ label: borrowing BoundStream.Label) {
        let framing = label.framing
        // Not `||`: its autoclosure would take the lent label.
        self.init(framing: framing, hasCommand: framing != nil ? true : label.commandByte)
    }
}

/// A whole value's checksum, held by reference (`BoundStream.Label`).
final class ValueChecksum: Sendable {
    let checksum: FrameFormat.Checksum
    init(_ checksum: FrameFormat.Checksum) { self.checksum = checksum }
}
