import BTLensCore
import BTLensDissect

/// A display filter (`--filter`, `-Y`): an expression over the events, in the names of the JSONL
/// contract, compiled once into a tree of resolved tests. `btlens help filters` and
/// docs/filters.md describe the language; `Parser` has its grammar.
///
/// Event types are tests (`a5`, `diagnostic`, `hci` for `hci.command`, `hci.event` and `hci.debug`); fields are
/// compared (`command == 0x20`, `severity >= warning`, `payload contains a5:01`, `id matches "^a5\\."`,
/// `command in {0x20 0x21}`, `record in 800..900`), combined with `&&`, `||`, `!` and parentheses.
/// A comparison on a field an event lacks is false.
///
/// One instance serves one run of events, on one thread: it keeps the traffic's first event's time,
/// from which `reltime` counts (the text timeline's seconds column). `fresh()` gives another run its own.
public final class DisplayFilter {
    /// The expression as the user wrote it.
    public let expression: String
    private let root: Node
    private let test: Node.Test
    private var origin: Timestamp?

    /// Event types the filter can select, at most; nil when it can select any (`command == 0x20`).
    public let possibleTypes: [EventType]?
    /// Whether the filter reads a frame's decoded fields (`fields.*`, `flags_names`): each frame a
    /// filter tests is then decoded, as a shown one is.
    public let readsDecodedFields: Bool
    /// Whether the filter reads bytes an event holds (`payload`, `value`, `bytes`, `fields.*`, or a
    /// packet's or diagnostic's parameter): without, the analyzer need not copy them out.
    public let readsValues: Bool
    /// Whether the filter reads `reltime`: then every event counts, selected or not.
    public let readsReltime: Bool

    public init(_ expression: String) throws(FilterError) {
        self.expression = expression
        root = try Compiler(expression: expression).compile(try Parser.parse(expression))
        test = root.test()
        possibleTypes = root.possibleTypes.map { set in EventType.allCases.filter { set.contains($0) } }
        readsDecodedFields = root.readsDecodedFields
        readsValues = root.readsValues
        readsReltime = root.readsReltime
    }

    private init(_ other: DisplayFilter) {
        expression = other.expression
        root = other.root
        test = other.test
        possibleTypes = other.possibleTypes
        readsDecodedFields = other.readsDecodedFields
        readsValues = other.readsValues
        readsReltime = other.readsReltime
    }

    /// The same filter for another run of events, counting `reltime` from its own first event.
    public func fresh() -> DisplayFilter { DisplayFilter(self) }

    /// Whether the filter selects `e`. Every event of the run is to be passed, in order: the first
    /// that is not a note is where `reltime` counts from (a note before it counts from itself, unless
    /// `begin` said the origin first).
    public func matches(_ e: Event) -> Bool {
        if let origin { return test(e, origin) }
        if !e.isNote { origin = e.timestamp }
        return test(e, e.timestamp)
    }

    /// Where `reltime` counts from, when it is known before the first event (`TrafficOrigin`).
    public func begin(at origin: Timestamp) {
        if self.origin == nil { self.origin = origin }
    }

    /// Whether the filter can select an event of type `t`.
    public func canSelect(_ t: EventType) -> Bool { possibleTypes?.contains(t) ?? true }
}
