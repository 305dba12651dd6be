import BTLensCore
import BTLensDissect
import BTLensFilter
import Foundation

/// What the live page's server holds of a capture: the timeline's events, newest last, bounded in
/// bytes, and each page's place in them. Every page reads the one shared list at its own pace
/// (swift-nio's back-pressure turned around: the capture never waits for a page). In `follow`, a
/// page too slow for the capture loses what is evicted before it read it, counted and shown; in
/// `view`, the file is a finished capture, so its reading waits for the pages instead.
public final class LiveHub: Sendable {
    public enum Mode: String, Sendable { case follow, view }
    public enum State: String, Sendable { case live, ended, stopped }

    public struct Limits: Sendable {
        /// The events held for pages that join late or change their filter (64 MiB: about 80,000 of the
        /// benchmark capture's events).
        public var eventBytes = 64 << 20
        /// The records' layers and bytes held for the details pane.
        public var detailBytes = 16 << 20
        /// What one WebSocket message carries at most, and how many events one read looks at.
        public var messageBytes = 256 << 10
        public var scanEvents = 20_000
        public init() {}
    }

    /// The longest filter a page may send.
    public static let filterCharacters = 4096

    struct Entry {
        let event: Event
        /// The JSONL line with the row's text added, without its newline.
        let line: [UInt8]
        /// What holding it costs: its bytes, and the event's boxes and strings beyond them, 256
        /// bytes on average (measured: the benchmark capture's held events, in the heap).
        var size: Int { line.count + event.heldBytes + 256 }
    }

    struct Held {
        var entries = HeldQueue<Entry>()
        /// The sequence number of `entries.first`; the next event's is `firstSeq + entries.count`.
        var firstSeq = 0
        var bytes = 0
        /// The record before which events were evicted (0: none were).
        var evictedBefore = 0
        var details = RecordDetailsStore()
        var readers: [Int: LiveReader] = [:]
        var nextReader = 0
        var readersEver = 0
        var records = 0
        var events = 0
        var state = State.live
        var origin: Timestamp?
        var nextSeq: Int { firstSeq + entries.count }
    }

    public let mode: Mode
    public let source: String
    /// Whether "save this view" can be offered: a report is read from a file.
    public let reports: Bool
    let limits: Limits
    let held = HeldLock()

    public init(mode: Mode, source: String, reports: Bool = true, limits: Limits = Limits()) {
        self.mode = mode
        self.source = source
        self.reports = reports
        self.limits = limits
    }

    // MARK: The capture's side (one thread)

    /// Seconds count from here: the text's times, and `reltime` in every page's filter.
    func begin(at origin: Timestamp) {
        held.withLock { h in
            h.origin = origin
            for r in h.readers.values { r.filter?.begin(at: origin) }
        }
    }

    func record(_ details: RecordDetails) {
        let limit = limits.detailBytes
        held.withLock { h in
            h.records += 1
            h.details.add(details, limit: limit)
        }
    }

    func detailLine(_ line: String, record: Int) {
        let limit = limits.detailBytes
        held.withLock { $0.details.addLine(line, record: record, limit: limit) }
    }

    /// A timeline event. In `view`, waits while the held events are full and a page has yet to read
    /// the oldest (or no page has come yet), unless `stopping` says to give up.
    func publish(_ event: Event, line: [UInt8], stopping: () -> Bool) {
        // Its own copy of an ATT value: a slice would keep the record's whole read chunk alive.
        let entry = Entry(event: event.detached(), line: line)
        while mode == .view && !stopping() && !held.withLock({ hasRoom($0, for: entry.size) }) {
            OS.sleep(microseconds: 2_000)
        }
        let waiters = held.withLock { h -> [CheckedContinuation<Void, Never>] in
            h.events += 1
            h.entries.append(entry)
            h.bytes += entry.size
            while h.bytes > limits.eventBytes, h.entries.count > 1 {
                let gone = h.entries.removeFirst()
                h.bytes -= gone.size
                h.firstSeq += 1
                h.evictedBefore = gone.event.record + 1
            }
            return Self.takeWaiters(&h)
        }
        for w in waiters { w.resume() }
    }

    /// Whether adding an event of `size` evicts only what every page has read (and a page has come).
    private func hasRoom(_ h: Held, for size: Int) -> Bool {
        // The entries publish would evict: as many as it takes, since events differ in size.
        var bytes = h.bytes + size
        var evicted = 0
        while bytes > limits.eventBytes, h.entries.count - evicted > 1 {
            bytes -= h.entries[evicted].size
            evicted += 1
        }
        guard evicted > 0 else { return true }
        guard h.readersEver > 0 else { return false }
        return h.readers.values.allSatisfy { $0.cursor >= h.firstSeq + evicted }
    }

    /// A new source in `follow` (a file replaced, a connection made again): its records start again,
    /// so the details of the old ones go.
    func restart() {
        held.withLock { h in
            h.details = RecordDetailsStore()
            h.origin = nil
        }
    }

    /// The capture ended (`view`, a pipe that closed) or was stopped.
    public func finish(stopped: Bool) {
        let waiters = held.withLock { h -> [CheckedContinuation<Void, Never>] in
            h.state = stopped ? .stopped : .ended
            return Self.takeWaiters(&h)
        }
        for w in waiters { w.resume() }
    }

    /// Wakes every page, so that each sends its status (every half second, from the server).
    func tick() {
        let waiters = held.withLock { h -> [CheckedContinuation<Void, Never>] in
            for id in h.readers.keys { h.readers[id]?.statusDue = true }
            return Self.takeWaiters(&h)
        }
        for w in waiters { w.resume() }
    }

    static func takeWaiters(_ h: inout Held) -> [CheckedContinuation<Void, Never>] {
        var out: [CheckedContinuation<Void, Never>] = []
        for id in h.readers.keys {
            if let w = h.readers[id]?.waiter {
                out.append(w)
                h.readers[id]?.waiter = nil
            }
        }
        return out
    }
}

/// The hub's state behind a lock: an `NSLock` (a pthread mutex), which the thread sanitizer sees.
/// Synchronization's `Mutex` waits on a futex that it does not see, and the CI's sanitizer run
/// reported every access of the pages and the capture to the state as a race. The state holds the
/// pages' filters (`DisplayFilter`, a class), so it is reached only through `withLock`.
final class HeldLock: @unchecked Sendable {
    private let lock = NSLock()
    private var held = LiveHub.Held()

    func withLock<T>(_ body: (inout LiveHub.Held) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&held)
    }
}
