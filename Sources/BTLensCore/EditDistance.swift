/// How far apart two words are, for "did you mean" hints (commands, filter fields).
public enum EditDistance {
    /// Levenshtein distance: the single-character insertions, deletions and substitutions from
    /// one word to the other.
    public static func levenshtein(_ a: String, _ b: String) -> Int {
        let b = Array(b)
        var row = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var next = [i + 1]
            for (j, y) in b.enumerated() { next.append(min(row[j + 1] + 1, next[j] + 1, row[j] + (x == y ? 0 : 1))) }
            row = next
        }
        return row[b.count]
    }
}
