/// Which way a record travelled across the HCI.
///
/// `sent` is host → controller: from the phone whose capture it is.
public enum Direction: UInt8, Sendable, Hashable, CaseIterable {
    case sent = 0
    case received = 1

    public var opposite: Direction { self == .sent ? .received : .sent }

    /// The word used in JSON output.
    public var name: String { self == .sent ? "sent" : "received" }

    /// btmon's arrows: `<` host → controller, `>` controller → host.
    public var arrow: String { self == .sent ? "<" : ">" }
}
