import ArgumentParser
import BTLensFilter

/// `--filter EXPR` (`-Y`, as in tshark): which events a command shows or counts. Compiled when the
/// arguments are validated, so a bad expression exits 2 with a caret under the place before any
/// capture is opened.
struct FilterOption: ParsableArguments {
    @Option(
        name: [.customLong("filter"), .customShort("Y")],
        help: ArgumentHelp(
            "Only the events this display filter selects, e.g. 'a5 && command == 0x20', 'severity >= warning', 'connection == 0x40 && record in 800..900' (see btlens help filters).",
            valueName: "expr"))
    var expression: String?

    func validate() throws {
        guard let expression else { return }
        do {
            _ = try DisplayFilter(expression)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// The compiled filter, or nil when none was given.
    func filter() -> DisplayFilter? {
        // validate() compiled it already: it cannot fail here.
        expression.flatMap { try? DisplayFilter($0) }
    }
}
