import BTLensCore

/// Cuts a byte stream into A5 frames, one step at a time.
///
/// `next()` returns one whole frame and consumes it, or nil and consumes nothing but junk.
/// In sync (at the stream's start or right after a frame) a frame with a bad checksum is still a
/// frame. Out of sync, a candidate must have its checksum hold, else the framer moves one byte on.
/// The buffer never holds more than one frame's worth plus the last chunk appended.
public struct A5Framer: Sendable {
    public struct Step: Sendable, Equatable {
        public var frame: A5Frame
        /// Bytes skipped as junk just before this frame.
        public var skipped: Int
    }

    private var buffer = StreamBuffer()
    public private(set) var inSync = true
    /// Junk bytes skipped since the last frame.
    public private(set) var skipped = 0

    public init() {}

    public var buffered: Int { buffer.count }

    public mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 { buffer.append(bytes) }

    public mutating func next() -> Step? {
        while !buffer.isEmpty {
            if buffer[0] != A5Frame.magic {
                let junk = buffer.firstIndex(of: A5Frame.magic) ?? buffer.count
                skipped += junk
                buffer.consume(junk)
                inSync = false
                continue
            }
            guard buffer.count >= A5Frame.headerLength else { return nil }
            let total = A5Frame.headerLength + Int(buffer[5]) + 1
            guard buffer.count >= total else { return nil }
            let expected = A5Frame.checksum(buffer.bytes(0 ..< total - 1))
            let actual = buffer[total - 1]
            guard expected == actual || inSync else {
                skipped += 1
                buffer.consume(1)
                continue
            }
            let frame = A5Frame(version: buffer[1], command: buffer[2], sequence: buffer[3], flags: buffer[4],
                                payload: Array(buffer.bytes(6 ..< total - 1)), checksum: actual, expectedChecksum: expected)
            let step = Step(frame: frame, skipped: skipped)
            buffer.consume(total)
            skipped = 0
            inSync = true
            return step
        }
        return nil
    }

    /// The bytes of a frame begun but not finished: (have, need).
    public var partial: (have: Int, need: Int)? {
        guard buffered > 0 else { return nil }
        let need = buffered >= A5Frame.headerLength ? A5Frame.headerLength + Int(buffer[5]) + 1 : A5Frame.headerLength
        return (buffered, need)
    }

    /// The stream lost bytes: drop any partial frame and require the next one to prove itself.
    public mutating func loseSync() {
        buffer.removeAll()
        skipped = 0
        inSync = false
    }

    /// Forgets skipped bytes once they have been reported.
    public mutating func clearSkipped() { skipped = 0 }
}
