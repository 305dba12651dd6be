import BTLensFilter

/// One page's place in the hub: its filter, the next event it reads, what it missed, and the lines
/// owed to it. Kept in the hub's state, under its lock; a page's session names it by `id`.
struct LiveReader {
    let id: Int
    /// The sequence number of the next event to look at.
    var cursor = 0
    var filter: DisplayFilter?
    var filterText = ""
    /// Events evicted before this page read them.
    var dropped = 0
    /// Control lines owed, sent before any event.
    var control: [[UInt8]] = []
    var statusDue = true
    var lastStatus: [UInt8] = []
    var sentEnd = false
    var closed = false
    var waiter: CheckedContinuation<Void, Never>?

    init(id: Int) { self.id = id }
}
