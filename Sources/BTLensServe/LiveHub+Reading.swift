import BTLensCore
import BTLensFilter

/// The pages' side of the hub: joining, filters, and the next message for each.
extension LiveHub {
    /// A page joins, with the filter it had (a page that reconnects): the hello, then its selection.
    func join(filter expression: String) -> LiveReader {
        let r = held.withLock { h in
            let r = LiveReader(id: h.nextReader)
            h.nextReader += 1
            h.readersEver += 1
            r.control = [LiveMessages.hello(mode: mode, source: source, filter: expression)]
            h.readers[r.id] = r
            return r
        }
        setFilter(expression, for: r)
        return r
    }

    func leave(_ r: LiveReader) {
        _ = held.withLock { $0.readers.removeValue(forKey: r.id) }
    }

    /// A filter from the page, compiled here: refused with where it is wrong, or the page's list
    /// starts over with it from the oldest event held.
    func setFilter(_ expression: String, for r: LiveReader) {
        var compiled: Result<DisplayFilter?, FilterError> = .success(nil)
        if !expression.allSatisfy(\.isWhitespace) {
            do throws(FilterError) { compiled = .success(try DisplayFilter(expression)) } catch {
                compiled = .failure(error)
            }
        }
        let waiter = held.withLock { h -> CheckedContinuation<Void, Never>? in
            switch compiled {
            case .failure(let e):
                r.control.append(LiveMessages.filterError(e))
            case .success(let filter):
                if let origin = h.origin { filter?.begin(at: origin) }
                r.filter = filter
                r.filterText = filter == nil ? "" : expression
                r.cursor = h.firstSeq
                r.sentEnd = false
                r.control.append(LiveMessages.reset(filter: r.filterText))
            }
            defer { r.waiter = nil }
            return r.waiter
        }
        waiter?.resume()
    }

    /// A line for the page owed outside its events (the details it asked for).
    func send(_ line: [UInt8], to r: LiveReader) {
        let waiter = held.withLock { _ -> CheckedContinuation<Void, Never>? in
            r.control.append(line)
            defer { r.waiter = nil }
            return r.waiter
        }
        waiter?.resume()
    }

    func close(_ r: LiveReader) {
        let waiter = held.withLock { _ -> CheckedContinuation<Void, Never>? in
            r.closed = true
            defer { r.waiter = nil }
            return r.waiter
        }
        waiter?.resume()
    }

    /// The page's next message, one or more lines: what it is owed, then the events from its place
    /// that its filter selects. Waits while there is nothing; nil once the page has gone.
    func next(_ r: LiveReader) async -> String? {
        while true {
            if let bytes = held.withLock({ take(r, &$0) }) { return String(decoding: bytes, as: UTF8.self) }
            if held.withLock({ _ in r.closed }) { return nil }
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let ready = held.withLock { h in
                    if r.closed || !r.control.isEmpty || r.statusDue || r.cursor < h.nextSeq
                        || (h.state != .live && !r.sentEnd)
                    {
                        return true
                    }
                    r.waiter = c
                    return false
                }
                if ready { c.resume() }
            }
        }
    }

    private func take(_ r: LiveReader, _ h: inout Held) -> [UInt8]? {
        guard !r.closed else { return nil }
        var out: [UInt8] = []
        for line in r.control {
            out += line
            out.append(0x0a)
        }
        r.control.removeAll()
        if r.cursor < h.firstSeq {
            r.dropped += h.firstSeq - r.cursor
            r.cursor = h.firstSeq
            r.statusDue = true
        }
        var scanned = 0
        while r.cursor < h.nextSeq && out.count < limits.messageBytes && scanned < limits.scanEvents {
            let entry = h.entries[r.cursor - h.firstSeq]
            r.cursor += 1
            scanned += 1
            guard r.filter?.matches(entry.event) ?? true else { continue }
            out += entry.line
            out.append(0x0a)
        }
        let caughtUp = r.cursor == h.nextSeq
        if r.statusDue || (caughtUp && h.state != .live && !r.sentEnd) {
            r.statusDue = false
            // Said when it changed: a quiet capture's page gets nothing.
            let status = LiveMessages.status(h, r)
            if status != r.lastStatus {
                out += status
                out.append(0x0a)
                r.lastStatus = status
            }
        }
        if caughtUp && h.state != .live && !r.sentEnd {
            out += LiveMessages.end()
            out.append(0x0a)
            r.sentEnd = true
        }
        return out.isEmpty ? nil : out
    }

    /// The record's details, if still held.
    func details(_ record: Int) -> RecordDetails? {
        held.withLock { $0.details.find(record) }
    }

    public var recordsSeen: Int { held.withLock { $0.records } }
}
