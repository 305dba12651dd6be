/// A list whose first element is stored inline: most PDUs yield one value, and then need no array
/// (no allocation per PDU on the hot path).
struct InlineList<Element>: Sequence {
    private var first: Element?
    private var rest: [Element] = []

    init() {}

    var isEmpty: Bool { first == nil }
    var count: Int { first == nil ? 0 : 1 + rest.count }

    mutating func append(_ e: Element) {
        if first == nil { first = e } else { rest.append(e) }
    }

    func makeIterator() -> Iterator { Iterator(list: self) }

    /// Each element in order, lent to `body`: iterating would copy the list and each element.
    func forEachLent(_ body: (Element) -> Void) {
        switch first {
        case .none: return
        case .some(let e): body(e)
        }
        for i in rest.indices { body(rest[i]) }
    }

    struct Iterator: IteratorProtocol {
        let list: InlineList
        var index = 0

        mutating func next() -> Element? {
            defer { index += 1 }
            if index == 0 { return list.first }
            return index - 1 < list.rest.count ? list.rest[index - 1] : nil
        }
    }
}

extension InlineList: Sendable where Element: Sendable {}
