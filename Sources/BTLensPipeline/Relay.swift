import BTLensDissect
import Foundation

/// Hands items (records from the reading thread, events from the decoding one) to a consumer on a
/// thread of its own, in order, in batches: reading, decoding and rendering then run side by side.
/// At most `depth` batches wait, so memory stays bounded when the consumer is the slower one: in
/// items, and in bytes for a sender that says what each item holds (records of a capture, which
/// may be 64 KiB or 1 MiB each).
public final class Relay<Item: Sendable>: @unchecked Sendable {
    public static var batchSize: Int { 2048 }
    public static var depth: Int { 8 }
    /// A batch is handed on once its items hold this many bytes, however few they are.
    public static var batchBytes: Int { 1 << 18 }
    /// Batches wait while those already waiting hold this many bytes: with records of 1 MiB, one
    /// waits, not `depth`.
    public static var queueBytes: Int { 1 << 20 }

    // The per-item paths are inlinable, so that a relay used from another module is specialized
    // for its item type instead of copying and destroying each item through its type's witnesses.
    private let condition = NSCondition()
    private var queue: [Batch] = []
    private var queuedBytes = 0
    /// Batches the consumer is done with, back to the sending thread, which destroys their items:
    /// memory is then freed by the thread that allocated it, which glibc's malloc does fastest.
    private var returned: [Batch] = []
    private var closed = false
    /// `finish` was called (by the sending thread).
    private var ended = false
    /// The batch being filled. Unchecked: only the sending thread touches it (`send`, `weigh`,
    /// `finish`), so no two accesses overlap; it saves a runtime check per item sent (records on the
    /// reading thread, events on the decoding one: scripts/benchmark's timeline and stats figures).
    @usableFromInline @exclusivity(unchecked) var batch = Batch()
    @usableFromInline var consumer: Thread?
    @usableFromInline let finished = DispatchSemaphore(value: 0)

    /// The consumer and what it captures belong to the consumer thread alone once the relay starts.
    @usableFromInline final class Owned: @unchecked Sendable {
        @usableFromInline let consume: (Item) -> Void
        @usableFromInline init(_ consume: @escaping (Item) -> Void) { self.consume = consume }
    }

    /// Starts the consumer thread; `consume` sees every item, in the order `send` got them, and
    /// nothing else may touch what it captures until `finish` returns.
    @inlinable public init(_ consume: @escaping (Item) -> Void) {
        let owned = Owned(consume)
        let thread = Thread { [self] in
            while let events = self.take() {
                events.forEach(owned.consume)
                self.giveBack(events)
            }
            self.finished.signal()
        }
        thread.stackSize = 8 << 20
        consumer = thread
        thread.start()
    }

    /// Called on the sending thread; `bytes`: what the item holds, when the sender knows it cheaply.
    @inlinable public func send(_ e: consuming Item, bytes: Int = 0) {
        batch.append(e)
        batch.bytes &+= bytes
        guard batch.count >= Self.batchSize || batch.bytes >= Self.batchBytes else { return }
        put(batch)
        // Every batch given back is emptied now, so what its items hold goes as soon as they are
        // seen; one is kept for the next items.
        let done = givenBack()
        for spare in done { spare.removeAll() }
        batch = done.first ?? Batch()
    }

    /// Counts bytes toward the batch being filled without an item: what the sender has read that
    /// the items to come may still hold (a record's read chunk, for an event that keeps a slice of it).
    @inlinable public func weigh(_ bytes: Int) {
        batch.bytes &+= bytes
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
        // The last items go here too, on the sending thread, not whenever the relay does.
        condition.lock()
        returned.removeAll()
        condition.unlock()
    }

    @usableFromInline func put(_ events: Batch) {
        condition.lock()
        while queue.count >= Self.depth || (!queue.isEmpty && queuedBytes + events.bytes > Self.queueBytes) {
            condition.wait()
        }
        queue.append(events)
        queuedBytes += events.bytes
        condition.broadcast()
        condition.unlock()
    }

    @usableFromInline func giveBack(_ done: Batch) {
        condition.lock()
        returned.append(done)
        condition.unlock()
    }

    /// The batches the consumer gave back, their items not yet destroyed.
    @usableFromInline func givenBack() -> [Batch] {
        condition.lock()
        defer { condition.unlock() }
        let done = returned
        returned.removeAll()
        return done
    }

    @usableFromInline func take() -> Batch? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && !closed { condition.wait() }
        guard !queue.isEmpty else { return nil }
        condition.broadcast()
        let first = queue.removeFirst()
        queuedBytes -= first.bytes
        return first
    }

    /// Items in raw storage: the consumer hands each on without a copy (iterating an array would
    /// copy it, retaining what it holds), and the sender destroys them when the batch comes back.
    ///
    /// Safe because one thread at a time owns a batch: the sender fills it, `put` and `take` pass it
    /// to the consumer under the condition's lock, and `giveBack` returns it the same way. `items`
    /// holds `count` initialized items, and `count` never passes `batchSize` (`send` hands a full
    /// batch on). `count` and `bytes` are unchecked for the same reason: a check per item saved.
    @usableFromInline final class Batch: @unchecked Sendable {
        @usableFromInline let items = UnsafeMutablePointer<Item>.allocate(capacity: Relay.batchSize)
        @usableFromInline @exclusivity(unchecked) var count = 0
        @usableFromInline @exclusivity(unchecked) var bytes = 0

        @usableFromInline init() {}

        @inlinable func append(_ item: consuming Item) {
            (items + count).initialize(to: item)
            count += 1
        }

        @inlinable func forEach(_ body: (Item) -> Void) {
            for i in 0..<count {
                // Out of its slot and back, by move: handed over in place, the item would be copied
                // for the call (nothing tells the compiler the slot cannot change meanwhile).
                let item = (items + i).move()
                body(item)
                (items + i).initialize(to: consume item)
            }
        }

        @inlinable func removeAll() {
            items.deinitialize(count: count)
            count = 0
            bytes = 0
        }

        deinit {
            items.deinitialize(count: count)
            items.deallocate()
        }
    }
}

/// The timeline's relay: events only.
public typealias EventRelay = Relay<Event>
