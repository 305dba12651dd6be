import BTLensCore

/// Fixed L2CAP channel identifiers (Core Specification, Vol 3, Part A, §2.1).
public enum L2CAPChannel {
    public static let signaling: UInt16 = 0x0001
    public static let connectionless: UInt16 = 0x0002
    public static let att: UInt16 = 0x0004
    public static let leSignaling: UInt16 = 0x0005
    public static let smp: UInt16 = 0x0006
    public static let bredrSMP: UInt16 = 0x0007

    public static func name(_ cid: UInt16) -> String {
        switch cid {
        case 0x0001: return "L2CAP Signaling"
        case 0x0002: return "Connectionless"
        case 0x0003: return "AMP Manager"
        case 0x0004: return "ATT"
        case 0x0005: return "LE L2CAP Signaling"
        case 0x0006: return "SMP"
        case 0x0007: return "BR/EDR SMP"
        case 0x0040...: return "Dynamic channel \(Hex.value(cid, width: 4))"
        default: return "Reserved channel \(Hex.value(cid, width: 4))"
        }
    }
}
