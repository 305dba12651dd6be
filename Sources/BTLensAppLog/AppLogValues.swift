/// The values the capture carried within the merger's window, in the order they came, each with
/// an id, indexed by a hash of their bytes and of their first 4: a line's bytes find the values
/// they are (or begin) without a scan of the window.
///
/// Bounded by the merger's holds: a value is added with its event and removed when it leaves the
/// window (`AppLogAirMatcher.prune`); its index entries go with it.
struct AppLogValues {
    private var values: [AppLogValue] = []
    private var start = 0
    /// The id of `values[0]`.
    private var base = 0
    private var wholes: [Int: Ids] = [:]
    private var heads: [Int: Ids] = [:]

    /// The ids of the values with one hash, oldest first, removed from the front as they leave:
    /// the oldest inline, so that a hash of one value (most are) allocates nothing.
    private struct Ids {
        var first: Int
        var rest: [Int] = []
        var start = 0
        var all: [Int] { [first] + rest[start...] }
    }

    /// The id of the oldest value, and of the next to come.
    var firstID: Int { base + start }
    var endID: Int { base + values.count }

    /// Adds `v` (its hashes set); its id.
    @discardableResult
    mutating func add(_ v: AppLogValue) -> Int {
        let id = endID
        values.append(v)
        Self.insert(id, v.hash, into: &wholes)
        if let h = v.head { Self.insert(id, h, into: &heads) }
        return id
    }

    subscript(id: Int) -> AppLogValue {
        get { values[id - base] }
        _modify { yield &values[id - base] }
    }

    /// The values whose bytes hash to `whole`, or whose first 4 bytes hash to `head`, oldest first.
    func ids(whole: Int) -> [Int] { wholes[whole]?.all ?? [] }
    func ids(head: Int) -> [Int] { heads[head]?.all ?? [] }

    /// Removes the oldest value.
    mutating func removeFirst() -> AppLogValue {
        let v = values[start]
        let id = firstID
        start += 1
        Self.drop(id, v.hash, from: &wholes)
        if let h = v.head { Self.drop(id, h, from: &heads) }
        if start > 1024 && start * 2 > values.count {
            values.removeFirst(start)
            base += start
            start = 0
        }
        return v
    }

    private static func insert(_ id: Int, _ hash: Int, into index: inout [Int: Ids]) {
        if let i = index.index(forKey: hash) {
            index.values[i].rest.append(id)
        } else {
            index[hash] = Ids(first: id)
        }
    }

    /// Drops `id`, the oldest of its hash, in place (no copy of the ids).
    private static func drop(_ id: Int, _ hash: Int, from index: inout [Int: Ids]) {
        guard let i = index.index(forKey: hash), index.values[i].first == id else { return }
        let (start, count) = (index.values[i].start, index.values[i].rest.count)
        guard start < count else {
            index.remove(at: i)
            return
        }
        index.values[i].first = index.values[i].rest[start]
        index.values[i].start = start + 1
        if start + 1 > 32 && (start + 1) * 2 > count {
            index.values[i].rest.removeFirst(start + 1)
            index.values[i].start = 0
        }
    }
}
