import BTLensCore

/// Where a dissector applies: one entry of a dissector table.
public struct DissectorBinding: Sendable, Equatable {
    public enum Key: Sendable, Hashable, CustomStringConvertible {
        /// A GATT characteristic.
        case characteristic(BluetoothUUID)
        /// An iAP2 External Accessory protocol string.
        case eaProtocol(String)
        /// An RFCOMM channel whose SDP record lists this service class.
        case rfcommService(BluetoothUUID)
        /// A5-framed streams found by detection on connections to devices whose address starts with
        /// this prefix (`AA:BB:CC`, a vendor's OUI), where no characteristic binding says otherwise.
        case addressPrefix(String)

        public var description: String {
            switch self {
            case .characteristic(let u): return "characteristic \(u)"
            case .eaProtocol(let p): return "EA protocol \(p)"
            case .rfcommService(let u): return "RFCOMM service \(u)"
            case .addressPrefix(let p): return "devices \(p)*"
            }
        }
    }

    /// What the bound characteristic carries (documentation for `dissectors list`; direction decides pairing).
    public enum Role: String, Sendable, CaseIterable {
        /// The phone writes commands.
        case command
        /// The accessory notifies or indicates events and responses.
        case event
        /// Either, or a value read and written as a whole.
        case value
    }

    public var key: Key
    public var role: Role
    /// How this stream's bytes become messages, when not the dissector's default.
    public var framing: Framing?
    /// Replaces a built-in binding of the same key; without it the clash is an error.
    public var overrides: Bool
    /// Where the binding is written (file:line), for error messages.
    public var source: String?

    public init(_ key: Key, role: Role = .value, framing: Framing? = nil, overrides: Bool = false, source: String? = nil) {
        self.key = key
        self.role = role
        self.framing = framing
        self.overrides = overrides
        self.source = source
    }
}

/// The dissector tables: one lookup per binding kind, filled from built-ins and definition files alike.
public struct DissectorTable: Sendable {
    public struct Conflict: Error, Sendable, Equatable, CustomStringConvertible {
        /// The clashing binding's place (file:line), when it has one.
        public var source: String?
        public var message: String
        public var description: String { (source.map { "\($0): " } ?? "") + message }
    }

    public private(set) var dissectors: [any MessageDissector] = []
    private var table: [DissectorBinding.Key: (index: Int, binding: DissectorBinding)] = [:]
    /// Address prefixes, longest first.
    private var prefixes: [(prefix: String, index: Int)] = []

    public init() {}

    /// The dissectors compiled into btlens.
    public static var builtIn: DissectorTable {
        var t = DissectorTable()
        try? t.register(SIGCharacteristicDissector())
        return t
    }

    /// Adds a dissector. A key bound twice is a conflict, unless the new binding overrides a built-in one.
    public mutating func register(_ dissector: any MessageDissector) throws(Conflict) {
        if let clash = dissectors.first(where: { $0.name == dissector.name }) {
            throw Conflict(source: nil, message: "dissector name '\(dissector.name)' is already used by \(clash.origin)")
        }
        for b in dissector.bindings {
            guard let (i, existing) = table[b.key] else { continue }
            let owner = dissectors[i]
            if b.overrides && owner.origin == "built-in" { continue }
            let there = existing.source ?? owner.origin
            throw Conflict(source: b.source, message: "conflicting binding: \(b.key) is already bound to '\(owner.name)' (\(there))"
                           + (owner.origin == "built-in" ? "; add `override: true` to replace the built-in binding" : ""))
        }
        let index = dissectors.count
        dissectors.append(dissector)
        for b in dissector.bindings {
            table[b.key] = (index, b)
            if case .addressPrefix(let p) = b.key { prefixes.append((p.uppercased(), index)) }
        }
        prefixes.sort { ($0.prefix.count, $0.prefix) > ($1.prefix.count, $1.prefix) }
    }

    public func lookup(_ key: DissectorBinding.Key) -> (dissector: any MessageDissector, framing: Framing)? {
        guard let (i, b) = table[key] else { return nil }
        return (dissectors[i], b.framing ?? dissectors[i].framing)
    }

    public func dissector(named name: String) -> (any MessageDissector)? { dissectors.first { $0.name == name } }

    /// The dissector for detected A5 streams of a device, by the longest matching address prefix.
    public func forDevice(_ address: BDAddr?) -> (any MessageDissector)? {
        guard let address, !prefixes.isEmpty else { return nil }
        let text = address.description.uppercased()
        return prefixes.first { text.hasPrefix($0.prefix) }.map { dissectors[$0.index] }
    }

    /// Every binding with its dissector, in a stable order (for `btlens dissectors list`).
    public var bindings: [(binding: DissectorBinding, dissector: any MessageDissector)] {
        table.values.sorted { ($0.index, $0.binding.key.description) < ($1.index, $1.binding.key.description) }
            .map { ($0.binding, dissectors[$0.index]) }
    }
}
