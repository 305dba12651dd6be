import BTLensCore

/// A regular expression for `matches`, compiled once.
struct Pattern: Sendable {
    let regex: SharedRegex

    init(_ text: String) throws {
        regex = SharedRegex(try Regex(text))
    }

    func matches(_ s: String) -> Bool {
        regex.withRegex { (try? $0.firstMatch(in: s)) != nil }
    }
}
