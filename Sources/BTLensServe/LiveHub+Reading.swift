import BTLensCore
import BTLensFilter

/// The pages' side of the hub: joining, filters, and the next message for each. A page's session
/// names its reader by id; the reader lives in the hub's state, under its lock.
extension LiveHub {
    /// A page joins, with the filter it had (a page that reconnects): the hello, then its selection.
    func join(filter expression: String) -> Int {
        // The hello names the filter in effect: a refused one is said after it, and none applies.
        let accepted = (try? Self.compile(expression).get()) != nil
        let id = held.withLock { h in
            var r = LiveReader(id: h.nextReader)
            h.nextReader += 1
            h.readersEver += 1
            r.control = [
                LiveMessages.hello(mode: mode, source: source, filter: accepted ? expression : "", report: reports)
            ]
            h.readers[r.id] = r
            return r.id
        }
        if !accepted { setFilter("", for: id) }
        setFilter(expression, for: id)
        return id
    }

    func leave(_ id: Int) {
        _ = held.withLock { $0.readers.removeValue(forKey: id) }
    }

    /// A filter from the page, compiled here: refused with where it is wrong, or the page's list
    /// starts over with it from the oldest event held.
    func setFilter(_ expression: String, for id: Int) {
        let compiled = Self.compile(expression)
        update(id) { r, h in
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
        }
    }

    /// A page's filter: none when blank, refused past `filterCharacters`.
    static func compile(_ expression: String) -> Result<DisplayFilter?, FilterError> {
        if expression.count > LiveHub.filterCharacters {
            let why = "longer than \(LiveHub.filterCharacters) characters"
            return .failure(FilterError(why, in: expression, at: LiveHub.filterCharacters))
        }
        guard !expression.allSatisfy(\.isWhitespace) else { return .success(nil) }
        do throws(FilterError) { return .success(try DisplayFilter(expression)) } catch { return .failure(error) }
    }

    /// A line for the page owed outside its events (the details it asked for).
    func send(_ line: [UInt8], to id: Int) {
        update(id) { r, _ in r.control.append(line) }
    }

    func close(_ id: Int) {
        update(id) { r, _ in r.closed = true }
    }

    /// Changes a reader, and wakes its session.
    private func update(_ id: Int, _ change: (inout LiveReader, Held) -> Void) {
        let waiter = held.withLock { h -> CheckedContinuation<Void, Never>? in
            guard var r = h.readers[id] else { return nil }
            change(&r, h)
            let w = r.waiter
            r.waiter = nil
            h.readers[id] = r
            return w
        }
        waiter?.resume()
    }

    /// The page's next message, one or more lines: what it is owed, then the events from its place
    /// that its filter selects. Waits while there is nothing; nil once the page has gone.
    func next(_ id: Int) async -> String? {
        while true {
            switch owed(id) {
            case .closed: return nil
            case .lines(let bytes): return String(decoding: bytes, as: UTF8.self)
            case .nothing: break
            }
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let ready = held.withLock { h in
                    guard let r = h.readers[id] else { return true }
                    if r.closed || !r.control.isEmpty || r.statusDue || r.cursor < h.nextSeq
                        || (h.state != .live && !r.sentEnd)
                    {
                        return true
                    }
                    h.readers[id]?.waiter = c
                    return false
                }
                if ready { c.resume() }
            }
        }
    }

    enum Taken {
        case lines([UInt8])
        case nothing
        case closed
    }

    /// What the page is owed now, without waiting.
    func owed(_ id: Int) -> Taken { held.withLock { take(id, &$0) } }

    private func take(_ id: Int, _ h: inout Held) -> Taken {
        guard var r = h.readers[id], !r.closed else { return .closed }
        defer { h.readers[id] = r }
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
        let ending = r.cursor == h.nextSeq && h.state != .live && !r.sentEnd
        if r.statusDue || ending {
            r.statusDue = false
            // Said when it changed: a quiet capture's page gets nothing.
            let status = LiveMessages.status(h, r)
            if status != r.lastStatus {
                out += status
                out.append(0x0a)
                r.lastStatus = status
            }
        }
        if ending {
            out += LiveMessages.end()
            out.append(0x0a)
            r.sentEnd = true
        }
        return out.isEmpty ? .nothing : .lines(out)
    }

    /// The record's details, if still held.
    func details(_ record: Int) -> RecordDetails? {
        held.withLock { $0.details.find(record) }
    }

    public var recordsSeen: Int { held.withLock { $0.records } }
}
