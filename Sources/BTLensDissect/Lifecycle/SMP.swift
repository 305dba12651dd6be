import BTLensCore

/// Security Manager Protocol failure reasons (Core Vol 3, Part H, §3.5.5).
public struct SMPFailureReason: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public var name: String { Self.names[rawValue] ?? "Reserved (\(Hex.value(rawValue, width: 2)))" }

    static let names: [UInt8: String] = [
        0x01: "Passkey Entry Failed", 0x02: "OOB Not Available", 0x03: "Authentication Requirements",
        0x04: "Confirm Value Failed", 0x05: "Pairing Not Supported", 0x06: "Encryption Key Size",
        0x07: "Command Not Supported", 0x08: "Unspecified Reason", 0x09: "Repeated Attempts",
        0x0a: "Invalid Parameters", 0x0b: "DHKey Check Failed", 0x0c: "Numeric Comparison Failed",
        0x0d: "BR/EDR Pairing In Progress", 0x0e: "Cross-transport Key Derivation/Generation Not Allowed",
        0x0f: "Key Rejected", 0x10: "Busy",
    ]
}

/// SMP codes btlens reads (Core Vol 3, Part H, §3.3): enough to say how pairing went.
enum SMPCode {
    static let pairingRequest: UInt8 = 0x01
    static let pairingResponse: UInt8 = 0x02
    static let pairingFailed: UInt8 = 0x05
    static let securityRequest: UInt8 = 0x0b
}

/// One SMP PDU, named, with its parameters (Core Vol 3, Part H, §3.5–3.6). Keys, confirm and random
/// values are shown only as their presence (`ltk: present`): a capture shared in a ticket should
/// not hand them on.
public struct SMPInfo: Sendable {
    public var code: UInt8
    public var fields: [(String, FieldValue)]

    public var name: String { SMPInfo.names[code] ?? "Reserved (\(Hex.value(code, width: 2)))" }

    static let names: [UInt8: String] = [
        0x01: "Pairing Request", 0x02: "Pairing Response", 0x03: "Pairing Confirm", 0x04: "Pairing Random",
        0x05: "Pairing Failed", 0x06: "Encryption Information", 0x07: "Central Identification",
        0x08: "Identity Information", 0x09: "Identity Address Information", 0x0a: "Signing Information",
        0x0b: "Security Request", 0x0c: "Pairing Public Key", 0x0d: "Pairing DHKey Check",
        0x0e: "Pairing Keypress Notification",
    ]

    /// The parameters each code carries: their size in bytes, or nil for an unknown code.
    static let sizes: [UInt8: Int] = [
        0x01: 6, 0x02: 6, 0x03: 16, 0x04: 16, 0x05: 1, 0x06: 16, 0x07: 10, 0x08: 16, 0x09: 7, 0x0a: 16, 0x0b: 1,
        0x0c: 64, 0x0d: 16, 0x0e: 1,
    ]

    /// The PDU in `payload`, or nil when it is empty, of an unknown code, or shorter than its
    /// code's parameters (its bytes are then shown undecoded).
    public init?(_ payload: ArraySlice<UInt8>) {
        var r = ByteReader(payload)
        guard let code = try? r.u8(), let size = Self.sizes[code], r.remaining >= size else { return nil }
        self.code = code
        fields = []
        do throws(ShortRead) {
            switch code {
            case 0x01, 0x02:
                let (io, oob, auth) = (try r.u8(), try r.u8(), try r.u8())
                let (size, initiator, responder) = (try r.u8(), try r.u8(), try r.u8())
                fields = [("io_capability", .string(Self.ioCapability(io))), ("oob_data", .bool(oob == 0x01))]
                fields += Self.authentication(auth)
                fields += [
                    ("max_key_size", .int(size)), ("initiator_keys", .string(Self.keys(initiator))),
                    ("responder_keys", .string(Self.keys(responder))),
                ]
            case 0x05:
                let reason = try r.u8()
                fields = [("reason", .hex(reason)), ("reason_name", .string(SMPFailureReason(rawValue: reason).name))]
            case 0x07:
                fields = [("ediv", .hex(try r.u16le())), ("rand", .string("present"))]
            case 0x09:
                let type = try r.u8()
                fields = [
                    ("address_type", .string(type == 0 ? "public" : "random")),
                    ("address", .string(try BDAddr(&r).description)),
                ]
            case 0x0b:
                fields = Self.authentication(try r.u8())
            case 0x0e:
                let t = try r.u8()
                fields = [("notification", .string(Self.keypress[Int(t)] ?? "reserved \(t)"))]
            default:
                // Keys, confirm, random, public key and DHKey check values: there, not shown.
                let what =
                    [
                        0x03: "confirm", 0x04: "random", 0x06: "ltk", 0x08: "irk", 0x0a: "csrk", 0x0c: "public_key",
                        0x0d: "dhkey_check",
                    ][Int(code)] ?? "value"
                fields = [(what, .string("present"))]
            }
        } catch {
            return nil
        }
    }

    /// IO capabilities (§3.5.1, Table 3.4).
    static func ioCapability(_ v: UInt8) -> String {
        ["DisplayOnly", "DisplayYesNo", "KeyboardOnly", "NoInputNoOutput", "KeyboardDisplay"][safe: Int(v)]
            ?? "reserved \(v)"
    }

    /// AuthReq (§3.5.1, Figure 3.3): bonding, MITM, Secure Connections, keypress, CT2.
    static func authentication(_ v: UInt8) -> [(String, FieldValue)] {
        [
            ("bonding", .bool(v & 0x03 == 0x01)), ("mitm", .bool(v & 0x04 != 0)),
            ("secure_connections", .bool(v & 0x08 != 0)), ("keypress", .bool(v & 0x10 != 0)),
        ]
    }

    /// Key distribution (§3.6.1, Figure 3.11).
    static func keys(_ v: UInt8) -> String {
        let names = [(0x01, "EncKey"), (0x02, "IdKey"), (0x04, "SignKey"), (0x08, "LinkKey")]
        let set = names.filter { Int(v) & $0.0 != 0 }.map(\.1)
        return set.isEmpty ? "none" : set.joined(separator: ",")
    }

    /// The pairing method a Pairing Request and Response imply (§2.3.5.1, Tables 2.6–2.8): LE
    /// Secure Connections when both ask for it, else legacy; OOB, Just Works without MITM, else by
    /// the two IO capabilities.
    public static func method(
        initiator i: (io: UInt8, oob: Bool, auth: UInt8), responder r: (io: UInt8, oob: Bool, auth: UInt8)
    ) -> String {
        let sc = i.auth & 0x08 != 0 && r.auth & 0x08 != 0
        let kind = sc ? "LE Secure Connections" : "LE legacy pairing"
        if sc ? (i.oob || r.oob) : (i.oob && r.oob) { return "\(kind), OOB" }
        if i.auth & 0x04 == 0 && r.auth & 0x04 == 0 { return "\(kind), Just Works" }
        // Rows: the responder's IO capability; columns: the initiator's (Table 2.8).
        // J Just Works, P Passkey Entry, N Numeric Comparison (Secure Connections) or Passkey (legacy).
        let table = ["JJPJP", "JNPJN", "PPPJP", "JJJJJ", "PNPJN"]
        guard r.io < 5, i.io < 5 else { return "\(kind), Just Works" }
        let cell = Array(table[Int(r.io)])[Int(i.io)]
        switch cell {
        case "P": return "\(kind), Passkey Entry"
        case "N":
            return sc
                ? "\(kind), Numeric Comparison"
                : (r.io == 1 && i.io == 1 ? "\(kind), Just Works" : "\(kind), Passkey Entry")
        default: return "\(kind), Just Works"
        }
    }

    static let keypress = [
        0: "entry started", 1: "digit entered", 2: "digit erased", 3: "cleared", 4: "entry completed",
    ]
}

extension Array {
    fileprivate subscript(safe i: Int) -> Element? { indices.contains(i) ? self[i] : nil }
}
