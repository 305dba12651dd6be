import Foundation
import BTLensDissect

/// Hands items (events, or records and events) from the decoding thread to a consumer on a second
/// thread, in order, in batches: decoding and rendering then run on two cores. At most `depth`
/// batches wait, so memory stays bounded when the consumer is the slower one.
public final class Relay<Item: Sendable>: @unchecked Sendable {
    public static var batchSize: Int { 2048 }
    public static var depth: Int { 8 }

    private let condition = NSCondition()
    private var queue: [Batch] = []
    private var closed = false
    /// `finish` was called (by the sending thread).
    private var ended = false
    private var batch = Batch()
    private var consumer: Thread?
    private let finished = DispatchSemaphore(value: 0)

    /// The consumer and what it captures belong to the consumer thread alone once the relay starts.
    private final class Owned: @unchecked Sendable {
        let consume: (Item) -> Void
        init(_ consume: @escaping (Item) -> Void) { self.consume = consume }
    }

    /// Starts the consumer thread; `consume` sees every item, in the order `send` got them, and
    /// nothing else may touch what it captures until `finish` returns.
    public init(_ consume: @escaping (Item) -> Void) {
        let owned = Owned(consume)
        let thread = Thread { [self] in
            while let events = self.take() {
                while let e = events.next() { owned.consume(e) }
            }
            self.finished.signal()
        }
        thread.stackSize = 8 << 20
        consumer = thread
        thread.start()
    }

    /// Called on the decoding thread.
    public func send(_ e: Item) {
        batch.append(e)
        guard batch.count >= Self.batchSize else { return }
        put(batch)
        batch = Batch()
    }

    /// Sends what is left and waits until the consumer has seen every item. Once: later calls return at once.
    public func finish() {
        guard !ended else { return }
        ended = true
        if batch.count > 0 { put(batch) }
        batch = Batch()
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
        finished.wait()
    }

    private func put(_ events: Batch) {
        condition.lock()
        while queue.count >= Self.depth { condition.wait() }
        queue.append(events)
        condition.broadcast()
        condition.unlock()
    }

    private func take() -> Batch? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && !closed { condition.wait() }
        guard !queue.isEmpty else { return nil }
        condition.broadcast()
        return queue.removeFirst()
    }

    /// Items in raw storage: the consumer moves each one out, where iterating an array would copy
    /// it (retaining what it holds) and release it again when the array goes.
    private final class Batch: @unchecked Sendable {
        private let items = UnsafeMutablePointer<Item>.allocate(capacity: Relay.batchSize)
        private(set) var count = 0
        private var taken = 0

        func append(_ item: Item) {
            (items + count).initialize(to: item)
            count += 1
        }

        func next() -> Item? {
            guard taken < count else { return nil }
            defer { taken += 1 }
            return (items + taken).move()
        }

        deinit {
            (items + taken).deinitialize(count: count - taken)
            items.deallocate()
        }
    }
}

/// The timeline's relay: events only.
public typealias EventRelay = Relay<Event>
