import BTLensCore

/// A message joined from frames that each say another follows (ESP BluFi's fragment flag 0x10): the
/// message ends at the first frame without the flag. Each frame carries its own checksum, checked
/// alone; a flagged frame's payload may begin with the message's total length, checked once joined.
struct FlaggedJoin {
    var first: Frame
    var payload: [UInt8]
    var total: Int?
    var length: Int
    var frames: Int
    /// The first frame whose checksum failed: the message says so.
    var bad: (actual: UInt32, expected: UInt32)?
}

extension FramedStream {
    mutating func joinFlagged(
        _ frame: Frame, _ more: FrameFormat.MoreFollows, _ out: (consuming Output) -> Void
    ) {
        let follows = (frame.flags ?? 0) & more.flag != 0
        guard follows || flagged != nil else { return accept(frame, out) }
        var content = frame.payload[...]
        var total: Int?
        if follows, more.totalWidth > 0 {
            guard content.count >= more.totalWidth else {
                abandonFlagged("a frame too short for its total length", out)
                return out(missing(frame, "a frame too short for its total length", frames: 1, bytes: frame.length))
            }
            let field = Array(content.prefix(more.totalWidth))
            total = FrameFormat.integer(field, at: 0, width: more.totalWidth, bigEndian: more.totalBigEndian)
            content = content.dropFirst(more.totalWidth)
        }
        trackSequence(frame.sequence, command: frame.command, version: frame.version, flags: frame.flags, out)
        var j = flagged ?? FlaggedJoin(first: frame, payload: [], total: total, length: 0, frames: 0)
        j.payload += content
        j.length += frame.length
        j.frames += 1
        if j.bad == nil, !frame.checksumOK, let a = frame.checksum, let e = frame.expectedChecksum { j.bad = (a, e) }
        flagged = j
        guard j.payload.count <= min(messageLimit, j.total ?? messageLimit) else {
            return abandonFlagged("its joined payload passed \(min(messageLimit, j.total ?? messageLimit)) bytes", out)
        }
        guard !follows else { return }
        if let t = j.total, j.payload.count != t {
            return abandonFlagged("\(j.payload.count) of its \(t) bytes at its last frame", out)
        }
        flagged = nil
        var whole = j.first
        whole.payload = j.payload
        whole.payloadCount = j.payload.count
        whole.length = j.length
        // Shown as the frames it was joined from, as a message of fragment-count frames is.
        if j.frames > 1 {
            whole.fragment = Frame.Fragment(index: UInt8(clamping: j.frames), count: UInt8(clamping: j.frames))
        }
        (whole.checksum, whole.expectedChecksum) =
            j.bad.map { ($0.actual, $0.expected) } ?? (frame.checksum, frame.expectedChecksum)
        accept(whole, out, tracked: true)
    }

    /// Drops a flagged message being joined, saying why.
    mutating func abandonFlagged(_ why: String, _ out: (consuming Output) -> Void) {
        guard let j = flagged else { return }
        flagged = nil
        out(missing(j.first, "\(j.frames) frames, then \(why)", frames: j.frames, bytes: j.length))
    }
}
