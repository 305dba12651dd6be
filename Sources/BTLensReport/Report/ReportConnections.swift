import BTLensCore
import BTLensDissect

extension Report {
    /// Every connection the capture showed, each made from what the analyzer kept of it when it is
    /// read: made all at once at the end, 8,800 connections' strings (5 MB) sat beside the analyzer's
    /// own copy and the rows.
    public struct Connections: RandomAccessCollection {
        let infos: [ConnectionInfo]
        /// GAP Device Names read, per handle.
        let names: [UInt16: String]
        let origin: Timestamp?
        /// `--redact`'s placeholders, put in as each connection is read.
        var redaction: ((inout Connection) -> Void)?

        init(_ infos: [ConnectionInfo] = [], names: [UInt16: String] = [:], origin: Timestamp? = nil) {
            (self.infos, self.names, self.origin) = (infos, names, origin)
        }

        public var startIndex: Int { 0 }
        public var endIndex: Int { infos.count }

        public subscript(i: Int) -> Connection {
            let c = infos[i]
            let at = { (t: Timestamp?) in t.map { $0.offset(from: origin ?? $0) } }
            var connection = Connection(
                handle: c.key.handle, address: c.address?.description, name: names[c.key.handle],
                transport: c.transport.rawValue, role: c.role.rawValue, opened: c.openedRecord,
                closed: c.closedRecord, openedAt: at(c.openedTime), closedAt: at(c.closedTime),
                reason: c.replaced ? "replaced (its handle connected again)" : c.disconnectReason?.name,
                inferred: c.inferred, steps: ConnectionSummary.steps(c),
                attMTU: c.attMTU?.value, attMTUDefault: c.attMTU?.isDefault ?? false)
            redaction?(&connection)
            return connection
        }
    }
}
