import BTLensCore
import BTLensDissect

/// The names a filter may use: the event types of the JSONL contract (docs/jsonl.md) and the keys
/// of its objects, as `EventFields` declares them and `ParameterNames` lists packets' parameters,
/// so that what `--format jsonl` prints is what a filter reads.
enum FieldNames {
    /// Every event type, in the order of `EventType`.
    static let types = EventType.allCases.map(\.name)

    /// Families: a prefix stands for every type under it (`hci` is `hci.command`, `hci.event` and `hci.debug`).
    static let families = Set(types.filter { $0.contains(".") }.map { String($0.prefix { $0 != "." }) })

    private static let declarations = EventType.allCases.flatMap(EventFields.fields(of:))

    /// The keys of the contract's objects; nested ones (`services.name`) with dots. Under `fields.`
    /// any name goes: a definition names its fields. `reltime` is the text timeline's seconds since
    /// the first event, which JSONL does not print.
    static let known: Set<String> = Set(
        declarations.flatMap { f in [f.key] + (f.members ?? []).map { "\(f.key).\($0)" } }
    ).union(ParameterNames.all).union(["reltime"])

    /// Fields that hold numbers in every event that declares them: a value that is not a number is
    /// refused when the filter is compiled.
    static let numeric: Set<String> = Set(
        Dictionary(grouping: declarations, by: \.key).filter { _, d in
            d.allSatisfy { $0.type == .integer || $0.type == .number }
        }.keys
    ).union(["reltime"])

    /// The known name nearest to `name` (at most two edits, or a third of the name), for "did you mean".
    static func nearest(_ name: String) -> String? {
        let candidates = known.union(types).union(families)
        let best = candidates.map { ($0, EditDistance.levenshtein($0, name)) }.min { ($0.1, $0.0) < ($1.1, $1.0) }
        guard let best, best.1 <= max(2, name.count / 3) else { return nil }
        return best.0
    }
}
