import BTLensDissect
import BTLensTestSupport
import Foundation
import XCTest

/// docs/jsonl.md against the declared fields (`EventFields`): every field an event type declares is
/// named, in backticks, where the page describes that type (`a5` and `message` in their tables,
/// `diagnostic` in its, the others in their row of "Other event types").
final class JSONLDocsFieldTests: XCTestCase {
    private static let page = packageRoot.appendingPathComponent("docs/jsonl.md")

    /// Said once, under "Every line", for every type.
    private static let everyLine: Set<String> = ["type", "record", "time", "direction", "connection"]

    func testEveryDeclaredFieldIsDocumented() throws {
        let text = try String(contentsOf: Self.page, encoding: .utf8)
        let sections = Self.sections(text)
        let rows = Self.typeRows(try XCTUnwrap(sections["Other event types"]))
        for t in EventType.allCases {
            let said: Set<String>
            switch t {
            case .a5, .message: said = Self.names(try XCTUnwrap(sections["Frames: `a5` and `message`"]))
            case .diagnostic: said = Self.names(try XCTUnwrap(sections["`diagnostic`"]))
            default: said = Self.names(try XCTUnwrap(rows[t.name], "no row for \(t.name)"))
            }
            for f in EventFields.fields(of: t) where !Self.everyLine.contains(f.key) {
                XCTAssertTrue(said.contains(f.key), "docs/jsonl.md does not say \(t.name)'s \(f.key)")
            }
        }
    }

    /// The page's text by `## ` heading.
    private static func sections(_ text: String) -> [String: String] {
        var out: [String: String] = [:]
        var heading = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") {
                heading = String(line.dropFirst(3))
            } else {
                out[heading, default: ""] += line + "\n"
            }
        }
        return out
    }

    /// The rows of the "Other event types" table by the types their first cell names (`gatt.long_write`,
    /// and "the same" for a row that repeats the one above).
    private static func typeRows(_ section: String) -> [String: String] {
        var out: [String: String] = [:]
        var previous = ""
        for line in section.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false)
            guard cells.count == 3 else { continue }
            var keys = String(cells[2])
            if keys.contains("the same") { keys += previous }
            previous = keys
            for name in names(String(cells[1])) { out[name] = keys }
        }
        return out
    }

    /// The names in backticks in `text`.
    private static func names(_ text: String) -> Set<String> {
        Set(
            text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map
            {
                String($0.element)
            })
    }
}
