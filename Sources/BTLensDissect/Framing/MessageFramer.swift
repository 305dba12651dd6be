import BTLensCore

/// Cuts a byte stream into frames of one `FrameFormat`, one step at a time.
///
/// `next()` returns one whole frame and consumes it, or nil and consumes nothing but junk.
/// In sync (at the stream's start or right after a frame) a frame with a bad checksum is still a
/// frame. Out of sync, a candidate must have its checksum hold, else the framer moves one byte on.
/// The buffer never holds more than one frame's worth plus the last chunk appended.
public struct MessageFramer: Sendable {
    public struct Step: Sendable, Equatable {
        public var frame: Frame
        /// Bytes skipped as junk just before this frame.
        public var skipped: Int
        /// Why the first of them was skipped.
        public var skipReason: SkipReason? = nil
    }

    public let format: FrameFormat
    /// The whole frames whose payloads are copied out. A frame of several keeps its part, for the
    /// joined message.
    public let payloads: PayloadPolicy
    private let layout: FrameLayout
    private var buffer = StreamBuffer()
    /// A delimited framing's bytes as they came, escaped: `buffer` then holds one frame, unescaped,
    /// while it is parsed.
    private var escaped = StreamBuffer()
    /// Whether the format is delimited, read once: the format's delimiting holds a table.
    private let isDelimited: Bool
    /// How many end bytes frames have, read once for the same reason.
    private let endLength: Int
    public private(set) var inSync = true
    /// A delimited framing's bytes at the front follow an end byte: at a stream's start (or after
    /// lost bytes) they may be the tail of a frame begun before, and must prove themselves.
    private var afterEnd = false
    /// The format's preamble may yet come: nothing but its bytes has been seen.
    private var preambleDue: Bool
    /// The flag bits that say a frame carries its checksum, read once: the checksum holds a CRC.
    private let checksumFlag: UInt8?
    /// Junk bytes skipped since the last frame.
    public private(set) var skipped = 0
    /// Why the first of them was skipped: what was expected there, and what was found.
    public private(set) var skipReason: SkipReason?

    /// The longest frame held (`--limit message-bytes`): a longer one's length is taken as wrong,
    /// so a 4-byte length cannot make the buffer grow past it.
    public let frameLimit: Int

    public init(format: FrameFormat = .a5, payloads: PayloadPolicy = .keepAll, frameLimit: Int = Limits().messageBytes)
    {
        self.format = format
        self.payloads = payloads
        self.frameLimit = min(frameLimit, format.maxLength ?? frameLimit)
        layout = FrameLayout(format)
        isDelimited = format.delimiting != nil
        endLength = format.end.count
        preambleDue = !format.preamble.isEmpty
        checksumFlag = format.checksum?.flag
    }

    /// A framer like this one, with nothing buffered.
    public var restarted: MessageFramer { MessageFramer(format: format, payloads: payloads, frameLimit: frameLimit) }

    public var buffered: Int { buffer.count + escaped.count }

    public mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if isDelimited { escaped.append(bytes) } else { buffer.append(bytes) }
    }

    public mutating func next() -> Step? {
        // Bytes that may yet be the preamble wait for `takePreamble`.
        if preambleDue { return nil }
        if isDelimited, let d = format.delimiting { return nextDelimited(d) }
        guard let first = layout.magicFirst else { return nextUnmarked() }
        while !buffer.isEmpty {
            if buffer[0] != first {
                let junk = buffer.firstIndex(of: first) ?? buffer.count
                skip(junk, .magic(found: buffer[0]))
                continue
            }
            // The rest of a multi-byte magic.
            if format.magic.count > 1,
                (1..<min(format.magic.count, buffer.count)).contains(where: { buffer[$0] != format.magic[$0] })
            {
                skip(1, .magicRest)
                continue
            }
            guard buffer.count >= format.headerLength else { return nil }
            let (fragment, trailer) = fragmentAndTrailer
            guard let total = frameLength(trailer: trailer) else {
                skip(1, .length(lengthValue))
                continue
            }
            guard buffer.count >= total else { return nil }
            guard endsRight(total) else {
                skip(1, .end(at: total - endLength))
                continue
            }
            let frame = parse(total, fragment: fragment, trailer: trailer)
            // A frame of several cannot prove itself alone: its message is checked once joined.
            guard frame.checksumOK || inSync || frame.isPartOfMessage else {
                skip(1, .checksum(found: frame.checksum, computed: frame.expectedChecksum))
                continue
            }
            let step = Step(frame: frame, skipped: skipped, skipReason: skipReason)
            buffer.consume(total)
            clearSkipped()
            inSync = true
            return step
        }
        return nil
    }

    /// A value (an ATT value, an RFCOMM frame, an SDU) begins. With no magic, nothing in the bytes
    /// marks where a frame begins: out of sync, the framer takes the next value's first byte as one.
    public mutating func valueBegins() {
        if !format.spansValues, buffered > 0 {
            if isDelimited { skipEscaped(escaped.count, .valueEnded) } else { skip(buffer.count, .valueEnded) }
        }
        if layout.magicFirst == nil, buffer.isEmpty { inSync = true }
    }

    /// A framing with no magic: frames follow each other from a value's first byte. Out of sync
    /// (a length that cannot be right), the bytes are junk until the next value begins: trying
    /// every byte as a frame's first would cost a frame's length per byte.
    private mutating func nextUnmarked() -> Step? {
        guard !buffer.isEmpty else { return nil }
        guard inSync else {
            skip(buffer.count, .outOfSync)
            return nil
        }
        guard buffer.count >= format.headerLength else { return nil }
        let (fragment, trailer) = fragmentAndTrailer
        guard let total = frameLength(trailer: trailer) else {
            skip(buffer.count, .length(lengthValue))
            return nil
        }
        guard buffer.count >= total else { return nil }
        guard endsRight(total) else {
            skip(buffer.count, .end(at: total - endLength))
            return nil
        }
        let step = Step(
            frame: parse(total, fragment: fragment, trailer: trailer), skipped: skipped, skipReason: skipReason)
        buffer.consume(total)
        clearSkipped()
        return step
    }

    /// The next frame of a delimited framing: bytes up to an end byte (from a start byte, where
    /// the framing has one), unescaped, with its magic, header and checksum as described. Bytes
    /// before a start byte, and frames that cannot be right (a bad escape, shorter than their
    /// header and checksum, a length field that disagrees), are junk. Bytes held without an end
    /// past twice the frame limit (escaping at most doubles a frame) are junk too.
    private mutating func nextDelimited(_ d: Delimiting) -> Step? {
        // End bytes that delimit nothing, since the last junk: the frame's, as far as records go.
        var leading = 0
        while !escaped.isEmpty {
            guard let end = escaped.firstIndex(of: d.end) else {
                if escaped.count > 2 * frameLimit {
                    skipEscaped(escaped.count, .noEnd(held: escaped.count))
                }
                return nil
            }
            var from = 0
            if let start = d.start {
                // No start before the end: everything up to the end is junk, the end included.
                guard let s = escaped.firstIndex(of: start), s < end else {
                    skipEscaped(end + 1, .noStart)
                    continue
                }
                guard s == 0 else {
                    skipEscaped(s, .beforeStart(found: escaped[0]))
                    continue
                }
                // A start inside: the frame before it lost its end.
                if let again = escaped.firstIndex(of: start, from: 1), again < end {
                    skipEscaped(again, .startInside)
                    continue
                }
                from = 1
            }
            // An end with nothing before it delimits nothing: SLIP's leading END, HDLC's shared flag.
            if end == from {
                afterEnd = true
                escaped.consume(end + 1)
                leading += end + 1
                continue
            }
            // The tail of a frame begun before the stream (SLIP junk with no leading END) is junk
            // when its checksum fails; after an end byte, a bad checksum is still a frame.
            let proven = afterEnd || d.start != nil
            afterEnd = true
            guard let frame = d.unescape(escaped.bytes(from..<end)) else {
                skipDelimited(end + 1, &leading, .escape)
                continue
            }
            guard let step = delimitedStep(frame, wire: leading + end + 1) else {
                skipDelimited(end + 1, &leading, .delimited(frame.count, magic: frame.starts(with: format.magic)))
                continue
            }
            guard proven || step.frame.checksumOK || step.frame.isPartOfMessage else {
                skipDelimited(end + 1, &leading, .unproven)
                continue
            }
            escaped.consume(end + 1)
            clearSkipped()
            inSync = true
            return step
        }
        return nil
    }

    /// A delimited frame's bytes, unescaped, as a frame of `wire` bytes in the stream; nil when its
    /// magic, size or length field says it is not one.
    private mutating func delimitedStep(_ frame: [UInt8], wire: Int) -> Step? {
        guard frame.count >= format.headerLength, frame.starts(with: format.magic) else { return nil }
        buffer.removeAll()
        buffer.append(frame)
        defer { buffer.removeAll() }
        let (fragment, trailer) = fragmentAndTrailer
        guard frame.count >= format.headerLength + trailer,
            layout.length == nil || frameLength(trailer: trailer) == frame.count
        else { return nil }
        var parsed = parse(frame.count, fragment: fragment, trailer: trailer)
        // Its length in the stream, delimiters and escapes included: where its bytes came from.
        parsed.length = wire
        return Step(frame: parsed, skipped: skipped, skipReason: skipReason)
    }

    /// Whether the frame of `total` bytes in the buffer ends with the format's end bytes.
    @inline(__always) private func endsRight(_ total: Int) -> Bool {
        endLength == 0 || format.end.indices.allSatisfy { buffer[total - endLength + $0] == format.end[$0] }
    }

    private mutating func skipEscaped(_ n: Int, _ why: SkipReason) {
        if skipped == 0 { skipReason = why }
        skipped += n
        escaped.consume(n)
        inSync = false
    }

    /// A delimited candidate that is no frame, after `leading` end bytes that delimited nothing.
    private mutating func skipDelimited(_ n: Int, _ leading: inout Int, _ why: SkipReason) {
        skipEscaped(n, why)
        skipped += leading
        leading = 0
    }

    private mutating func skip(_ n: Int, _ why: SkipReason) {
        if skipped == 0 { skipReason = why }
        skipped += n
        buffer.consume(n)
        inSync = false
    }

    /// The length field's value in the buffer.
    private var lengthValue: Int { layout.length.map { integer($0) } ?? 0 }

    /// The whole frame's length from the header in the buffer; nil when the length field cannot be right.
    @inline(__always) private func frameLength(trailer: Int) -> Int? {
        if let size = format.size { return size }
        guard let field = layout.length,
            let payload = format.payloadLength(forLengthValue: integer(field), trailer: trailer)
        else { return nil }
        let total = format.headerLength + payload + trailer + endLength
        return total <= frameLimit ? total : nil
    }

    /// The fragment fields of the frame in the buffer (a format with them), and the length of its
    /// checksum: frames before the last of a message sent in several carry none.
    private var fragmentAndTrailer: (fragment: Frame.Fragment?, trailer: Int) {
        let trailer = checksumPresent ? format.trailerLength : 0
        guard format.hasFragments else { return (nil, trailer) }
        let f = Frame.Fragment(
            index: layout.fragmentIndex.map { buffer[$0] } ?? 1, count: layout.fragmentCount.map { buffer[$0] } ?? 1)
        return (f, f.index >= f.count ? trailer : 0)
    }

    /// Whether the frame in the buffer carries its checksum: always, but where a flag says so.
    private var checksumPresent: Bool {
        guard let flag = checksumFlag else { return true }
        let flags = layout.flags.map { Int(buffer[$0]) } ?? layout.flagsBits.map { integer($0) } ?? 0
        return flags & Int(flag) != 0
    }

    /// The frame of `total` bytes at the front of the buffer, built whole: its payload copied out
    /// (unless not kept), its checksum read and computed in place.
    @inline(__always) private func parse(_ total: Int, fragment: Frame.Fragment?, trailer: Int) -> Frame {
        let payloadEnd = total - trailer - endLength
        var checksum: UInt32?
        var expected: UInt32?
        if let c = format.checksum, trailer > 0 {
            checksum = UInt32(
                truncatingIfNeeded: integer(at: payloadEnd, width: c.algorithm.width, bigEndian: c.bigEndian))
            // The last frame of several carries its message's checksum: the stream checks it once
            // the payload is joined, so none is computed for the frame alone.
            if (fragment?.count ?? 1) <= 1 {
                expected = buffer.withUnsafeBytes(0..<payloadEnd) {
                    c.algorithm.compute(format.checksummed($0, payloadStart: format.headerLength))
                }
            }
        }
        let command = layout.command.map { UInt16(truncatingIfNeeded: integer($0)) } ?? 0
        return Frame(
            version: byte(at: layout.version), command: command,
            sequence: byte(at: layout.sequence) ?? layout.sequenceBits.map { UInt8(truncatingIfNeeded: integer($0)) },
            flags: byte(at: layout.flags) ?? layout.flagsBits.map { UInt8(truncatingIfNeeded: integer($0)) },
            payload: payloads.keeps(command) || (fragment?.count ?? 1) > 1 || format.more != nil
                ? buffer.withUnsafeBytes(format.headerLength..<payloadEnd) { Array($0) } : [],
            payloadCount: payloadEnd - format.headerLength,
            checksum: checksum, expectedChecksum: expected, length: total, fragment: fragment)
    }

    private func byte(at offset: Int?) -> UInt8? {
        guard let offset else { return nil }
        return buffer[offset]
    }

    private func integer(_ field: FrameLayout.Integer) -> Int {
        (integer(at: field.offset, width: field.width, bigEndian: field.bigEndian) & Int(field.mask)) >> field.shift
    }

    private func integer(at offset: Int, width: Int, bigEndian: Bool) -> Int {
        var value = 0
        for i in 0..<width { value = value << 8 | Int(buffer[offset + (bigEndian ? i : width - 1 - i)]) }
        return value
    }

    /// The bytes of a frame begun but not finished: (have, need).
    public var partial: (have: Int, need: Int)? {
        guard buffered > 0 else { return nil }
        // A delimited frame's end is not known until it comes.
        if isDelimited { return (buffered, 0) }
        let need =
            buffered >= format.headerLength
            ? (frameLength(trailer: fragmentAndTrailer.trailer) ?? format.headerLength) : format.headerLength
        return (buffered, need)
    }

    /// The stream lost bytes: drop any partial frame and require the next one to prove itself.
    public mutating func loseSync() {
        buffer.removeAll()
        escaped.removeAll()
        afterEnd = false
        preambleDue = false
        clearSkipped()
        inSync = false
    }

    /// Forgets skipped bytes once they have been reported.
    public mutating func clearSkipped() {
        skipped = 0
        skipReason = nil
    }

    /// The preamble at the stream's start, consumed: its length, once it is whole. Nil while it may
    /// yet come (its first bytes so far), and for good once other bytes came first.
    public mutating func takePreamble() -> Int? {
        guard preambleDue else { return nil }
        let preamble = format.preamble
        let front = isDelimited ? escaped : buffer
        let n = min(front.count, preamble.count)
        guard (0..<n).allSatisfy({ front[$0] == preamble[$0] }) else {
            preambleDue = false
            return nil
        }
        guard n == preamble.count else { return nil }
        if isDelimited { escaped.consume(n) } else { buffer.consume(n) }
        preambleDue = false
        // A delimited frame after the preamble has nothing of another before it.
        afterEnd = true
        return n
    }
}
