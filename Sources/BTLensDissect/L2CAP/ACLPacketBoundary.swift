/// The Packet_Boundary_Flag of an ACL data packet's header (Core Vol 4 Part E §5.4.2), from host to
/// controller and back: a start (of either kind) or a complete PDU begins one; a continuing
/// fragment adds to it.
public enum ACLPacketBoundary: UInt8, Sendable {
    case firstNonAutomaticallyFlushable = 0b00
    case continuingFragment = 0b01
    case firstAutomaticallyFlushable = 0b10
    case complete = 0b11

    /// The flag from its two bits (any higher bits are ignored).
    public init(flag: UInt8) {
        switch flag & 0b11 {
        case 0b00: self = .firstNonAutomaticallyFlushable
        case 0b01: self = .continuingFragment
        case 0b10: self = .firstAutomaticallyFlushable
        default: self = .complete
        }
    }
}
