import BTLensDissect

extension EventType {
    /// The types a name stands for: itself, and those under it (`hci`: `hci.command`, `hci.event`).
    static func matching(_ name: String) -> TypeSet {
        var set = TypeSet()
        for t in allCases where t.name == name || t.name.hasPrefix(name + ".") {
            set.bits |= t.bit
        }
        return set
    }

    var bit: UInt64 {
        1 << UInt64(rawValue)
    }
}

/// A set of event types, as bits: one test per event, whatever the number of types.
struct TypeSet: Equatable {
    /// Room for the profiles' types after the other kinds.
    var bits: UInt64 = 0
    var isEmpty: Bool { bits == 0 }
    @inline(__always) func contains(_ t: EventType) -> Bool { bits & t.bit != 0 }
}
