/// Finds bytes written as hex in a log message, in the spellings apps use:
///
/// - pairs with one separator throughout, a space, `:` or `,` (`A5 01 20`, `a5:01:20`, `a5,01,20`);
/// - `0x` before each byte (one or two digits), separated by a space, `,` or `, `, bracketed or not
///   (`0xA5,0x01,0x20`, `0xA5 0x01`, `[0xa5, 0x01]`);
/// - unseparated (`a50120`);
/// - Apple's NSData descriptions, `<a5012007 00010203>` and `{length = 8, bytes = 0xa5012007 00010203}`.
///
/// At least 2 bytes. A run starts and ends at word boundaries, so it never takes part of a word.
/// The rules against false positives:
/// - unseparated hex has an even number of digits, at least 6 (4 are a 16-bit UUID or a handle:
///   `FFF1`, `2A37`); it has a digit and a letter, or is
///   all letters and at least 8 long (`deadbeef` is bytes; `added`, `face`, `decade` are words);
///   its letters are all one case (`AddBad` is a word); a `-` joining it to more letters or digits
///   makes it part of an identifier (a UUID, `fff1-0000`), not bytes;
/// - digits alone are a number, never unseparated bytes (`2023`, `01020304`); separated, digits
///   alone need 3 pairs (4 with `:`, which a time `22:13:20` has 3 of): `at 10 20` is not bytes,
///   but two separated by a space or `,` are a weak run (`HexRun.isWeak`), bytes only where a
///   value carried then agrees;
/// - six pairs separated by `:` are a Bluetooth address, not bytes;
/// - a lone `0x` number is a number (`handle 0x0040`), not bytes.
public enum HexBytes {
    public static func find(in message: String) -> [HexRun] {
        let u = Array(message.utf8)
        var runs = [(range: Range<Int>, bytes: [UInt8], partial: Bool, weak: Bool)]()
        var i = 0
        while i < u.count {
            guard i == 0 || !ByteScanner.isWordByte(u[i - 1]) else {
                i += 1
                continue
            }
            if let (range, bytes, elided) = nsData(u, i) {
                runs.append((range, bytes, elided, false))
                // An elided description's tail bytes are not the value's next bytes: skipped with it.
                i = u[range.upperBound...].firstIndex(of: UInt8(ascii: "}")) ?? range.upperBound
                continue
            }
            var found = angle(u, i) ?? prefixed(u, i)
            var weak = false
            if found == nil, let (range, bytes, isWeak) = pairs(u, i) {
                (found, weak) = ((range, bytes, false), isWeak)
            }
            if let (range, bytes, elided) = found ?? plain(u, i) {
                // A list refused as a whole (an address) comes back empty, so that its tail is not read.
                if !bytes.isEmpty {
                    runs.append((range, bytes, elided || ellipsisFollows(u, range.upperBound), weak))
                }
                i = range.upperBound
                continue
            }
            i = skipIdentifier(u, i)
        }
        guard !runs.isEmpty else { return [] }
        let words = DirectionWords.find(u)
        let utf8 = message.utf8
        return runs.map { r in
            HexRun(
                bytes: r.bytes,
                range: utf8.index(
                    utf8.startIndex, offsetBy: r.range.lowerBound)..<utf8.index(
                        utf8.startIndex, offsetBy: r.range.upperBound),
                isComplete: !r.partial, direction: DirectionWords.direction(of: r.range, among: words), isWeak: r.weak)
        }
    }

    /// Past the word (or UUID) at `i`, or one byte on.
    private static func skipIdentifier(_ u: [UInt8], _ i: Int) -> Int {
        var j = i
        while j < u.count, ByteScanner.isWordByte(u[j]) || u[j] == UInt8(ascii: "-") && j > i { j += 1 }
        return max(j, i + 1)
    }

    /// The hex digits at `i` as a count: the end of the run of hex digits.
    private static func hexEnd(_ u: [UInt8], _ i: Int) -> Int {
        var j = i
        while j < u.count, ByteScanner.hexDigit(u[j]) != nil { j += 1 }
        return j
    }

    private static func isBoundary(_ u: [UInt8], _ j: Int) -> Bool { j >= u.count || !ByteScanner.isWordByte(u[j]) }

    /// Bytes from an even number of hex digits.
    private static func decode(_ digits: ArraySlice<UInt8>) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(digits.count / 2)
        var i = digits.startIndex
        while i + 1 < digits.endIndex {
            out.append((ByteScanner.hexDigit(digits[i]) ?? 0) << 4 | (ByteScanner.hexDigit(digits[i + 1]) ?? 0))
            i += 2
        }
        return out
    }

    /// Space-separated groups of an even number of hex digits from `i`; the groups' end and bytes.
    private static func groups(_ u: [UInt8], _ i: Int) -> (Int, [UInt8])? {
        var j = i
        var bytes = [UInt8]()
        while true {
            let end = hexEnd(u, j)
            guard end > j, (end - j) % 2 == 0 else { return nil }
            bytes += decode(u[j..<end])
            j = end
            guard j + 1 < u.count, u[j] == 0x20, ByteScanner.hexDigit(u[j + 1]) != nil else { return (j, bytes) }
            j += 1
        }
    }

    /// `<a5012007 00010203>`, NSData's description before iOS 13.
    private static func angle(_ u: [UInt8], _ i: Int) -> (Range<Int>, [UInt8], Bool)? {
        guard u[i] == UInt8(ascii: "<"), let (end, bytes) = groups(u, i + 1), end < u.count,
            u[end] == UInt8(ascii: ">"), bytes.count >= 2
        else { return nil }
        return (i + 1..<end, bytes, false)
    }

    /// `{length = 8, bytes = 0xa5012007 00010203}`, NSData's description from iOS 13; a long one
    /// shows its first and last bytes around ` ... `, and the bytes before it are kept.
    private static func nsData(_ u: [UInt8], _ i: Int) -> (Range<Int>, [UInt8], Bool)? {
        var s = ByteScanner(u, at: i)
        guard s.take("{length = "), let length = s.number(), s.take(", bytes = "), s.peek == UInt8(ascii: "0"),
            s.peek(1) == UInt8(ascii: "x")
        else { return nil }
        let start = s.at
        guard let (end, bytes) = groups(u, start + 2), bytes.count >= 2 else { return nil }
        s.at = end
        let elided = s.take(" ...") || bytes.count != length
        return (start..<end, bytes, elided)
    }

    /// `0xA5,0x01`, `0xA5 0x01`, `0xa5, 0x01`: one or two digits after each `0x`.
    private static func prefixed(_ u: [UInt8], _ i: Int) -> (Range<Int>, [UInt8], Bool)? {
        func element(_ j: Int) -> (Int, UInt8)? {
            guard j + 2 < u.count, u[j] == UInt8(ascii: "0"), u[j + 1] | 0x20 == UInt8(ascii: "x") else { return nil }
            let end = hexEnd(u, j + 2)
            guard end - (j + 2) == 1 || end - (j + 2) == 2, isBoundary(u, end) else { return nil }
            return (end, decode(end - j == 3 ? [0x30, u[j + 2]] : u[j + 2..<end]).first ?? 0)
        }
        return list(u, i, separators: [", ", ",", " "], element: element).map { ($0.0, $0.1, false) }
    }

    /// `A5 01 20`, `a5:01:20`, `a5,01,20`: exactly two digits each; whether the run is weak.
    private static func pairs(_ u: [UInt8], _ i: Int) -> (Range<Int>, [UInt8], Bool)? {
        func element(_ j: Int) -> (Int, UInt8)? {
            guard hexEnd(u, j) == j + 2, isBoundary(u, j + 2) else { return nil }
            return (j + 2, decode(u[j..<j + 2]).first ?? 0)
        }
        guard let (range, bytes, separator) = list(u, i, separators: [" ", ":", ","], element: element) else {
            return nil
        }
        let letters = u[range].contains { ByteScanner.isLetter($0) }
        let colon = separator == [0x3a]
        let weak = !letters && !colon && bytes.count == 2
        let refused = !letters && !weak && bytes.count < (colon ? 4 : 3) || colon && bytes.count == 6
        return (range, refused ? [] : bytes, weak)
    }

    /// Elements from `i`, at least 2, all with the separator that follows the first.
    private static func list(
        _ u: [UInt8], _ i: Int, separators: [String], element: (Int) -> (Int, UInt8)?
    ) -> (Range<Int>, [UInt8], [UInt8])? {
        guard let (firstEnd, first) = element(i) else { return nil }
        for separator in separators.map({ Array($0.utf8) }) {
            var bytes = [first]
            var end = firstEnd
            while end + separator.count < u.count, u[end..<end + separator.count].elementsEqual(separator),
                let (next, byte) = element(end + separator.count)
            {
                bytes.append(byte)
                end = next
            }
            if bytes.count >= 2 { return (i..<end, bytes, separator) }
        }
        return nil
    }

    /// `a50120`, `deadbeef`: see the rules above.
    private static func plain(_ u: [UInt8], _ i: Int) -> (Range<Int>, [UInt8], Bool)? {
        let end = hexEnd(u, i)
        let n = end - i
        guard n >= 6, n % 2 == 0, isBoundary(u, end) else { return nil }
        let digits = u[i..<end]
        let hasDigit = digits.contains { ByteScanner.digit($0) != nil }
        let lower = digits.contains { $0 >= 0x61 }
        let upper = digits.contains { $0 >= 0x41 && $0 <= 0x46 }
        guard lower || upper, !(lower && upper), hasDigit || n >= 8 else { return nil }
        let joinedBefore = i >= 2 && u[i - 1] == UInt8(ascii: "-") && ByteScanner.isWordByte(u[i - 2])
        let joinedAfter = end + 1 < u.count && u[end] == UInt8(ascii: "-") && ByteScanner.isWordByte(u[end + 1])
        guard !joinedBefore, !joinedAfter else { return nil }
        return (i..<end, decode(digits), false)
    }

    /// `…` or `...` right after the bytes (a space between allowed): the line shows part of them.
    private static func ellipsisFollows(_ u: [UInt8], _ end: Int) -> Bool {
        var s = ByteScanner(u, at: end)
        if u.indices.contains(end), u[end] == UInt8(ascii: ">") || u[end] == UInt8(ascii: "]") { s.at += 1 }
        _ = s.take(UInt8(ascii: " "))
        return s.take("...") || s.take("…")
    }
}
