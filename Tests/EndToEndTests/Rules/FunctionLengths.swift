/// The length of each function in a Swift file, from the line that declares it to its closing
/// brace, read with string literals and comments blanked so that their braces do not count.
enum FunctionLengths {
    static func measure(_ lines: [String]) -> [(line: Int, lines: Int)] {
        let code = blanked(lines)
        var found: [(Int, Int)] = []
        for (i, line) in code.enumerated() where declaresFunction(line) {
            // The body opens within a few lines of the declaration (long parameter lists wrap);
            // a requirement in a protocol has none.
            guard code[i..<min(code.count, i + 8)].contains(where: { $0.contains("{") }) else { continue }
            var depth = 0
            var opened = false
            for j in i..<code.count {
                for c in code[j] where c == "{" || c == "}" {
                    depth += c == "{" ? 1 : -1
                    opened = true
                }
                if opened && depth <= 0 {
                    found.append((i + 1, j - i + 1))
                    break
                }
            }
        }
        return found
    }

    static func declaresFunction(_ line: String) -> Bool {
        let words = line.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "_" })
        return words.contains { $0 == "func" || $0 == "init" || $0 == "deinit" }
            && !line.trimmingCharacters(in: .whitespaces).hasPrefix("protocol")
    }

    /// The lines with the text of string literals and comments removed.
    static func blanked(_ lines: [String]) -> [String] {
        var inMultiline = false
        return lines.map { line in
            var out = ""
            var inString = false
            var previous: Character = " "
            let chars = Array(line)
            var i = 0
            while i < chars.count {
                let c = chars[i]
                if !inString && c == "/" && i + 1 < chars.count && chars[i + 1] == "/" && !inMultiline { break }
                if c == "\"" && i + 2 < chars.count && chars[i + 1] == "\"" && chars[i + 2] == "\"" {
                    inMultiline.toggle()
                    i += 3
                    continue
                }
                if !inMultiline {
                    if c == "\"" && previous != "\\" { inString.toggle() } else if !inString { out.append(c) }
                }
                previous = previous == "\\" && c == "\\" ? " " : c
                i += 1
            }
            return out
        }
    }
}
