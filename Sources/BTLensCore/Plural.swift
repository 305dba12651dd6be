/// A count with its noun in good English: `1 error`, `0 errors`, `2 diagnostics`.
public enum Plural {
    /// `plural` for a noun that takes more than an `s`.
    public static func of(_ n: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(n) " + noun(n, singular, plural)
    }

    /// The noun alone, for a count written apart from it (the report's cards).
    public static func noun(_ n: Int, _ singular: String, _ plural: String? = nil) -> String {
        n == 1 ? singular : plural ?? singular + "s"
    }
}
