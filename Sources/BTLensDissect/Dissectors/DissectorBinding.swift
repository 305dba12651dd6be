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
        /// The SDUs of an L2CAP credit-based channel opened to this PSM.
        case l2capPSM(UInt16)
        /// A5-framed streams found by detection on connections to devices whose address starts with
        /// this prefix (`AA:BB:CC`, a vendor's OUI), where no characteristic binding says otherwise.
        case addressPrefix(String)
        /// The same for devices whose advertised name starts with this.
        case advertisedName(String)

        public var description: String {
            switch self {
            case .characteristic(let u): return "characteristic \(u)"
            case .eaProtocol(let p): return "EA protocol \(p)"
            case .rfcommService(let u): return "RFCOMM service \(u)"
            case .l2capPSM(let psm): return "L2CAP PSM \(Hex.value(psm, width: 4))"
            case .addressPrefix(let p): return "devices \(p)*"
            case .advertisedName(let n): return "devices named \(n)*"
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
    /// Replaces a built-in binding of the same key (on `devices` only); without it the clash is an error.
    public var overrides: Bool
    /// Where the binding is written (file:line), for error messages.
    public var source: String?
    /// The devices it applies to; nil: every device.
    public var devices: DeviceMatch?

    public init(
        _ key: Key, role: Role = .value, framing: Framing? = nil, overrides: Bool = false, source: String? = nil,
        devices: DeviceMatch? = nil
    ) {
        self.key = key
        self.role = role
        self.framing = framing
        self.overrides = overrides
        self.source = source
        self.devices = devices
    }
}

/// The devices a vendor's definition is for: generic characteristic UUIDs (0xFFF3 on every cheap
/// BLE part) are that vendor's protocol only there.
public struct DeviceMatch: Sendable, Hashable, CustomStringConvertible {
    /// Upper-case address prefixes, `AA:BB:CC`.
    public var addressPrefixes: [String]
    /// Prefixes of the advertised name (Complete or Shortened Local Name).
    public var names: [String]

    public init(addressPrefixes: [String] = [], names: [String] = []) {
        self.addressPrefixes = addressPrefixes.map { $0.uppercased() }
        self.names = names
    }

    public func matches(_ device: DissectorTable.Device) -> Bool {
        let address = device.address?.description.uppercased()
        return addressPrefixes.contains { address?.hasPrefix($0) == true }
            || names.contains { device.name?.hasPrefix($0) == true }
    }

    /// Some device could match both: a prefix of one starts with a prefix of the other.
    func overlaps(_ other: DeviceMatch) -> Bool {
        func meet(_ a: [String], _ b: [String]) -> Bool {
            a.contains { x in b.contains { x.hasPrefix($0) || $0.hasPrefix(x) } }
        }
        return meet(addressPrefixes, other.addressPrefixes) || meet(names, other.names)
    }

    public var description: String {
        (addressPrefixes.map { "\($0)*" } + names.map { "named \($0)*" }).joined(separator: " or ")
    }
}

/// The dissector tables: one lookup per binding kind, filled from built-ins and definition files alike.
public struct DissectorTable: Sendable {
    public struct Conflict: Error, Sendable, Equatable, CustomStringConvertible {
        /// The clashing binding's place (file:line), when it has one.
        public var source: String?
        public var message: String
        /// The origin of the dissector already holding the name or binding.
        public var owner: String
        public var description: String { (source.map { "\($0): " } ?? "") + message }
    }

    /// Every clash of one dissector with the table, all said at once.
    public struct Conflicts: Error, Sendable, Equatable, CustomStringConvertible {
        public var all: [Conflict]
        public var description: String { all.map(\.description).joined(separator: "\n") }
    }

    /// What is known of the device at the other end of a connection when one of its streams starts.
    public struct Device: Sendable {
        public var address: BDAddr?
        public var name: String?

        public init(address: BDAddr? = nil, name: String? = nil) {
            self.address = address
            self.name = name
        }
    }

    public private(set) var dissectors: [any MessageDissector] = []
    /// Per key: the binding for every device, if any, and those for some devices, in registration order.
    private var table: [DissectorBinding.Key: [(index: Int, binding: DissectorBinding)]] = [:]
    /// Device keys (address and name prefixes), longest first.
    private var deviceKeys: [(match: DeviceMatch, index: Int)] = []
    /// Which definition files were read, from where: said by every output.
    public var sources = DefinitionSources()

    public init() {}

    /// The dissectors compiled into btlens.
    public static var builtIn: DissectorTable {
        var t = DissectorTable()
        try? t.register(SIGCharacteristicDissector())
        return t
    }

    /// Adds a dissector. A key bound twice for every device, or for overlapping devices, is a
    /// conflict; taking a built-in binding needs `override: true` and a device condition, so that
    /// the standard characteristics stay standard on every other device.
    public mutating func register(_ dissector: any MessageDissector) throws(Conflicts) {
        var conflicts: [Conflict] = []
        if let clash = dissectors.first(where: { $0.name == dissector.name }) {
            conflicts.append(
                Conflict(
                    source: nil, message: "dissector name '\(dissector.name)' is already used by \(clash.origin)",
                    owner: clash.origin))
        }
        for b in dissector.bindings {
            for (i, existing) in table[b.key] ?? [] {
                let owner = dissectors[i]
                let there = existing.source ?? owner.origin
                if owner.origin == "built-in" {
                    if b.overrides && b.devices != nil { continue }
                    let advice =
                        b.overrides
                        ? "; `override: true` takes a built-in binding over only on the definition's own devices: add bind: devices:"
                        : "; add `override: true` (and bind: devices:) to replace the built-in binding on your devices"
                    conflicts.append(
                        Conflict(
                            source: b.source,
                            message: "conflicting binding: \(b.key) is already bound to '\(owner.name)' (\(there))"
                                + advice, owner: owner.origin))
                    continue
                }
                switch (b.devices, existing.devices) {
                case (let mine?, let theirs?) where !mine.overlaps(theirs): continue
                case (nil, _?), (_?, nil): continue
                default: break
                }
                let whose = existing.devices.map { " for devices \($0)" } ?? ""
                conflicts.append(
                    Conflict(
                        source: b.source,
                        message: "conflicting binding: \(b.key) is already bound to '\(owner.name)'\(whose) (\(there))",
                        owner: owner.origin))
            }
        }
        guard conflicts.isEmpty else { throw Conflicts(all: conflicts) }
        let index = dissectors.count
        dissectors.append(dissector)
        for b in dissector.bindings {
            table[b.key, default: []].append((index, b))
            switch b.key {
            case .addressPrefix(let p): deviceKeys.append((DeviceMatch(addressPrefixes: [p]), index))
            case .advertisedName(let n): deviceKeys.append((DeviceMatch(names: [n]), index))
            default: break
            }
        }
        deviceKeys.sort {
            ($0.match.description.count, $0.match.description) > ($1.match.description.count, $1.match.description)
        }
    }

    /// The dissector bound to `key` on `device`: one bound for that device, else one for every device.
    public func lookup(_ key: DissectorBinding.Key, on device: Device = Device()) -> (
        dissector: any MessageDissector, framing: Framing
    )? {
        let entries = table[key] ?? []
        guard
            let (i, b) = entries.first(where: { $0.binding.devices?.matches(device) == true })
                ?? entries.first(where: { $0.binding.devices == nil })
        else { return nil }
        return (dissectors[i], b.framing ?? dissectors[i].framing)
    }

    public func dissector(named name: String) -> (any MessageDissector)? { dissectors.first { $0.name == name } }

    /// The dissector for detected A5 streams of a device, by the longest matching address or name prefix.
    public func forDevice(_ device: Device) -> (any MessageDissector)? {
        guard device.address != nil || device.name != nil else { return nil }
        return deviceKeys.first { $0.match.matches(device) }.map { dissectors[$0.index] }
    }

    /// Every binding with its dissector, in a stable order (for `btlens dissectors list`).
    public var bindings: [(binding: DissectorBinding, dissector: any MessageDissector)] {
        table.values.joined().sorted { ($0.index, $0.binding.key.description) < ($1.index, $1.binding.key.description) }
            .map { ($0.binding, dissectors[$0.index]) }
    }
}

/// Which definition files a table was read from, folder by folder, and what was left out: every
/// output says it, as what btlens names depends on the folder it runs in.
public struct DefinitionSources: Sendable, Equatable {
    public struct Folder: Sendable, Equatable {
        /// As searched or given (`Dissectors`, `~/.config/btlens/dissectors`, a `--dissectors` path).
        public var path: String
        /// Absolute, so that `./Dissectors` says which folder it was.
        public var absolute: String
        /// Why it was read: `current folder`, `yours`, `--dissectors`.
        public var role: String
        /// The file names read from it (a path given as a file is its own folder).
        public var files: [String]
        public var exists: Bool
        /// A path given that is no regular file (a FIFO, a device): what it is, said instead of its folder.
        public var irregular: String?

        public init(
            path: String, absolute: String, role: String, files: [String], exists: Bool, irregular: String? = nil
        ) {
            (self.path, self.absolute, self.role, self.files, self.exists) = (path, absolute, role, files, exists)
            self.irregular = irregular
        }
    }

    /// The category of the note that begins every timeline (`"type":"note"` in JSONL).
    public static let noteCategory = "dissectors.loaded"

    public var folders: [Folder] = []
    /// Files left out and examples that fail, each a sentence.
    public var notes: [String] = []
    /// `--no-dissectors`: no folder was searched.
    public var disabled = false

    public init() {}

    /// One line: each folder and its files, then the notes.
    public var summary: String {
        if disabled { return "none (--no-dissectors): built-in dissectors only" }
        let parts = folders.map { f -> String in
            let place =
                f.path.isEmpty
                ? "(\(f.role))" : "\(f.path) (\(f.role)" + (f.path == f.absolute ? ")" : ", \(f.absolute))")
            let what =
                !f.exists
                ? "no such folder"
                : f.irregular.map { "\($0), not a regular file: not read" }
                    ?? (f.files.isEmpty ? "none loaded" : f.files.joined(separator: ", "))
            return "\(place): \(what)"
        }
        return (parts.isEmpty ? ["none"] : parts).joined(separator: "; ") + notes.map { "; \($0)" }.joined()
    }
}

extension DefinitionSources {
    /// The timeline's first event, at the record and time of what follows it: which definition
    /// files were loaded from where.
    public func note(record: Int, timestamp: Timestamp) -> Event {
        Event(
            record: record, timestamp: timestamp, direction: nil, connection: nil, isTop: true,
            body: .note(category: Self.noteCategory, text: summary))
    }
}
