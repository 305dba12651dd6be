import BTLensCore

/// Bytes, appended in chunks of any size, cut into physical lines at `\n` (a `\r` before it is
/// dropped). A line longer than `limit` bytes is cut at the last whole UTF-8 character within it,
/// and the rest of it skipped as it arrives: what is held is the unread chunk and at most `limit`
/// bytes of a line. A line that runs past `endless` bytes with no end (`/dev/zero` through a pipe)
/// is no text: it is said, and nothing after it is read.
struct PhysicalLines {
    enum Event: Equatable {
        /// Line `number` (1-based), without its line end.
        case line(Int, [UInt8])
        /// Line `number` was `bytes` long, more than the limit; its first part came as a `.line`.
        case cut(Int, bytes: Int)
        /// Line `number` ran past `endless` bytes and has not ended.
        case endless(Int)
    }

    let limit: Int
    let endless: Int
    private var buffer = StreamBuffer()
    /// Bytes at the front of `buffer` known to hold no `\n`, so each byte is searched once.
    private var searched = 0
    /// The line being skipped past its limit: its number and its length so far.
    private var skipping: (number: Int, bytes: Int)?
    private var cutPending: Event?
    private(set) var number = 0
    private(set) var finished = false

    init(limit: Int, endless: Int) {
        self.limit = max(limit, 4)
        self.endless = max(endless, self.limit)
    }

    mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 { buffer.append(bytes) }

    /// No more bytes will come: a last line without `\n` is a line.
    mutating func finish() { finished = true }

    /// The next line or cut, or nil when more bytes are needed (or, after `finish`, at the end).
    mutating func next() -> Event? {
        if let cut = cutPending {
            cutPending = nil
            return cut
        }
        if let skip = skipping {
            guard let end = buffer.firstIndex(of: 0x0a) else {
                let bytes = skip.bytes.saturatingAdding(buffer.count)
                skipping = (skip.number, bytes)
                buffer.removeAll()
                if bytes > endless { return .endless(skip.number) }
                if !finished { return nil }
                skipping = nil
                return .cut(skip.number, bytes: skip.bytes)
            }
            buffer.consume(end + 1)
            skipping = nil
            return .cut(skip.number, bytes: skip.bytes.saturatingAdding(end))
        }
        if let end = buffer.firstIndex(of: 0x0a, from: searched) {
            searched = 0
            var length = end
            if length > 0 && buffer[length - 1] == 0x0d { length -= 1 }
            number += 1
            if length > limit {
                cutPending = .cut(number, bytes: length)
                defer { buffer.consume(end + 1) }
                return .line(number, Array(buffer.bytes(0..<cutPoint())))
            }
            defer { buffer.consume(end + 1) }
            return .line(number, Array(buffer.bytes(0..<length)))
        }
        searched = buffer.count
        if buffer.count > limit {
            number += 1
            let cut = cutPoint()
            defer {
                buffer.removeAll()
                searched = 0
            }
            skipping = (number, buffer.count)
            return .line(number, Array(buffer.bytes(0..<cut)))
        }
        guard finished, buffer.count > 0 else { return nil }
        number += 1
        var length = buffer.count
        if buffer[length - 1] == 0x0d { length -= 1 }
        defer {
            buffer.removeAll()
            searched = 0
        }
        return .line(number, Array(buffer.bytes(0..<length)))
    }

    /// `limit`, moved back to the start of a character when a multi-byte one straddles it.
    private func cutPoint() -> Int {
        var cut = limit
        while cut > limit - 3, cut < buffer.count, buffer[cut] & 0xc0 == 0x80 { cut -= 1 }
        return cut
    }
}
