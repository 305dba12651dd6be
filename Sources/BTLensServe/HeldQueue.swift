/// A first-in first-out list whose front is removed without moving the rest: the held events and
/// records, evicted from the front as new ones come. The array is compacted when half of it is gone.
struct HeldQueue<Element> {
    private var items: [Element] = []
    private var head = 0

    var isEmpty: Bool { head == items.count }
    var count: Int { items.count - head }
    var first: Element? { isEmpty ? nil : items[head] }
    var last: Element? { isEmpty ? nil : items[items.count - 1] }

    mutating func append(_ e: Element) { items.append(e) }

    @discardableResult mutating func removeFirst() -> Element {
        let e = items[head]
        head += 1
        if head > 1024 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return e
    }

    mutating func removeAll() {
        items.removeAll()
        head = 0
    }

    /// The element `offset` places from the front.
    subscript(offset: Int) -> Element {
        get { items[head + offset] }
        set { items[head + offset] = newValue }
    }

    /// The offset from the front of the last element that satisfies `test`, looking back at most `limit`.
    func lastOffset(within limit: Int, where test: (Element) -> Bool) -> Int? {
        var i = items.count - 1
        while i >= head && i >= items.count - limit {
            if test(items[i]) { return i - head }
            i -= 1
        }
        return nil
    }
}
