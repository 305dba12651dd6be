import BTLensCapture
import BTLensCore

/// A connection's supervision timeout as a sniffer can follow it (Core v5.4 Vol 6 Part B §4.5.2):
/// the CONNECT_IND's, then an LL_CONNECTION_UPDATE_IND's from its instant (§5.1.1). The instant is
/// followed by the event counter when the sniffer gives it (272); without one, the longer of the
/// two timeouts holds from the update on, so that no connection is taken as lost too early.
struct LLSupervision {
    /// Microseconds; nil for a connection assumed without its CONNECT_IND.
    private(set) var timeout: Int64?
    private var pending: (timeout: Int64, instant: UInt16)?
    /// The latest time a PDU was heard (a timestamp that goes back does not move it) and its record.
    private(set) var lastTime: Timestamp?
    private(set) var lastRecord = 0

    /// `units` of 10 ms (§2.3.3.1).
    mutating func start(units: UInt16) { timeout = Int64(units) * 10_000 }

    /// A PDU heard at `r`, in connection event `counter` if known.
    mutating func heard(_ r: CaptureRecord, counter: UInt16?) {
        if let p = pending, let counter, counter &- p.instant < 0x8000 {
            timeout = p.timeout
            pending = nil
        }
        if lastTime.map({ r.timestamp > $0 }) ?? true { lastTime = r.timestamp }
        lastRecord = r.number
    }

    /// An LL_CONNECTION_UPDATE_IND's timeout (`units` of 10 ms), from connection event `instant`.
    mutating func update(units: UInt16, instant: UInt16, counter: UInt16?) {
        let new = Int64(units) * 10_000
        if counter == nil {
            timeout = max(timeout ?? new, new)
        } else {
            pending = (new, instant)
        }
    }

    /// Its last PDU plus the timeout, in microseconds; nil when either is unknown (or past the clock).
    var deadline: Int64? {
        guard let timeout, let lastTime else { return nil }
        let (deadline, overflow) = lastTime.microseconds.addingReportingOverflow(timeout)
        return overflow ? nil : deadline
    }

    /// When the connection was lost, if `now` is past its last PDU plus the timeout.
    func lost(before now: Timestamp) -> Timestamp? {
        guard let deadline, now.microseconds > deadline else { return nil }
        return Timestamp(microseconds: deadline)
    }
}
