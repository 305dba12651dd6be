import Foundation
import BTLensDissect

/// Hands events from the decoding thread to a consumer on a second thread, in order, in batches:
/// decoding and rendering then run on two cores. At most `depth` batches wait, so memory stays
/// bounded when the consumer is the slower one.
public final class EventRelay: @unchecked Sendable {
    public static let batchSize = 2048
    public static let depth = 8

    private let condition = NSCondition()
    private var queue: [[Event]] = []
    private var closed = false
    private var batch: [Event] = []
    private var consumer: Thread?
    private let finished = DispatchSemaphore(value: 0)

    /// The consumer and what it captures belong to the consumer thread alone once the relay starts.
    private final class Owned: @unchecked Sendable {
        let consume: (Event) -> Void
        init(_ consume: @escaping (Event) -> Void) { self.consume = consume }
    }

    /// Starts the consumer thread; `consume` sees every event, in the order `send` got them, and
    /// nothing else may touch what it captures until `finish` returns.
    public init(_ consume: @escaping (Event) -> Void) {
        batch.reserveCapacity(Self.batchSize)
        let owned = Owned(consume)
        let thread = Thread { [self] in
            while let events = self.take() { for e in events { owned.consume(e) } }
            self.finished.signal()
        }
        thread.stackSize = 8 << 20
        consumer = thread
        thread.start()
    }

    /// Called on the decoding thread.
    public func send(_ e: Event) {
        batch.append(e)
        guard batch.count >= Self.batchSize else { return }
        put(batch)
        batch = []
        batch.reserveCapacity(Self.batchSize)
    }

    /// Sends what is left and waits until the consumer has seen every event.
    public func finish() {
        if !batch.isEmpty { put(batch) }
        batch = []
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
        finished.wait()
    }

    private func put(_ events: [Event]) {
        condition.lock()
        while queue.count >= Self.depth { condition.wait() }
        queue.append(events)
        condition.broadcast()
        condition.unlock()
    }

    private func take() -> [Event]? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && !closed { condition.wait() }
        guard !queue.isEmpty else { return nil }
        condition.broadcast()
        return queue.removeFirst()
    }
}
