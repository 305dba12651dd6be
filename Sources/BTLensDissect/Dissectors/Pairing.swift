import BTLensCore

/// How a response finds its request.
public struct PairingRule: Sendable, Equatable {
    public enum Match: String, Sendable, CaseIterable {
        /// The response carries its request's sequence number.
        case sequence
        /// The oldest outstanding request whose expected response command is this one.
        case oldest
        /// The request whose field at `path` holds the value the response's does (a token).
        case field
        /// The request whose command the response's field at `path` holds (Nordic DFU's `60 op result`).
        case echo
    }

    /// The response command a request calls for.
    public enum ResponseCommand: Sendable, Equatable {
        /// Any command (with `sequence` matching).
        case any
        case same
        /// request | mask, e.g. 0x80.
        case or(UInt16)
        /// request + n.
        case plus(UInt16)
        /// Named per request command; requests not listed take no response.
        case table([UInt16: UInt16])

        public func expected(for request: UInt16) -> UInt16? {
            switch self {
            case .any: return nil
            case .same: return request
            case .or(let m): return request | m
            case .plus(let n): return request &+ n
            case .table(let t): return t[request]
            }
        }

        /// Whether `command` could be a response under this rule.
        public func couldRespond(_ command: UInt16) -> Bool {
            switch self {
            case .any, .same, .plus: return true
            case .or(let m): return command & m == m
            case .table(let t): return t.values.contains(command)
            }
        }
    }

    public var match: Match
    public var responseCommand: ResponseCommand
    public var timeoutMicroseconds: Int64
    /// For `field` and `echo`: the field holding the token, a name per level (`body.2`).
    public var path: [String] = []

    public init(match: Match, responseCommand: ResponseCommand, timeoutMicroseconds: Int64 = 1_000_000) {
        self.match = match
        self.responseCommand = responseCommand
        self.timeoutMicroseconds = timeoutMicroseconds
    }
}

/// A response paired with its request.
public struct PairedResponse: Sendable, Equatable {
    public var requestRecord: Int
    public var requestCommand: UInt16
    public var latencyMicroseconds: Int64
}

/// Outstanding requests of one dissector on one connection (or EA session), oldest first.
/// At most `limit` are kept (`Limits.pendingRequests`): a request pushed out by a newer one counts as unanswered.
public struct PairingTracker: Sendable {
    public let limit: Int

    public struct Request: Sendable, Equatable {
        public var record: Int
        public var time: Timestamp
        public var command: UInt16
        public var name: String?
        public var sequence: UInt8?
        public var expected: UInt16?
        /// What a response must carry to answer it (`field`, `echo`).
        public var token: String? = nil
    }

    public let rule: PairingRule
    public private(set) var outstanding: [Request] = []
    /// The rule names the requests that take a response (a table): others are not tracked.
    private let tracksListedOnly: Bool

    public init(rule: PairingRule, limit: Int = Limits().pendingRequests) {
        self.rule = rule
        self.limit = max(limit, 1)
        if case .table = rule.responseCommand { tracksListedOnly = true } else { tracksListedOnly = false }
    }

    /// Requests older than the timeout at `now`, removed.
    public mutating func expire(now: Timestamp) -> [Request] {
        // Most frames find nothing to expire: said without building an array.
        guard let first = outstanding.first, now.elapsed(since: first.time) > rule.timeoutMicroseconds else {
            return []
        }
        let cut = outstanding.prefix { now.elapsed(since: $0.time) > rule.timeoutMicroseconds }.count
        defer { outstanding.removeFirst(cut) }
        return Array(outstanding.prefix(cut))
    }

    /// Adds a request; returns one pushed out by the bound. A request the rule's table lists no
    /// response for is not tracked.
    public mutating func request(_ r: consuming Request) -> Request? {
        // Consumed, so that it is moved into `outstanding`, not copied (its name retained) on the way.
        r.expected = rule.responseCommand.expected(for: r.command)
        if tracksListedOnly, r.expected == nil { return nil }
        outstanding.append(r)
        return outstanding.count > limit ? outstanding.removeFirst() : nil
    }

    /// Pairs a response with its request, or nil when none is outstanding.
    public mutating func response(
        command: UInt16, sequence: UInt8?, token: String? = nil, time: Timestamp
    ) -> PairedResponse? {
        let index: Int?
        switch rule.match {
        case .sequence:
            index = outstanding.firstIndex { $0.sequence == sequence && ($0.expected == nil || $0.expected == command) }
        case .oldest:
            index = outstanding.firstIndex { $0.expected == command }
        case .field, .echo:
            guard let token else { return nil }
            index = outstanding.firstIndex { $0.token == token && ($0.expected == nil || $0.expected == command) }
        }
        guard let i = index else { return nil }
        let r = outstanding.remove(at: i)
        return PairedResponse(
            requestRecord: r.record, requestCommand: r.command, latencyMicroseconds: time.elapsed(since: r.time))
    }

    /// Everything still outstanding, removed (disconnection, end of capture).
    public mutating func drain() -> [Request] {
        defer { outstanding.removeAll() }
        return outstanding
    }
}
